/** The replay feed's book for a drop-copy market: the others' levels with the bot's own orders merged in. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeLevels } from '../../src/backtest/replay-feed.ts';

const l = (price: number, size: number) => ({ price, size });

test("own orders merge into the others' levels: sizes add at a shared price, best first, at most depth", () => {
  const others = [l(500_000, 10), l(490_000, 5), l(480_000, 7)];
  const own = [l(510_000, 3), l(490_000, 2)];
  assert.deepEqual(mergeLevels(others, own, 'bid', 10), [l(510_000, 3), l(500_000, 10), l(490_000, 7), l(480_000, 7)]);
  assert.deepEqual(mergeLevels(others, own, 'bid', 2), [l(510_000, 3), l(500_000, 10)]);
  const asks = [l(520_000, 4), l(530_000, 6)];
  assert.deepEqual(mergeLevels(asks, [l(525_000, 1), l(540_000, 2)], 'ask', 10), [l(520_000, 4), l(525_000, 1), l(530_000, 6), l(540_000, 2)]);
  assert.equal(mergeLevels(asks, [], 'ask', 10), asks, "no own orders: the others' levels as they are");
  assert.deepEqual(mergeLevels([], [l(530_000, 2)], 'ask', 10), [l(530_000, 2)]);
});
