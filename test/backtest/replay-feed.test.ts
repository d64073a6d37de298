/**
 * The replay feed: its conflated publications of a book (leading and trailing edge), and for a
 * drop-copy market the others' levels with the bot's own orders merged in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeLevels, ReplayFeed } from '../../src/backtest/replay-feed.ts';
import { allocColumns, appendRow, type Columns, KIND_BBO, KIND_CLEAR, KIND_LEVEL } from '../../src/backtest/recording/columns.ts';
import { replayMarketId } from '../../src/backtest/recording/format.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { VirtualClock } from '../../src/backtest/virtual-clock.ts';

const l = (price: number, size: number) => ({ price, size });

/**
 * A feed of every market of `cols` (a book tick of 0.1 ¢ each, every one quoted, published at most once
 * per 1,000 ms, depth 10) on a virtual clock from 1,000 ms; `seen` collects the snapshots it
 * dispatches, and `rowAt(r)` runs the timers due before row r, then hands the feed row r at its time.
 */
function snapshotFeed(cols: Columns) {
  const clock = new VirtualClock(1_000);
  const seen: { at: number; bids: readonly unknown[]; asks: readonly unknown[] }[] = [];
  const feed = new ReplayFeed({
    cols,
    bookTicks: cols.markets.map(() => 1_000),
    clock,
    quoted: new Set(cols.markets.map((_, m) => m)),
    publishMs: 1_000,
    depth: 10,
    dispatch: (e) => {
      if (e.type === 'BookEventReceived' && e.event.type === 'snapshot') seen.push({ at: e.ts, bids: e.event.book.bids, asks: e.event.book.asks });
    },
  });
  const rowAt = (r: number): void => {
    while (clock.nextDue() <= cols.lts[r]!) clock.runNext();
    clock.advanceTo(cols.lts[r]!);
    feed.row(r);
  };
  return { clock, feed, seen, rowAt };
}

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

test('a book is published on its first change, then at most once per publishMs (trailing edge); stop() ends the trailing one', () => {
  const cols = allocColumns(16, ['0x' + 'ab'.repeat(32)]);
  // rows at 0, 100, 200 ms (a level each), then 3,000 ms; the trailing publication is due at 1,000
  appendRow(cols, 1_000, 1_000, 0, KIND_LEVEL, 0, 400_000, 5_000_000);
  appendRow(cols, 1_100, 1_100, 0, KIND_LEVEL, 1, 450_000, 2_000_000);
  appendRow(cols, 1_200, 1_200, 0, KIND_LEVEL, 0, 400_000, 6_000_000);
  appendRow(cols, 4_000, 4_000, 0, KIND_LEVEL, 1, 460_000, 1_000_000);
  const { clock, feed, seen, rowAt } = snapshotFeed(cols);
  rowAt(0);
  assert.deepEqual(seen, [{ at: 1_000, bids: [{ price: 400_000, size: 5_000_000 }], asks: [] }], 'leading edge: at once');
  rowAt(1);
  rowAt(2);
  assert.equal(seen.length, 1, 'within publishMs: held');
  assert.equal(clock.nextDue(), 2_000, 'one trailing publication, a publishMs after the last');
  rowAt(3);
  assert.deepEqual(seen[1], { at: 2_000, bids: [{ price: 400_000, size: 6_000_000 }], asks: [{ price: 450_000, size: 2_000_000 }] });
  assert.deepEqual(seen[2], {
    at: 4_000,
    bids: [{ price: 400_000, size: 6_000_000 }],
    asks: [
      { price: 450_000, size: 2_000_000 },
      { price: 460_000, size: 1_000_000 },
    ],
  });
  assert.equal(seen[2]!.bids, seen[1]!.bids, 'an unchanged side is the same array');
  // a change whose trailing publication is still to come when the feed stops publishes nothing more
  appendRow(cols, 4_100, 4_100, 0, KIND_LEVEL, 0, 410_000, 1_000_000);
  rowAt(4);
  assert.equal(clock.nextDue(), 5_000);
  feed.stop();
  while (clock.runNext());
  assert.equal(seen.length, 3);
});

test("a publication shows the venue time of the market's last row the feed reached, in a pass over silent rows or one at a time", () => {
  const cols = allocColumns(16, ['0x' + 'ab'.repeat(32), '0x' + 'cd'.repeat(32)]);
  appendRow(cols, 1_000, 900, 0, KIND_LEVEL, 0, 400_000, 5_000_000); // publishes at once (leading edge)
  appendRow(cols, 1_100, 1_050, 0, KIND_LEVEL, 1, 450_000, 2_000_000); // schedules the trailing one at 2,000
  appendRow(cols, 1_150, 1_120, 1, KIND_LEVEL, 0, 300_000, 1_000_000); // the other market: publishes at once
  appendRow(cols, 1_200, 1_150, 0, KIND_BBO, 0, 400_000, 450_000); // silent: the last row of market 0 before 2,000
  appendRow(cols, 2_500, 2_400, 0, KIND_BBO, 0, 400_000, 450_000); // one at a time: no publication of its own
  appendRow(cols, 2_600, 2_550, 0, KIND_LEVEL, 1, 450_000, 3_000_000); // schedules the trailing one at 3,000
  const ids: string[] = cols.markets.map(replayMarketId);
  const clock = new VirtualClock(1_000);
  const seen: [number, number, number][] = [];
  const feed = new ReplayFeed({
    cols,
    bookTicks: [1_000, 1_000],
    clock,
    quoted: new Set([0, 1]),
    publishMs: 1_000,
    depth: 10,
    dispatch: (e) => {
      if (e.type === 'BookEventReceived' && e.event.type === 'snapshot') seen.push([e.ts, ids.indexOf(e.event.book.marketId), e.event.book.venueTs]);
    },
  });
  assert.equal(feed.venueTs(0), 0, 'no row yet');
  const rows = Uint32Array.from({ length: cols.rows }, (_, i) => i);
  for (const r of [0, 1, 2]) {
    clock.advanceTo(cols.lts[r]!);
    feed.row(r);
  }
  assert.equal(
    feed.skipSilent(rows, 3, cols.rows, 0, feed.nextPublication()),
    4,
    'the top-of-book row is silent, the next one is after the trailing publication',
  );
  assert.equal(feed.venueTs(0), 1_150);
  assert.equal(feed.venueTs(1), 1_120);
  while (clock.nextDue() <= 2_500) clock.runNext();
  for (const r of [4, 5]) {
    clock.advanceTo(cols.lts[r]!);
    feed.row(r);
  }
  while (clock.runNext());
  assert.deepEqual(seen, [
    [1_000, 0, 900],
    [1_150, 1, 1_120],
    [2_000, 0, 1_150],
    [3_000, 0, 2_550],
  ]);
});

