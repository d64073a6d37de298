/** strategies/lopsided: its quotes around the smoothed others' mid, where it opens, its position limit, its parser. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import lopsided from '../../strategies/lopsided/index.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';

const cfg = (o: object = {}) => lopsided.parseConfig(o, 'p');
// the others' book 6¢ × 300 / 9¢ × 100: mid 7.5¢
const book = { bids: [{ price: 60_000, size: 300 * S }], asks: [{ price: 90_000, size: 100 * S }] };

test('lopsided quotes half a cent from the others’ mid, 5 shares, by default', () => {
  assert.deepEqual(lopsided.quote(makeView(book), cfg()), [
    { side: 'bid', price: 70_000, size: 5 * S },
    { side: 'ask', price: 80_000, size: 5 * S },
  ]);
  // its own bid at 7¢ in the book does not move its mid (the whole book's, 7/9¢, would be 8¢: a bid at 7¢, an ask at 9¢)
  const own = makeView({
    bids: [{ price: 70_000, size: 5 * S }, ...book.bids],
    asks: book.asks,
    quotes: [{ side: 'bid', price: 70_000, size: 5 * S, state: 'working', outcomeIndex: 1, venueSide: 'buy', placedAt: NOW - 1_000 }],
  });
  assert.deepEqual(
    lopsided.quote(own, cfg())?.map((q) => q.price),
    [70_000, 80_000],
  );
  // no two-sided others' book, or a market not active: pull
  assert.equal(lopsided.quote(makeView({ bids: book.bids, asks: [] }), cfg()), null);
  assert.equal(lopsided.quote(makeView({ ...book, status: 'closed' }), cfg()), null);
});

test('lopsided opens only within maxPQ of a bound and up to maxPosition; beyond, a side only takes the position down', () => {
  const mid50 = { bids: [{ price: 490_000, size: S }], asks: [{ price: 510_000, size: S }] };
  assert.deepEqual(lopsided.quote(makeView(mid50), cfg()), []);
  assert.deepEqual(
    lopsided.quote(makeView({ ...mid50, net: 3 * S }), cfg())?.map((q) => [q.side, q.price, q.size]),
    [['ask', 510_000, 3 * S]],
  );
  // 92.5¢ is within 0.1 of 1: both sides
  assert.equal(lopsided.quote(makeView({ bids: [{ price: 910_000, size: S }], asks: [{ price: 940_000, size: S }] }), cfg())?.length, 2);
  // long 50 shares (the default limit): the bid opens nothing more, the ask still sells
  assert.deepEqual(
    lopsided.quote(makeView({ ...book, net: 50 * S }), cfg())?.map((q) => q.side),
    ['ask'],
  );
  assert.deepEqual(
    lopsided.quote(makeView({ ...book, net: -50 * S }), cfg({ maxPosition: 50 }))?.map((q) => [q.side, q.size]),
    [['bid', 5 * S]],
  );
});

test('lopsided smooths the mid over its ticks, per configuration, and restarts at a jump', () => {
  const c = cfg({ halfSpread: 0.0001 });
  const at = (now: number, bid: number, ask: number) =>
    lopsided.quote(makeView({ bids: [{ price: bid, size: S }], asks: [{ price: ask, size: S }], now }), c)?.map((q) => q.price);
  assert.deepEqual(at(NOW, 70_000, 90_000), [70_000, 90_000], 'first tick: the mid, 8¢');
  // a second later the mid is 9¢: the estimate 8 + (1 − e^−1)·1 = 8.63¢, so 8¢ / 9¢ (the mid alone: 8¢ / 10¢)
  assert.deepEqual(at(NOW + 1_000, 80_000, 100_000), [80_000, 90_000]);
  // another configuration keeps its own memory: it starts at the mid, 9.5¢ (the first's would read 8.63¢ at the same instant: 8¢ / 9¢)
  assert.deepEqual(
    lopsided
      .quote(makeView({ bids: [{ price: 80_000, size: S }], asks: [{ price: 110_000, size: S }], now: NOW + 1_000 }), cfg({ halfSpread: 0.0001 }))
      ?.map((q) => q.price),
    [90_000, 100_000],
  );
  // a jump to 5¢: restarts there (without the restart: 6.34¢, a bid held at 5¢ and an ask at 7¢)
  assert.deepEqual(at(NOW + 2_000, 40_000, 60_000), [40_000, 60_000]);
});

test('lopsided refuses bad parameters with their path', () => {
  assert.deepEqual(cfg(), { halfSpread: 5_000, size: 5 * S, maxPQ: 0.1, maxPosition: 50 * S, smoothSeconds: 1, jump: 15_000 });
  assert.throws(() => cfg({ halfSpread: 0.2 }), /p\.halfSpread/);
  assert.throws(() => cfg({ halfSpread: 0 }), /p\.halfSpread/, 'at 0 a bid and an ask could meet on the tick');
  assert.throws(() => cfg({ maxPQ: 0 }), /p\.maxPQ/);
  assert.throws(() => cfg({ size: -1 }), /p\.size/);
  assert.throws(() => cfg({ toxicity: true }), /p/);
});
