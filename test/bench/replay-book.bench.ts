/**
 * replay-book: book-only replay of the imported Polymarket capture from the binary columns, against
 * the baseline of replaying the same recording from its gzip JSONL (parse + validate + apply).
 * Figure: level events per second. Target ≥ 5,000,000 events/s.
 */
import { readColumns } from '../../src/backtest/recording/columns.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { createReplayState, replayBook } from '../../src/backtest/book-replay.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';

const dir = await polymarketRecording();
const manifest = readManifest(dir);
const cols = readColumns(dir);

// Columns: repeat the whole capture until ~1.5 s have passed (fresh books each pass).
let rows = 0;
let passes = 0;
const warm = createReplayState(cols);
replayBook(cols, warm);
const t0 = performance.now();
while (performance.now() - t0 < 1500) {
  const st = createReplayState(cols);
  replayBook(cols, st);
  rows += cols.rows;
  passes++;
}
const colSecs = (performance.now() - t0) / 1000;
const colRate = rows / colSecs;

// Baseline: JSONL (gunzip + JSON.parse + validate + apply), one pass.
const books = new Map(manifest.markets.map((m) => [m.id, new L2Book({ tick: 1_000 })]));
let jrows = 0;
const t1 = performance.now();
for (const e of readEvents(dir)) {
  if (e.t === 'book') {
    const b = books.get(e.m)!;
    if (e.snap) b.clear();
    for (const [p, s] of e.b) b.applyBid(p, s);
    for (const [p, s] of e.a) b.applyAsk(p, s);
    jrows += e.b.length + e.a.length + (e.snap ? 1 : 0);
  } else jrows++;
}
const jsonSecs = (performance.now() - t1) / 1000;
const jsonRate = jrows / jsonSecs;

report(
  [
    ['recording', `${manifest.source}: ${cols.rows.toLocaleString('en-US')} rows, ${manifest.markets.length} markets`],
    ['columns passes', passes],
    ['columns events/s', colRate],
    ['jsonl events/s (baseline)', jsonRate],
    ['ratio', colRate / jsonRate],
  ],
  { name: 'replay-book', unit: 'events/s', value: Math.round(colRate), baseline: 'jsonl-replay', baselineValue: Math.round(jsonRate), ratio: Number((colRate / jsonRate).toFixed(1)) },
);
