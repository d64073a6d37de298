/**
 * replay-book: book-only replay of imported captures from the binary columns, against the baseline of
 * replaying the same recording from its gzip JSONL (parse + validate + apply). Figure: level events per
 * second, target ≥ 5,000,000 events/s. The headline `value` is the Polymarket capture (6 probability
 * books); `binanceEventsPerSecond` is the Binance BTCUSDT capture (spot + USD-M, genericPrices: books
 * with a price window derived from the data, see src/backtest/book-replay.ts), the load-and-speed data set,
 * with its books allocated once (2 × 32 MB of windows: setup, like the import) and, for reference, per pass.
 */
import { readColumns, type Columns } from '../../src/backtest/recording/columns.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { bookOptionsFromColumns, createReplayState, replayBook } from '../../src/backtest/book-replay.ts';
import { L2Book, type L2BookOptions } from '../../src/core/l2-book.ts';
import { binanceRecording, polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';

/**
 * Columns: repeat the whole capture until ~1.5 s have passed. `fresh`: new books each pass (their
 * allocation is timed too: trivial for 1001-slot probability books, 2 × 32 MB for the Binance windows);
 * otherwise the books are allocated once and each pass starts from the capture's own snapshot CLEAR.
 */
function columnsRate(cols: Columns, books: readonly L2BookOptions[] | undefined, fresh: boolean): { rate: number; passes: number; outside: number } {
  const warm = createReplayState(cols, books);
  replayBook(cols, warm);
  let rows = 0;
  let passes = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1500) {
    const st = fresh ? createReplayState(cols, books) : warm;
    if (!fresh) for (const b of st.books) b.clear();
    replayBook(cols, st);
    rows += cols.rows;
    passes++;
  }
  return { rate: rows / ((performance.now() - t0) / 1000), passes, outside: warm.outside / (fresh ? 1 : passes + 1) };
}

/** Baseline: JSONL (gunzip + JSON.parse + validate + apply), one pass; far levels outside a window are skipped as in the columns path. */
function jsonlRate(dir: string, opts: (id: string) => L2BookOptions): number {
  const manifest = readManifest(dir);
  const books = new Map(manifest.markets.map((m) => [m.id, new L2Book(opts(m.id))]));
  let rows = 0;
  const t1 = performance.now();
  for (const e of readEvents(dir)) {
    if (e.t === 'book') {
      const b = books.get(e.m)!;
      if (e.snap) b.clear();
      for (const [p, s] of e.b) if (b.inRange(p)) b.applyBid(p, s);
      for (const [p, s] of e.a) if (b.inRange(p)) b.applyAsk(p, s);
      rows += e.b.length + e.a.length + (e.snap ? 1 : 0);
    } else rows++;
  }
  return rows / ((performance.now() - t1) / 1000);
}

const pmDir = await polymarketRecording();
const pmManifest = readManifest(pmDir);
const pmCols = readColumns(pmDir);
const pm = columnsRate(pmCols, undefined, true);
const pmJson = jsonlRate(pmDir, () => ({ tick: 1_000 }));

const bnDir = await binanceRecording();
const bnManifest = readManifest(bnDir);
const bnCols = readColumns(bnDir);
const windows = bookOptionsFromColumns(bnCols, { ticks: bnCols.markets.map((id) => bnManifest.markets.find((m) => m.id === id)?.tick) });
const bn = columnsRate(bnCols, windows, false);
const bnCold = columnsRate(bnCols, windows, true);
const byId = new Map(bnCols.markets.map((id, i) => [id, windows[i]!]));
const bnJson = jsonlRate(bnDir, (id) => byId.get(id)!);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

report(
  [
    ['recording', `${pmManifest.source}: ${pmCols.rows.toLocaleString('en-US')} rows, ${pmManifest.markets.length} markets`],
    ['columns passes', pm.passes],
    ['columns events/s', pm.rate],
    ['jsonl events/s (baseline)', pmJson],
    ['ratio', pm.rate / pmJson],
    ['recording', `${bnManifest.source}: ${bnCols.rows.toLocaleString('en-US')} rows, ${bnManifest.markets.length} markets (genericPrices)`],
    ...windows.map((w, i): [string, string] => [
      `  window ${bnManifest.markets[i]?.name ?? i}`,
      `${w.minPrice / 1e6}–${w.maxPrice / 1e6} at tick ${w.tick / 1e6}: ${((w.maxPrice - w.minPrice) / w.tick + 1).toLocaleString('en-US')} slots, ${mb(((w.maxPrice - w.minPrice) / w.tick + 1) * 16)}` +
        (w.clipped ? ` (clipped; the full level range would take ${w.fullSlots.toLocaleString('en-US')} slots, ${mb(w.fullBytes)})` : ''),
    ]),
    ['  level rows outside the windows', bn.outside],
    ['columns passes (books allocated once)', bn.passes],
    ['columns events/s', bn.rate],
    ['columns events/s, fresh books each pass', bnCold.rate],
    ['jsonl events/s (baseline)', bnJson],
    ['ratio', bn.rate / bnJson],
  ],
  {
    name: 'replay-book',
    unit: 'events/s',
    value: Math.round(pm.rate),
    baseline: 'jsonl-replay',
    baselineValue: Math.round(pmJson),
    ratio: Number((pm.rate / pmJson).toFixed(1)),
    binanceEventsPerSecond: Math.round(bn.rate),
    binanceFreshBooksEventsPerSecond: Math.round(bnCold.rate),
    binanceBaselineValue: Math.round(bnJson),
    binanceRatio: Number((bn.rate / bnJson).toFixed(1)),
    binanceRows: bnCols.rows,
    binanceOutsideRows: bn.outside,
  },
);
