/** The store's market copies (src/state/market-state.ts): the one-literal builders make what marketWith makes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE } from '../../src/state/edge-settings.ts';
import { edgeWithRegime } from '../../src/state/edge-state.ts';
import { emptyMarket, marketWith, marketWithDenials, marketWithEdge, marketWithTrade } from '../../src/state/market-state.ts';

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
