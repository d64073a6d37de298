/**
 * src/state/market-view.ts keeps one ViewAccountTotals and one ViewEdgeFigures alive (VIEW_ACCOUNT_SHAPE,
 * VIEW_EDGE_SHAPE) so that V8 keeps the views' maps across full GCs, and the optimised code that handled views
 * with them (docs/performance/reoptimisation.md). The kept instances are useful only while they have the map of
 * every view's, also after its figures were read: checked with V8's %HaveSameMap (natives syntax, switched on
 * for one function made here).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import { selectMarketView, VIEW_ACCOUNT_SHAPE, VIEW_EDGE_SHAPE } from '../../src/state/market-view.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const S = 1_000_000;
const C = 10_000;

function book(ts: number, midCents: number): StateEvent {
  const b: BookSnapshot = {
    marketId: M,
    outcomeIndex: 1,
    bids: [{ price: (midCents - 1) * C, size: 100 * S }],
    asks: [{ price: (midCents + 1) * C, size: 100 * S }],
    venueTs: ts,
  };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book: b, seq: ts, localTs: ts, source: 'stream' }, ts };
}

test('the kept view objects have the map of every view: account totals and edge figures, fresh and read', () => {
  let s: StoreState = emptyState();
  for (const e of [book(1_000, 50), book(2_000, 52)]) s = reduce(s, e, DEFAULT_LIMITS);
  const fresh = selectMarketView(s, M, 2_500)!;
  assert.ok(haveSameMap(VIEW_ACCOUNT_SHAPE, fresh.account), 'account totals, not read');
  assert.ok(haveSameMap(VIEW_EDGE_SHAPE, fresh.edge!), 'edge figures, not read');
  const read = selectMarketView(s, M, 3_000)!;
  assert.equal(read.account.pnl, 0);
  assert.equal(read.account.worstCasePosition, 0);
  assert.equal(typeof read.edge!.regime, 'string');
  assert.equal(read.edge!.flowSize, 0);
  JSON.stringify(read.edge);
  assert.equal((read.account as unknown as { toJSON(): { pnl: number } }).toJSON().pnl, 0);
  assert.ok(haveSameMap(VIEW_ACCOUNT_SHAPE, read.account), 'account totals, read');
  assert.ok(haveSameMap(VIEW_EDGE_SHAPE, read.edge!), 'edge figures, read');
  // the views of another state and market time (a new tick) too
  s = reduce(s, book(4_000, 55), DEFAULT_LIMITS);
  const next = selectMarketView(s, M, 4_000)!;
  assert.ok(haveSameMap(VIEW_ACCOUNT_SHAPE, next.account) && haveSameMap(VIEW_EDGE_SHAPE, next.edge!), 'the next tick');
  // the check itself tells maps apart: the two classes' instances, and a plain object of the same figures
  assert.equal(haveSameMap(VIEW_ACCOUNT_SHAPE, next.edge!), false);
  assert.equal(haveSameMap(VIEW_ACCOUNT_SHAPE, { ...next.account }), false);
});
