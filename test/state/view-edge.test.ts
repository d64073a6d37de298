/**
 * A view's edge figures (src/state/market-view.ts ViewEdgeFigures): computed on first read, not when
 * the view is built, and then the figures of the view's state and time (edgeView with the account's
 * pool), however much later they are read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE } from '../../src/state/edge-settings.ts';
import { edgeView, poolView } from '../../src/state/edge-view.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type MarketState, type StoreState } from '../../src/state/market-state.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';

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
const trade = (ts: number, takerSide: 'buy' | 'sell', shares: number): StateEvent => ({
  type: 'BookEventReceived',
  event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: ts, price: 50 * C, size: shares * S, takerSide, venueTs: ts, localTs: ts },
  ts,
});
const fill = (ts: number, side: 0 | 1, cents: number, shares: number): StateEvent => ({
  type: 'OrderFilled',
  marketId: M,
  nonce: null,
  outcomeIndex: 1,
  side,
  price: cents * C,
  size: shares * S,
  fee: 0,
  fillId: `f${ts}`,
  ts,
});

function run(events: StateEvent[], from: StoreState = emptyState()): StoreState {
  let s = from;
  for (const e of events) s = reduce(s, e, DEFAULT_LIMITS);
  return s;
}

/** `s` with its one market wrapped so that reads of the market's edge state are counted */
function counting(s: StoreState): { state: StoreState; reads: () => number } {
  let n = 0;
  const m = s.markets.get(M)!;
  const spy = new Proxy(m, {
    get(target, key, receiver) {
      if (key === 'edge') n++;
      return Reflect.get(target, key, receiver);
    },
  }) as MarketState;
  return { state: { ...s, markets: new Map([[M, spy]]) }, reads: () => n };
}

describe('view edge figures', () => {
  const events = [book(1_000, 50), trade(2_000, 'buy', 30), fill(3_000, 0, 49, 10), book(4_000, 52), trade(5_000, 'sell', 10), book(6_000, 51)];

  it('reads nothing of the market edge state until a figure is read', () => {
    const { state, reads } = counting(run(events));
    const view = selectMarketView(state, M, 7_000)!;
    assert.equal(reads(), 0, 'building the view read the edge state');
    assert.equal(typeof view.edge!.regime, 'string');
    assert.ok(reads() > 0);
  });

  it('are the figures of the view state and time, read later', () => {
    const s1 = run(events);
    const now = 7_000;
    const view = selectMarketView(s1, M, now)!;
    // the store moves on before the figures are read
    const s2 = run([trade(8_000, 'buy', 50), fill(9_000, 1, 53, 5), book(10_000, 55)], s1);
    assert.notEqual(s2.markets.get(M)!.edge, s1.markets.get(M)!.edge);
    const m1 = s1.markets.get(M)!;
    const want = edgeView(m1, now, poolView(s1.toxicityPool, now, DEFAULT_EDGE.poolHalfLifeMs));
    const got = view.edge!;
    for (const k of Object.keys(want) as (keyof typeof want)[]) assert.deepEqual(got[k], want[k], k);
    assert.deepEqual(JSON.parse(JSON.stringify(got)), JSON.parse(JSON.stringify(want)));
  });
});
