/**
 * Where the markets of a run stand: each market's mid (the others' book) sampled once a minute while
 * it has a two-sided book, over the Polymarket capture and synthetic runs (1 h × 4 markets, seeds
 * 1–2 of `calibrated` and `toxic`); the share of market-minutes with the mid in 5–95 %, 20–80 % and
 * 35–65 %, and the mid's quartiles. docs/edge.md, "Markets that resolve and are replaced".
 *
 *   node --import tsx scripts/market-spread.ts
 */
import { othersRows } from '../src/backtest/others-rows.ts';
import { KIND_CLEAR, KIND_LEVEL } from '../src/backtest/recording/columns.ts';
import { loadReplaySource, type ReplaySource } from '../src/backtest/replay-source.ts';
import { syntheticSource } from '../src/backtest/synthetic-source.ts';
import { polymarketRecording } from '../test/bench/fixtures.ts';

function spread(s: ReplaySource): string {
  const o = othersRows(s);
  const mids: number[] = [];
  const cur = new Map<number, number>();
  let next = -1;
  for (let k = 0; k < s.rows.length; k++) {
    const r = s.rows[k]!;
    const t = s.cols.lts[r]!;
    if (next < 0) next = t + 60_000;
    for (; t >= next; next += 60_000) mids.push(...cur.values());
    const kind = o.kindAt(r);
    if (kind !== KIND_LEVEL && kind !== KIND_CLEAR) continue;
    const m = s.cols.market[r]!;
    if (!o.apply(r, kind)) continue;
    const b = o.books[m]!;
    const bid = b.bestBid();
    const ask = b.bestAsk();
    if (bid > 0 && ask > 0 && ask > bid) cur.set(m, (bid + ask) / 2e6);
    else cur.delete(m);
  }
  const n = mids.length;
  const share = (lo: number, hi: number): string => ((100 * mids.filter((x) => x >= lo && x <= hi).length) / Math.max(1, n)).toFixed(0);
  mids.sort((a, b) => a - b);
  const q = [0.25, 0.5, 0.75].map((p) => (mids[Math.floor(p * n)] ?? NaN).toFixed(2)).join(' / ');
  return `${n} market-minutes; mid in 5–95 % ${share(0.05, 0.95)} %, 20–80 % ${share(0.2, 0.8)} %, 35–65 % ${share(0.35, 0.65)} %; quartiles ${q}`;
}

process.stdout.write(`capture: ${spread(loadReplaySource(await polymarketRecording()))}\n`);
for (const flow of ['calibrated', 'toxic'] as const)
  for (const seed of [1, 2]) process.stdout.write(`${flow} seed ${seed} (1 h × 4): ${spread(await syntheticSource({ seed, hours: 1, markets: 4, flow }))}\n`);
