import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InventoryMode, Outcome, Side, type Bytes32 } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { TrackedOrder } from '../../src/orders/diff.ts';
import { desiredWithReservedSells, newDesiredMemo, type ReservedSellsInput } from '../../src/orders/sell-reserve.ts';
import { slotOf } from '../../src/orders/slots.ts';
import type { DesiredQuote } from '../../src/strategy/types.ts';
import { M1 } from './fake-venue.ts';

const TOL = { price: 0, sizeFraction: 0.1 };
const bid = (price: number, size: number, level = 0): DesiredQuote => ({ side: 'bid', price, size, level });

function noSale(slot: string, price: number, size: number, state: TrackedOrder['state'] = 'working', remaining = size): TrackedOrder {
  const planned: PlannedOrder = {
    marketId: M1,
    size,
    outcomeIndex: Outcome.NO,
    side: Side.SELL,
    price,
    inventoryMode: InventoryMode.REQUIRE_INVENTORY,
    nonce: ('0x' + slot.length.toString(16).padStart(2, '0') + price.toString(16).padStart(62, '0')) as Bytes32,
  };
  return { slot, planned, remaining, state, sentAt: 0 };
}

function input(over: Partial<ReservedSellsInput>): ReservedSellsInput {
  return {
    marketId: M1,
    quotes: [],
    position: { yes: 0, no: 0 },
    leaving: [],
    tracked: [],
    tolerances: TOL,
    nowSec: 1_800_000_000,
    toOrders: { marketId: M1, tick: 1_000 },
    cancelledSellsPark: true,
    ...over,
  };
}

const form = (o: { outcomeIndex: number; side: number }) =>
  o.outcomeIndex === Outcome.NO && o.side === Side.SELL ? 'no-sale' : o.outcomeIndex === Outcome.YES && o.side === Side.BUY ? 'yes-buy' : 'other';
const BID0 = slotOf(M1, 'bid', 0);

test('a NO sale kept where it is keeps its tokens: the bid stays a NO sale', () => {
  const out = desiredWithReservedSells(
    input({ quotes: [bid(480_000, 10_000_000)], position: { yes: 0, no: 10_000_000 }, tracked: [noSale(BID0, 520_000, 10_000_000)] }),
  );
  assert.equal(form(out[0]!.order), 'no-sale');
});

test('a NO sale the tick moves holds its tokens until its end is known: the moved bid is a YES buy', () => {
  const out = desiredWithReservedSells(
    input({ quotes: [bid(490_000, 10_000_000)], position: { yes: 0, no: 10_000_000 }, tracked: [noSale(BID0, 520_000, 10_000_000)] }),
  );
  assert.equal(form(out[0]!.order), 'yes-buy');
  assert.equal(out[0]!.order.price, 490_000);
});

test('without parking (settleMs 0) the moved bid is a NO sale of the same tokens', () => {
  const out = desiredWithReservedSells(
    input({
      quotes: [bid(490_000, 10_000_000)],
      position: { yes: 0, no: 10_000_000 },
      tracked: [noSale(BID0, 520_000, 10_000_000)],
      cancelledSellsPark: false,
    }),
  );
  assert.equal(form(out[0]!.order), 'no-sale');
  assert.equal(out[0]!.order.price, 510_000);
});

test('enough tokens for both: the moved bid stays a NO sale, to the last unit', () => {
  const held = 20_000_000;
  const tracked = [noSale(BID0, 520_000, 10_000_000)];
  assert.equal(form(desiredWithReservedSells(input({ quotes: [bid(490_000, 10_000_000)], position: { yes: 0, no: held }, tracked }))[0]!.order), 'no-sale');
  assert.equal(form(desiredWithReservedSells(input({ quotes: [bid(490_000, 10_000_000)], position: { yes: 0, no: held - 1 }, tracked }))[0]!.order), 'yes-buy');
});

test("a kept sale's shares beyond its quote's size stay reserved for the other levels", () => {
  // level 0 keeps a 10.5-share NO sale for a 10-share quote (within 10 %); level 1 wants 10 more
  const held = 20_000_000;
  const quotes = [bid(480_000, 10_000_000, 0), bid(470_000, 10_000_000, 1)];
  const tracked = [noSale(BID0, 520_000, 10_500_000)];
  const out = desiredWithReservedSells(input({ quotes, position: { yes: 0, no: held }, tracked }));
  assert.equal(form(out[0]!.order), 'no-sale', 'level 0 is the kept sale');
  assert.equal(form(out[1]!.order), 'yes-buy', 'only 9.5 shares are free: no 10-share NO sale');
  const enough = desiredWithReservedSells(input({ quotes, position: { yes: 0, no: held + 500_000 }, tracked }));
  assert.equal(form(enough[1]!.order), 'no-sale');
});

