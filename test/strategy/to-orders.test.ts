import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOrder, toOrders, toYesTerms } from '../../src/strategy/to-orders.ts';
import { snapPrice, maxPrice, isOnGrid } from '../../src/strategy/snap-price.ts';
import type { DesiredQuote } from '../../src/strategy/types.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const M = ('0x' + '11'.repeat(32)) as Bytes32;
const opts = { marketId: M, tick: 10_000 };
const S = 1_000_000;

test('snapPrice: bids down, asks up, clamped to [tick, 1e6 - tick]', () => {
  const rows: [number, 'bid' | 'ask', number, number][] = [
    [455_555, 'bid', 10_000, 450_000],
    [455_555, 'ask', 10_000, 460_000],
    [450_000, 'ask', 10_000, 450_000],
    [-5, 'bid', 10_000, 10_000],
    [3, 'ask', 10_000, 10_000],
    [999_999, 'ask', 10_000, 990_000],
    [2_000_000, 'bid', 10_000, 990_000],
    [500_001, 'ask', 3_000, 501_000],
    [999_999, 'ask', 3_000, 996_000],
  ];
  for (const [p, side, tick, want] of rows) assert.equal(snapPrice(p, side, tick), want, `${p} ${side} ${tick}`);
  assert.equal(maxPrice(10_000), 990_000);
  assert.ok(isOnGrid(450_000, 10_000));
  assert.ok(!isOnGrid(455_000, 10_000));
  assert.ok(!isOnGrid(0, 10_000));
  assert.ok(!isOnGrid(1_000_000, 10_000));
});

test('toOrder: inventory cases table', () => {
  const bid: DesiredQuote = { side: 'bid', price: 404_000, size: 5 * S };
  const ask: DesiredQuote = { side: 'ask', price: 606_000, size: 5 * S };
  const rows: {
    q: DesiredQuote;
    yes: number;
    no: number;
    mode?: 'buy-complement' | 'sell-no-inventory';
    form: string;
    outcome: number;
    side: number;
    price: number;
    inv: number;
  }[] = [
    // flat: bid buys YES at the snapped bid, ask buys NO at the complement of the snapped ask
    { q: bid, yes: 0, no: 0, form: 'buy-yes', outcome: 1, side: 0, price: 400_000, inv: 0 },
    { q: ask, yes: 0, no: 0, form: 'buy-no', outcome: 0, side: 0, price: 390_000, inv: 0 },
    // holding enough YES: ask sells YES from inventory
    { q: ask, yes: 5 * S, no: 0, form: 'sell-yes', outcome: 1, side: 1, price: 610_000, inv: 1 },
    // holding too little YES: buy NO instead
    { q: ask, yes: 4 * S, no: 0, form: 'buy-no', outcome: 0, side: 0, price: 390_000, inv: 0 },
    // holding NO: bid sells NO from inventory at 1 - p
    { q: bid, yes: 0, no: 7 * S, form: 'sell-no', outcome: 0, side: 1, price: 600_000, inv: 1 },
    // sell-without-inventory configured
    { q: ask, yes: 0, no: 0, mode: 'sell-no-inventory', form: 'sell-yes-mint', outcome: 1, side: 1, price: 610_000, inv: 2 },
    { q: bid, yes: 0, no: 0, mode: 'sell-no-inventory', form: 'sell-no-mint', outcome: 0, side: 1, price: 600_000, inv: 2 },
    // inventory still wins over minting
    { q: ask, yes: 9 * S, no: 0, mode: 'sell-no-inventory', form: 'sell-yes', outcome: 1, side: 1, price: 610_000, inv: 1 },
  ];
  for (const r of rows) {
    const m = toOrder(r.q, { yes: r.yes, no: r.no }, { ...opts, noInventory: r.mode });
    const label = JSON.stringify(r);
    assert.equal(m.form, r.form, label);
    assert.equal(m.order.outcomeIndex, r.outcome, label);
    assert.equal(m.order.side, r.side, label);
    assert.equal(m.order.price, r.price, label);
    assert.equal(m.order.inventoryMode, r.inv, label);
    assert.equal(m.order.size, r.q.size, label);
    assert.equal(m.order.marketId, M);
    // round trip to YES terms gives the snapped quote back
    const back = toYesTerms(m.order.outcomeIndex, m.order.side, m.order.price);
    assert.equal(back.side, r.q.side, label);
    assert.equal(back.price, m.quote.price, label);
  }
});

test('toOrders consumes inventory closest level first', () => {
  const quotes: DesiredQuote[] = [
    { side: 'ask', price: 620_000, size: 3 * S, level: 1 },
    { side: 'ask', price: 600_000, size: 3 * S, level: 0 },
    { side: 'bid', price: 400_000, size: 3 * S, level: 0 },
  ];
  const out = toOrders(quotes, { yes: 4 * S, no: 0 }, opts);
  assert.equal(out[1]!.form, 'sell-yes'); // level 0 gets the 4 YES
  assert.equal(out[0]!.form, 'buy-no'); // only 1 YES left for level 1
  assert.equal(out[2]!.form, 'buy-yes');
  assert.equal(out.length, 3);
});

test('toOrders never sells more than held across quotes', () => {
  const quotes: DesiredQuote[] = Array.from({ length: 5 }, (_, i) => ({ side: 'bid' as const, price: 450_000 - i * 10_000, size: 2 * S, level: i }));
  const out = toOrders(quotes, { yes: 0, no: 5 * S }, opts);
  const sold = out.filter((m) => m.form === 'sell-no').reduce((a, m) => a + m.order.size, 0);
  assert.equal(sold, 4 * S);
  assert.deepEqual(
    out.map((m) => m.form),
    ['sell-no', 'sell-no', 'buy-yes', 'buy-yes', 'buy-yes'],
  );
});

test('availableInventory subtracts open sells from inventory, not minting sells', async () => {
  const { availableInventory } = await import('../../src/strategy/to-orders.ts');
  const w = (outcomeIndex: 0 | 1, venueSide: 'buy' | 'sell', size: number, inventoryMode?: 0 | 1 | 2) => ({
    side: 'ask' as const,
    price: 500_000,
    size,
    state: 'working' as const,
    outcomeIndex,
    venueSide,
    placedAt: 0,
    ...(inventoryMode === undefined ? {} : { inventoryMode }),
  });
  const got = availableInventory({ yes: 10 * S, no: 4 * S }, [w(1, 'sell', 3 * S, 1), w(1, 'sell', 5 * S, 2), w(0, 'sell', 6 * S), w(1, 'buy', 9 * S)]);
  assert.deepEqual(got, { yes: 7 * S, no: 0 });
});
