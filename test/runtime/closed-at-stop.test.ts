/**
 * closeAtStop (src/runtime/closed-at-stop.ts): the orders the cancel-all found gone with their end
 * unseen, after the stop's sweep. One the sweep read closed goes to the core as an OrderClosed with the
 * venue's status (the kernel then drops it from the store); one it could not read is dropped from the
 * store alone (no event the ledger sees: it stays unfinished there for the next start); one the venue
 * shows open is left in the store; one the store no longer holds is left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { closeAtStop } from '../../src/runtime/closed-at-stop.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/logger.ts';
import { orderEnds, orderEndsOf } from '../../src/ledger/order-ends.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { settableClock, T0, TRADER } from '../support/venue-order.ts';

const M = ('0x' + '11'.repeat(32)) as Bytes32;
const n = (c: string): Bytes32 => ('0x' + c.repeat(64)) as Bytes32;

/** a core whose store holds `held` open in M; records what reaches the store alone and the core */
function fakeCore(held: Bytes32[]) {
  const orders = new Map<string, unknown>(held.map((k) => [k, {}]));
  const storeOnly: StateEvent[] = [];
  const core: StateEvent[] = [];
  return {
    storeOnly,
    told: core,
    core: {
      store: {
        state: { markets: new Map([[M, { orders }]]) },
        dispatch: (e: StateEvent) => {
          storeOnly.push(e);
          if (e.type === 'OrderGone') orders.delete(e.nonce);
        },
      },
      receiveAll: (es: readonly StateEvent[]) => core.push(...es),
    } as never,
  };
}

test('closed with the venue status through the core; unread dropped from the store alone; open left; already gone untouched', () => {
  const clock = settableClock(5_000);
  const [filled, unread, open, settled] = [n('a'), n('b'), n('c'), n('d')];
  const f = fakeCore([filled, unread, open]);
  const r = closeAtStop(
    { core: f.core, clock, log: silentLogger },
    [filled, unread, open, settled].map((nonce) => ({ nonce, marketId: M })),
    [
      { nonce: filled, marketId: M, status: 'filled' },
      { nonce: open, marketId: M, status: 'open' },
      { nonce: settled, marketId: M, status: 'cancelled' },
    ],
  );
  assert.deepEqual(r, { closed: 1, unread: 1, open: 1 });
  assert.deepEqual(f.told, [{ type: 'OrderClosed', marketId: M, nonce: filled, status: 'filled', ts: 5_000 }]);
  assert.deepEqual(f.storeOnly, [{ type: 'OrderGone', marketId: M, nonce: unread, ts: 5_000 }]);
});

test('no sweep (failed, paper, refused start): every order the store still holds is dropped from the store alone', () => {
  const f = fakeCore([n('a'), n('b')]);
  const r = closeAtStop(
    { core: f.core, clock: settableClock(1), log: silentLogger },
    [
      { nonce: n('a'), marketId: M },
      { nonce: n('b'), marketId: M },
    ],
    null,
  );
  assert.deepEqual(r, { closed: 0, unread: 2, open: 0 });
  assert.deepEqual(f.told, []);
  assert.deepEqual(
    f.storeOnly.map((e) => e.type),
    ['OrderGone', 'OrderGone'],
  );
});

test("the log counts the orders found ended already apart from the stop's cancelled ones, with their ends as the ledger's orders line counts them", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-closed-at-stop-'));
  const clock = settableClock(T0);
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER });
  try {
    // the stop: d's cancel was answered 201; a's alreadyCancelled (it filled after the list); b and c were
    // gone from the list (b filled, c could not be read)
    const [a, b, c, d] = [n('a'), n('b'), n('c'), n('d')];
    for (const k of [a, b, c, d]) {
      bl.onEvent({
        type: 'OrderSubmitted',
        marketId: M,
        slot: `s${k}`,
        nonce: k,
        order: { nonce: k, marketId: M, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 },
        retry: false,
        ts: T0,
      });
      bl.onEvent({ type: 'OrderAccepted', marketId: M, nonce: k, duplicate: false, ts: T0 });
    }
    bl.onEvent({ type: 'OrderCancelled', marketId: M, nonce: d, alreadyCancelled: false, ts: T0 + 1 });
    bl.onEvent({ type: 'OrderCancelled', marketId: M, nonce: a, alreadyCancelled: true, ts: T0 + 1 });
    // the sweep's reads reach the ledger (finalSweep records the ends it read)
    bl.onEvent({ type: 'OrderClosed', marketId: M, nonce: a, status: 'filled', ts: T0 + 2 });
    bl.onEvent({ type: 'OrderClosed', marketId: M, nonce: b, status: 'filled', ts: T0 + 2 });
    const f = fakeCore([b, c]);
    const gone = [
      { nonce: a, marketId: M, answered: true as const },
      { nonce: b, marketId: M },
      { nonce: c, marketId: M },
    ];
    const r = closeAtStop({ core: f.core, clock, log, ends: (x) => bl.orderEndsOf(x) }, gone, [
      { nonce: a, marketId: M, status: 'filled' },
      { nonce: b, marketId: M, status: 'filled' },
    ]);
    assert.deepEqual(r, { closed: 1, unread: 1, open: 0 });
    const line = lines.find((l) => String(l.msg).startsWith('stop: orders that ended while the cancels ran'));
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.orders, undefined, 'no field mixing the kinds');
    assert.equal(line.alreadyEnded, 3);
    assert.equal(line.answeredAlreadyCancelled, 1);
    assert.equal(line.foundGone, 2);
    const ends = orderEndsOf(bl.ledger, [a, b, c]);
    assert.deepEqual(line.endedAs, ends.ended, 'the ends as order-ends counts them');
    assert.deepEqual(line.endedAs, { filled: 2 }, 'the cancelled one (201) is not among them');
    assert.equal(line.notEnded, 1);
    // and over the whole run, the same count has d apart: cancelled by our cancel
    assert.deepEqual(orderEnds(bl.ledger).ended, { cancelled: 1, filled: 2 });
  } finally {
    bl.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
