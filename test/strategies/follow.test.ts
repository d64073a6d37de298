/** follow (strategies/follow): one order across the touch after a sweep, toward a position of `size` in its direction; nothing between sweeps. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import follow from '../../strategies/follow/index.ts';
import type { ViewTrade, WorkingQuote } from '../../src/strategy/types.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';

const C = 10_000;
const sweep = (takerSide: 'buy' | 'sell', shares = 400, agoMs = 500): ViewTrade => ({ price: 50 * C, size: shares * S, takerSide, ts: NOW - agoMs });
const cfg = follow.parseConfig({ sweepShares: 300, sweepSeconds: 2, size: 25 }, 'p');
const book = { bids: [{ price: 48 * C, size: 1_000 * S }], asks: [{ price: 52 * C, size: 1_000 * S }] };

describe('follow', () => {
  it('after a buy sweep: a bid at the best ask for the shares up to +size; after a sell sweep: an ask at the best bid', () => {
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy')] }), cfg), [{ side: 'bid', price: 52 * C, size: 25 * S, level: 0, tag: 'follow' }]);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('sell')], net: 10 * S }), cfg), [
      { side: 'ask', price: 48 * C, size: 35 * S, level: 0, tag: 'follow' },
    ]);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy')], net: 10 * S }), cfg), [
      { side: 'bid', price: 52 * C, size: 15 * S, level: 0, tag: 'follow' },
    ]);
  });
  it('nothing between sweeps, nor once the position is there; null without a two-sided book', () => {
    assert.deepEqual(follow.quote(makeView({ ...book }), cfg), []);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy', 200)] }), cfg), []);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy', 400, 2_500)] }), cfg), []);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy')], net: 25 * S }), cfg), []);
    assert.deepEqual(follow.quote(makeView({ ...book, trades: [sweep('buy')], net: 40 * S }), cfg), [], 'never sells into a buy sweep');
    assert.equal(follow.quote(makeView({ bids: book.bids, asks: [], trades: [sweep('buy')] }), cfg), null);
  });
  it('ticks: pays past the touch, never beyond the price range', () => {
    const far = follow.parseConfig({ size: 25, ticks: 3 }, 'p');
    assert.equal(follow.quote(makeView({ ...book, trades: [sweep('buy')] }), far)![0]!.price, 55 * C);
    assert.equal(follow.quote(makeView({ bids: [{ price: 2 * C, size: S }], asks: [{ price: 4 * C, size: S }], trades: [sweep('sell')] }), far)![0]!.price, C);
    assert.equal(
      follow.quote(makeView({ bids: [{ price: 96 * C, size: S }], asks: [{ price: 98 * C, size: S }], trades: [sweep('buy')] }), far)![0]!.price,
      99 * C,
    );
  });
  it('prices against the others: its own resting bid is not the touch it sells into', () => {
    const own: WorkingQuote = { side: 'bid', price: 50 * C, size: 25 * S, state: 'working', outcomeIndex: 1, venueSide: 'buy', placedAt: NOW - 1_000 };
    const v = makeView({ bids: [{ price: 50 * C, size: 25 * S }, ...book.bids], asks: book.asks, quotes: [own], trades: [sweep('sell')] });
    assert.deepEqual(follow.quote(v, cfg), [{ side: 'ask', price: 48 * C, size: 25 * S, level: 0, tag: 'follow' }]);
  });
  it('parseConfig: defaults, and a size at or above the sweep refused (its own print would count)', () => {
    const d = follow.parseConfig({}, 'p');
    assert.deepEqual(d, { sweep: { windowMs: 2_000, minShares: 300 * S }, size: 10 * S, ticks: 0 });
    assert.throws(() => follow.parseConfig({ size: 300 }, 'p'), /p\.size: expected below sweepShares \(300\)/);
    assert.throws(() => follow.parseConfig({ ticks: 1.5 }, 'p'), /p\.ticks/);
    assert.throws(() => follow.parseConfig({ other: 1 }, 'p'), /p\.other: expected a known key/);
  });
});
