/** src/strategy/quote-around.ts: rounding away from the touch, the no-cross clamp, and the sides left out. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quotesAround } from '../../src/strategy/quote-around.ts';
import { makeView, S } from './make-view.ts';

const book = { bids: [{ price: 300_000, size: S }], asks: [{ price: 400_000, size: S }] };

test('quotesAround rounds the bid down and the ask up to the tick, never more aggressive than asked', () => {
  const v = makeView(book);
  assert.deepEqual(quotesAround(v, 345_600, 354_400, 5 * S, 6 * S), [
    { side: 'bid', price: 340_000, size: 5 * S },
    { side: 'ask', price: 360_000, size: 6 * S },
  ]);
  // on the grid already (a float a hair off it included): kept where it is
  assert.deepEqual(
    quotesAround(v, 0.34 * 1e6, 0.36 * 1e6, S, S).map((q) => q.price),
    [340_000, 360_000],
  );
});

test('quotesAround never crosses the book: a bid a tick under the best ask, an ask a tick over the best bid', () => {
  const v = makeView(book);
  assert.deepEqual(
    quotesAround(v, 420_000, 280_000, S, S).map((q) => [q.side, q.price]),
    [
      ['bid', 390_000],
      ['ask', 310_000],
    ],
  );
});

test('quotesAround leaves out a side with no size or a price off [tick, 1e6 − tick]', () => {
  const v = makeView({ bids: [], asks: [] });
  assert.deepEqual(quotesAround(v, 500_000, 510_000, 0, S), [{ side: 'ask', price: 510_000, size: S }]);
  assert.deepEqual(quotesAround(v, 5_000, 995_000, S, S), []);
  assert.deepEqual(
    quotesAround(v, 10_000, 990_000, S, S).map((q) => q.price),
    [10_000, 990_000],
  );
});
