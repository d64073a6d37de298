/** The store's market copies (src/state/market-state.ts): the one-literal builders make what marketWith makes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE } from '../../src/state/edge-settings.ts';
import { edgeWithRegime } from '../../src/state/edge-state.ts';
import { emptyMarket, emptyState, marketWith, marketWithDenials, marketWithEdge, marketWithTrade, type StoreState } from '../../src/state/market-state.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { reduce } from '../../src/state/reduce.ts';

const M = ('0x' + 'c3'.repeat(32)) as Bytes32;

test('marketWithEdge and marketWithTrade: the same fields, values and key order as marketWith', () => {
  const m = marketWith(emptyMarket(M, DEFAULT_EDGE), {
    slug: 's',
    tick: 1000,
    status: 'active',
    streamLastEventAt: 5,
    streamState: 'live',
    lastMid2: 1_000_000,
  });
  const edge = edgeWithRegime(m.edge, 'event', 7);
  const a = marketWithEdge(m, edge);
  const b = marketWith(m, { edge });
  assert.deepEqual(a, b);
  assert.deepEqual(Object.keys(a), Object.keys(b));
  assert.equal(a.memo, m.memo);
  const trades = [{ price: 500_000, size: 1_000_000, takerSide: 'buy' as const, ts: 9 }];
  const c = marketWithTrade(m, 9, trades, edge);
  const d = marketWith(m, { streamLastEventAt: 9, trades, edge });
  assert.deepEqual(c, d);
  assert.deepEqual(Object.keys(c), Object.keys(d));
  assert.equal(c.trades, trades);
  assert.equal(c.streamState, 'live');
});

test('marketWithDenials: the same fields, values and key order as marketWith', () => {
  const m = marketWith(emptyMarket(M, DEFAULT_EDGE), {
    slug: 's',
    tick: 1000,
    streamLastEventAt: 5,
    streamState: 'live',
    lastMid2: 1_000_000,
    blocked: 'halted',
  });
  const denials = new Map([['CROSSES_BOOK', 2]]);
  const a = marketWithDenials(m, denials);
  const b = marketWith(m, { denials });
  assert.deepStrictEqual(a, b);
  assert.deepStrictEqual(Object.keys(a), Object.keys(b));
  assert.equal(a.denials, denials);
  assert.equal(a.memo, m.memo);
});

test('the account-wide events (balance, reconcile, back-off, venue call) keep every field of the state, in its order, and replace only theirs', () => {
  const s0 = reduce(emptyState(), { type: 'BalanceUpdated', collateral: 5_000_000n, ts: 10 });
  const keys = Object.keys(emptyState());
  const events: StateEvent[] = [
    { type: 'BalanceUpdated', collateral: 7_000_000n, ts: 11 },
    { type: 'OrdersReconciled', marketId: null, adopted: 0, cancelled: 0, dropped: 0, ts: 12 },
    { type: 'VenueBackedOff', until: 20, shed: 1, ts: 13 },
    { type: 'VenueBackedOff', until: 15, shed: 0, ts: 14 },
    { type: 'VenueCallCompleted', call: 'batch', ok: true, ms: 3, ts: 15 },
  ];
  const changed = ['collateral', 'lastReconcileAt', 'backoffUntil', 'backoffUntil', 'venueCalls'];
  let s = s0;
  for (let i = 0; i < events.length; i++) {
    const next = reduce(s, events[i]!);
    assert.deepEqual(Object.keys(next), keys, events[i]!.type);
    assert.equal(next.version, s.version + 1);
    assert.equal(next.ts, events[i]!.ts);
    for (const k of keys) {
      if (k === 'version' || k === 'ts' || k === changed[i]) continue;
      assert.equal(next[k as keyof StoreState], s[k as keyof StoreState], `${events[i]!.type}: ${k} kept`);
    }
    s = next;
  }
  assert.equal(s.collateral, 7_000_000n);
  assert.equal(s.lastReconcileAt, 12);
  assert.equal(s.backoffUntil, 20); // the later, shorter back-off does not shorten it
  assert.deepEqual(s.venueCalls.count(20, 60_000), { requests: 1, errors: 0 });
  assert.equal(s.markets, s0.markets);
  assert.equal(s.memo, s0.memo);
});