test('an in-flight NO sale not matching this tick, or a sale whose slot is gone, holds its tokens', () => {
  const pos = { yes: 0, no: 10_000_000 };
  const inflight = desiredWithReservedSells(
    input({ quotes: [bid(490_000, 10_000_000)], position: pos, tracked: [noSale(BID0, 520_000, 10_000_000, 'pending-create')] }),
  );
  assert.equal(form(inflight[0]!.order), 'yes-buy');
  const other = desiredWithReservedSells(
    input({ quotes: [bid(480_000, 10_000_000)], position: pos, tracked: [noSale(slotOf(M1, 'bid', 3), 520_000, 10_000_000)] }),
  );
  assert.equal(form(other[0]!.order), 'yes-buy');
});

test('the memo: the same quotes, keeps, free inventory and options give the last set itself; any change maps afresh', () => {
  const memo = newDesiredMemo();
  const opts = { marketId: M1, tick: 1_000 };
  const ask = (price: number, size: number, level = 0): DesiredQuote => ({ side: 'ask', price, size, level });
  const base = { quotes: [bid(480_000, 10_000_000), ask(520_000, 10_000_000)], position: { yes: 0, no: 10_000_000 }, toOrders: opts };
  const fresh = (over: Partial<ReservedSellsInput>) => desiredWithReservedSells(input({ ...base, ...over }));
  const first = desiredWithReservedSells(input({ ...base, memo }));
  assert.deepEqual(first, fresh({}));
  // equal quotes in new objects: the same set, the same objects
  const again = desiredWithReservedSells(input({ ...base, quotes: [bid(480_000, 10_000_000), ask(520_000, 10_000_000)], memo }));
  assert.equal(again, first);
  // each input that changes the mapping maps afresh, equal to a mapping without the memo
  const changes: Partial<ReservedSellsInput>[] = [
    { quotes: [bid(470_000, 10_000_000), ask(520_000, 10_000_000)] },
    { quotes: [bid(480_000, 9_000_000), ask(520_000, 10_000_000)] },
    { quotes: [bid(480_000, 10_000_000, 1), ask(520_000, 10_000_000)] },
    { quotes: [bid(480_000, 10_000_000)] },
    { keeps: [('0x' + '07'.repeat(32)) as Bytes32, null] },
    { position: { yes: 0, no: 5_000_000 } },
    { position: { yes: 10_000_000, no: 10_000_000 } },
    { toOrders: { marketId: M1, tick: 10_000 } },
  ];
  for (const over of changes) {
    const got = desiredWithReservedSells(input({ ...base, ...over, memo }));
    assert.notEqual(got, first, JSON.stringify(over));
    assert.deepEqual(got, fresh(over), JSON.stringify(over));
    // and back: the base inputs map afresh too (the memo holds the changed set now)
    assert.deepEqual(desiredWithReservedSells(input({ ...base, memo })), first);
  }
  // a strategy that rewrote its last list in place: the changed price is seen
  const quotes = [bid(480_000, 10_000_000)];
  const before = desiredWithReservedSells(input({ ...base, quotes, memo }));
  (quotes[0] as { price: number }).price = 470_000;
  const after = desiredWithReservedSells(input({ ...base, quotes, memo }));
  assert.equal(before[0]!.order.price, 520_000); // a NO sale at 1 − p
  assert.equal(after[0]!.order.price, 530_000);
});

test('the memo is not used when live sells hold tokens (the reservation reads more than it keeps)', () => {
  const memo = newDesiredMemo();
  const over = { quotes: [bid(490_000, 10_000_000)], position: { yes: 0, no: 10_000_000 }, memo };
  const a = desiredWithReservedSells(input({ ...over, tracked: [noSale(BID0, 520_000, 10_000_000)] }));
  // the sell left: the same quotes now map to a NO sale
  const b = desiredWithReservedSells(input({ ...over, tracked: [] }));
  assert.equal(form(a[0]!.order), 'yes-buy');
  assert.equal(form(b[0]!.order), 'no-sale');
});
