import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { PaperVenue } from '../../src/runtime/paper-venue.ts';
import type { OrderFilled } from '../../src/state/events.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';

const M = ('0x' + 'aa'.repeat(32)) as Bytes32;
const n = (i: number) => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;

function setup() {
  const fills: OrderFilled[] = [];
  const v = new PaperVenue({ clock: new ManualClock(), onFill: (e) => fills.push(e) });
  return { v, fills };
}

test('orders rest in memory and cancel; nothing is sent anywhere', async () => {
  const { v } = setup();
  const r = await v.batch([{ marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 10_000_000, nonce: n(1) }], []);
  assert.equal(r.creates[0]!.ok, true);
  assert.equal((await v.openOrders(M)).length, 1);
  const c = await v.batch([], [n(1), n(2)]);
  assert.deepEqual(
    c.cancels.map((x) => x.ok && x.alreadyCancelled),
    [false, true],
  );
  assert.equal(v.openCount, 0);
});

test('a public trade fills the quotes it prints through, best price first, up to its size', async () => {
  const { v, fills } = setup();
  await v.batch(
    [
      { marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 4_000_000, nonce: n(1) }, // YES bid 0.48
      { marketId: M, outcomeIndex: 0, side: 1, price: 530_000, size: 4_000_000, nonce: n(2) }, // NO sell at 0.53 = YES bid 0.47
      { marketId: M, outcomeIndex: 0, side: 0, price: 450_000, size: 4_000_000, nonce: n(3) }, // NO buy at 0.45 = YES ask 0.55
    ],
    [],
  );
  // a taker sells 6 YES down to 0.46: our 0.48 bid fills 4, our 0.47 bid fills 2
  v.onBookEvent(
    { type: 'trade', marketId: M, outcomeIndex: 1, seq: 1, price: 460_000, size: 6_000_000, takerSide: 'sell', venueTs: 0, localTs: 0 },
    null,
    null,
  );
  assert.deepEqual(
    fills.map((f) => [f.nonce, f.size, f.price]),
    [
      [n(1), 4_000_000, 480_000],
      [n(2), 2_000_000, 530_000],
    ],
  );
  assert.equal(v.openCount, 2);
});

test('a book that moves through a resting quote fills it in full', async () => {
  const { v, fills } = setup();
  await v.batch([{ marketId: M, outcomeIndex: 0, side: 0, price: 450_000, size: 3_000_000, nonce: n(3) }], []); // YES ask 0.55
  v.onBookEvent({ type: 'delta', marketId: M, outcomeIndex: 1, seq: 2, bids: [], asks: [], venueTs: 0, localTs: 0 }, 560_000, 570_000);
  assert.equal(fills.length, 1);
  assert.equal(fills[0]!.size, 3_000_000);
  assert.match(fills[0]!.fillId!, /^paper:/);
});

test("an order filled in full is told closed 'filled' after its last fill (the paper ledger ends it so); a part fill is not", async () => {
  const told: string[] = [];
  const v = new PaperVenue({
    clock: new ManualClock(),
    onFill: (e) => told.push(`fill ${e.nonce} ${e.size}`),
    onClosed: (e) => told.push(`closed ${e.nonce} ${e.status}`),
  });
  await v.batch([{ marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 4_000_000, nonce: n(1) }], []); // YES bid 0.48
  const sell = (size: number, seq: number) =>
    v.onBookEvent({ type: 'trade', marketId: M, outcomeIndex: 1, seq, price: 470_000, size, takerSide: 'sell', venueTs: 0, localTs: 0 }, null, null);
  sell(1_000_000, 1);
  sell(5_000_000, 2);
  assert.deepEqual(told, [`fill ${n(1)} 1000000`, `fill ${n(1)} 3000000`, `closed ${n(1)} filled`]);
  // its cancel now answers alreadyCancelled, which ends nothing (the close did)
  const c = await v.batch([], [n(1)]);
  assert.deepEqual(c.cancels[0], { ok: true, nonce: n(1), alreadyCancelled: true });
});
