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
  it("chaseTicks: pays the best price up to that far beyond the sweep's furthest print, and rests there if the book is further", () => {
    const run = (side: 'buy' | 'sell', cents: number[]): ViewTrade[] =>
      cents.map((c, i) => ({ price: c * C, size: 200 * S, takerSide: side, ts: NOW - 900 + i }));
    const cap3 = follow.parseConfig({ size: 25, chaseTicks: 3 }, 'p');
    // the sweep bought up to 51¢: the ask at 52¢ is within 3 ticks, the one at 60¢ is not (the bid rests at 54¢)
    assert.equal(follow.quote(makeView({ ...book, trades: run('buy', [50, 51]) }), cap3)![0]!.price, 52 * C);
    assert.equal(follow.quote(makeView({ bids: book.bids, asks: [{ price: 60 * C, size: S }], trades: run('buy', [50, 51]) }), cap3)![0]!.price, 54 * C);
    // without chaseTicks it pays the book
    assert.equal(follow.quote(makeView({ bids: book.bids, asks: [{ price: 60 * C, size: S }], trades: run('buy', [50, 51]) }), cfg)![0]!.price, 60 * C);
    // a sale down to 49¢: the bid at 48¢ is within 3 ticks; a bid at 40¢ is not (the ask rests at 46¢)
    assert.equal(follow.quote(makeView({ ...book, trades: run('sell', [50, 49]) }), cap3)![0]!.price, 48 * C);
    assert.equal(follow.quote(makeView({ bids: [{ price: 40 * C, size: S }], asks: book.asks, trades: run('sell', [50, 49]) }), cap3)![0]!.price, 46 * C);
    // never beyond the price range
    assert.equal(
      follow.quote(makeView({ bids: [{ price: 2 * C, size: S }], asks: [{ price: 4 * C, size: S }], trades: run('sell', [2, 1]) }), cap3)![0]!.price,
      2 * C,
    );
    assert.equal(
      follow.quote(makeView({ bids: [{ price: 97 * C, size: S }], asks: [{ price: 99 * C, size: S }], trades: run('buy', [98, 99]) }), cap3)![0]!.price,
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
    assert.deepEqual(d, { sweep: { windowMs: 2_000, minShares: 300 * S }, size: 10 * S, chaseTicks: Number.POSITIVE_INFINITY });
    assert.throws(() => follow.parseConfig({ size: 300 }, 'p'), /p\.size: expected below sweepShares \(300\)/);
    assert.throws(() => follow.parseConfig({ chaseTicks: 1.5 }, 'p'), /p\.chaseTicks/);
    assert.throws(() => follow.parseConfig({ other: 1 }, 'p'), /p\.other: expected a known key/);
  });
});
