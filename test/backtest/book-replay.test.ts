/**
 * Book-only replay of the real Binance BTCUSDT import (genericPrices: USDT prices ~6e10 units) through
 * windowed L2 books: the rebuilt top of book is checked against a full Map book at every bbo row and
 * against the venue's bookTicker wherever it carries the update id of the last applied diff.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBinance } from '../../src/backtest/importers/binance.ts';
import { readGzipLines } from '../../src/backtest/importers/read-gz-lines.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { KIND_LEVEL, toColumns, type Columns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent, RecordingManifest } from '../../src/backtest/recording/format.ts';
import { bookOptionsFromColumns, createReplayState, replayBook, type BookWindow } from '../../src/backtest/book-replay.ts';

const DATA = fileURLToPath(new URL('../../data/binance-hftbacktest/', import.meta.url));
let dir = '';
let manifest: RecordingManifest;
let events: RecordedEvent[];
let cols: Columns;
let windows: BookWindow[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bm-book-replay-'));
  await importBinance(DATA, dir);
  manifest = readManifest(dir);
  events = [...readEvents(dir)];
  cols = toColumns(
    events,
    manifest.markets.map((m) => m.id),
  );
  windows = bookOptionsFromColumns(cols, { ticks: manifest.markets.map((m) => m.tick) });
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('windows derived from the capture: the manifest tick, clipped to the slot budget, covering every recorded top of book', () => {
  assert.equal(manifest.genericPrices, true);
  // the gcd of the level prices agrees with the manifest's tick (0.01 USDT spot, 0.1 USDT USD-M)
  const byGcd = bookOptionsFromColumns(cols);
  assert.deepEqual(
    byGcd.map((w) => w.tick),
    [10_000, 100_000],
  );
  for (const [i, w] of windows.entries()) {
    assert.equal(w.tick, manifest.markets[i]!.tick);
    // both deep snapshots span far more than a dense array should hold (spot: 15,460–200,000 USDT)
    assert.ok(w.clipped && w.fullSlots > 1 << 21, `${w.fullSlots} slots`);
    assert.equal((w.maxPrice - w.minPrice) / w.tick + 1, 1 << 21);
    for (let r = 0; r < cols.rows; r++) {
      if (cols.market[r] !== i || cols.kind[r] !== 3) continue;
      if (cols.price[r]! > 0) assert.ok(cols.price[r]! >= w.minPrice, `bbo bid ${cols.price[r]} below the window`);
      if (cols.size[r]! > 0) assert.ok(cols.size[r]! <= w.maxPrice, `bbo ask ${cols.size[r]} above the window`);
    }
  }
  // a budget that fits the whole range is not clipped (USD-M: 6.2 M slots); spot's 18.5 M stays clipped at the book's 2^24 cap
  const wide = bookOptionsFromColumns(cols, { ticks: [10_000, 100_000], maxSlots: 1 << 30 });
  assert.ok(!wide[1]!.clipped && wide[1]!.fullSlots === (wide[1]!.maxPrice - wide[1]!.minPrice) / wide[1]!.tick + 1);
  assert.ok(wide[0]!.clipped && (wide[0]!.maxPrice - wide[0]!.minPrice) / wide[0]!.tick + 1 === 1 << 24);
});

/** Best bid / ask of a Map side (the reference book keeps every level, no window). */
const best = (m: Map<number, number>, bid: boolean): number => {
  let b = bid ? -1 : Infinity;
  for (const p of m.keys()) if (bid ? p > b : p < b) b = p;
  return b === Infinity ? -1 : b;
};

/** bookTicker update ids of a capture file, in file order. */
function tickerIds(file: string): number[] {
  const out: number[] = [];
  for (const line of readGzipLines(join(DATA, file))) {
    if (!line.includes('@bookTicker')) continue;
    out.push(Number(JSON.parse(line.slice(line.indexOf(' ') + 1)).data.u));
  }
  return out;
}

test('replay of the real capture: top of book equals a full reference at every bbo row and the bookTicker at every id-matched one', () => {
  const st = createReplayState(cols, windows);
  const n = cols.markets.length;
  const ref = Array.from({ length: n }, () => ({ bid: new Map<number, number>(), ask: new Map<number, number>() }));
  const index = new Map(cols.markets.map((m, i) => [m, i]));
  const ids = manifest.markets.map((m) => tickerIds(String(m.origin!['file'])));
  const tickerK = new Array<number>(n).fill(0);
  const lastSeq = new Array<number>(n).fill(-1);
  let row = 0;
  let refChecks = 0;
  let idChecks = 0;
  let expectOutside = 0;
  for (const e of events) {
    const m = index.get(e.m)!;
    const rows = e.t === 'book' ? e.b.length + e.a.length + (e.snap ? 1 : 0) : e.t === 'trade' || e.t === 'bbo' ? 1 : 0;
    replayBook(cols, st, row, row + rows);
    row += rows;
    const w = windows[m]!;
    if (e.t === 'book') {
      const r = ref[m]!;
      if (e.snap) r.bid.clear(), r.ask.clear();
      for (const [p, s] of e.b) s === 0 ? r.bid.delete(p) : r.bid.set(p, s), (expectOutside += +(p < w.minPrice || p > w.maxPrice));
      for (const [p, s] of e.a) s === 0 ? r.ask.delete(p) : r.ask.set(p, s), (expectOutside += +(p < w.minPrice || p > w.maxPrice));
      lastSeq[m] = e.seq!;
    } else if (e.t === 'bbo' && lastSeq[m]! >= 0) {
      const book = st.books[m]!;
      const want = [best(ref[m]!.bid, true), best(ref[m]!.ask, false)];
      assert.deepEqual([book.bestBid(), book.bestAsk()], want, `row ${row - 1}: replayed top vs full reference`);
      assert.deepEqual([st.bboBid[m], st.bboAsk[m]], [e.bid, e.ask]);
      refChecks++;
      // the venue's own top: a bookTicker with the update id of the last applied diff describes this book
      if (ids[m]![tickerK[m]!] === lastSeq[m]) {
        assert.deepEqual([book.bestBid(), book.bestAsk()], [e.bid, e.ask], `row ${row - 1}: replayed top vs bookTicker`);
        idChecks++;
      }
    }
    if (e.t === 'bbo') tickerK[m]!++;
  }
  assert.equal(row, cols.rows);
  assert.deepEqual(
    tickerK,
    ids.map((a) => a.length),
    'every bookTicker line has its bbo event, in order',
  );
  assert.equal(st.rejected, 0);
  assert.equal(st.outside, expectOutside);
  assert.ok(st.outside > 0 && st.outside < 0.01 * st.applied, `${st.outside} outside of ${st.applied}`);
  let levelRows = 0;
  for (let r = 0; r < cols.rows; r++) levelRows += +(cols.kind[r] === KIND_LEVEL);
  assert.equal(st.applied + st.outside, levelRows);
  assert.ok(refChecks > 90_000, `${refChecks} reference checks`);
  // the importer verified the same 126 id-matched tops (stats usdmTickerChecks); the replayed book agrees
  assert.equal(idChecks, manifest.stats!['spotTickerChecks']! + manifest.stats!['usdmTickerChecks']!);
  assert.equal(idChecks, 126);
});

test('a (0, 1) book still rejects generic prices: without windows every level row is rejected, none applied', () => {
  const st = createReplayState(cols);
  replayBook(cols, st, 0, 20_000);
  assert.equal(st.applied, 0);
  assert.ok(st.rejected > 0);
  assert.equal(st.outside, 0);
});