test("nextPublication: the earliest scheduled trailing publication, whatever the clock's other timers", () => {
  const ids = ['0x' + 'ab'.repeat(32), '0x' + 'cd'.repeat(32)];
  const cols = allocColumns(16, ids);
  appendRow(cols, 1_000, 1_000, 0, KIND_LEVEL, 0, 400_000, 5_000_000); // market 0 publishes at once
  appendRow(cols, 1_100, 1_100, 1, KIND_LEVEL, 0, 300_000, 5_000_000); // market 1 too
  appendRow(cols, 1_300, 1_300, 1, KIND_LEVEL, 0, 300_000, 6_000_000); // market 1: trailing due 2,100
  appendRow(cols, 1_500, 1_500, 0, KIND_LEVEL, 0, 400_000, 6_000_000); // market 0: trailing due 2,000
  const { clock, feed } = snapshotFeed(cols);
  clock.schedule(() => undefined, 50); // a timer of someone else, due at 1,050
  assert.equal(feed.nextPublication(), Infinity);
  for (let r = 0; r < 4; r++) {
    clock.advanceTo(cols.lts[r]!);
    feed.row(r);
    if (r === 2) assert.equal(feed.nextPublication(), 2_100);
  }
  assert.equal(feed.nextPublication(), 2_000);
  assert.equal(clock.nextDue(), 1_050);
  clock.runNext(); // the other timer
  clock.runNext(); // market 0's publication
  assert.equal(clock.now(), 2_000);
  assert.equal(feed.nextPublication(), 2_100, "market 1's is next");
  clock.runNext();
  assert.equal(feed.nextPublication(), Infinity);
});

test('a side no row wrote since the last publication is published as it was, without a walk of the book; a clear writes both', (t) => {
  const cols = allocColumns(16, ['0x' + 'ab'.repeat(32)]);
  appendRow(cols, 1_000, 1_000, 0, KIND_LEVEL, 0, 400_000, 5_000_000);
  appendRow(cols, 1_000, 1_000, 0, KIND_LEVEL, 1, 450_000, 2_000_000);
  appendRow(cols, 2_000, 2_000, 0, KIND_LEVEL, 1, 460_000, 1_000_000); // asks only
  appendRow(cols, 3_000, 3_000, 0, KIND_LEVEL, 1, 460_000, 3_000_000); // asks only
  appendRow(cols, 4_000, 4_000, 0, KIND_CLEAR, 0, 0, 0);
  appendRow(cols, 4_000, 4_000, 0, KIND_LEVEL, 0, 410_000, 1_000_000);
  const { clock, seen, rowAt } = snapshotFeed(cols);
  const walks: string[] = [];
  const own = L2Book.prototype.levelsSinceKnown;
  t.after(() => {
    L2Book.prototype.levelsSinceKnown = own;
  });
  L2Book.prototype.levelsSinceKnown = function (this: L2Book, side, depth, prev, known) {
    walks.push(side);
    return own.call(this, side, depth, prev, known);
  };
  // each row at its time; the trailing publications in between
  for (let r = 0; r < cols.rows; r++) rowAt(r);
  while (clock.runNext());
  // 1,000: the first bid (leading edge: both sides walked, nothing published before); 2,000, 3,000 and
  // 4,000: the asks only were written; 5,000: the clear and a bid
  assert.deepEqual(
    seen.map((s) => [s.bids, s.asks]),
    [
      [[l(400_000, 5_000_000)], []],
      [[l(400_000, 5_000_000)], [l(450_000, 2_000_000)]],
      [[l(400_000, 5_000_000)], [l(450_000, 2_000_000), l(460_000, 1_000_000)]],
      [[l(400_000, 5_000_000)], [l(450_000, 2_000_000), l(460_000, 3_000_000)]],
      [[l(410_000, 1_000_000)], []],
    ],
  );
  assert.equal(seen[3]!.bids, seen[1]!.bids, 'the unwritten bids: the same array');
  assert.deepEqual(walks, ['bid', 'ask', 'ask', 'ask', 'ask', 'bid', 'ask'], 'no walk of the bids in the three asks-only publications');
});
