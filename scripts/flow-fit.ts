/**
 * The flow fit (docs/edge.md): the Polymarket capture's flow statistics (src/backtest/flow-stats.ts)
 * beside those of synthetic markets under each flow preset, so the `calibrated` preset can be
 * checked against the real flow. `node --import tsx scripts/flow-fit.ts [HOURS] [SEEDS] [FLOW]`. The
 * preset is fitted by scripts/flow-calibrate.ts (on other seeds); this script checks it. Two tables:
 * the prints, the passive markouts (size-weighted, and a 25-share quote's) and the mid jumps; then the sweeps (at least 100/300/600 shares
 * within 2 s) and what follows a 300-share one.
 */
import { polymarketRecording } from '../test/bench/fixtures.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { flowStats, SWEEP_HORIZONS, SWEEP_SHARES, type FlowStats, type MeanCi } from '../src/backtest/flow-stats.ts';
import { syntheticSource } from '../src/backtest/synthetic-source.ts';
import { FLOW_PRESETS } from '../src/sim/flow-presets.ts';

const hours = Number(process.argv[2] ?? 0.5);
const seeds = Number(process.argv[3] ?? 2);
const f = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '–');
const row = (name: string, s: FlowStats): string => {
  const mk = (['1s', '10s', '60s'] as const)
    .map((h) => `${f(s.passiveMarkouts[h].centsPerShare)} [${f(s.passiveMarkouts[h].lo)}, ${f(s.passiveMarkouts[h].hi)}]`)
    .join(' | ');
  const qk = (['1s', '10s', '60s'] as const)
    .map((h) => `${f(s.quoteMarkouts[h].centsPerShare)} [${f(s.quoteMarkouts[h].lo)}, ${f(s.quoteMarkouts[h].hi)}]`)
    .join(' | ');
  const ci = (c: { lo: number; hi: number }, d = 1) => ` [${f(c.lo, d)}, ${f(c.hi, d)}]`;
  return `| ${name} | ${s.trades} | ${f(s.tradesPerMarketMinute, 2)}${ci(s.tradeRateCi, 2)} | ${f(s.size.mean, 1)} | ${f(s.size.p10, 1)} | ${f(s.size.p50, 1)}${ci(s.sizeCi.p50)} | ${f(s.size.p90, 1)}${ci(s.sizeCi.p90)} | ${mk} | ${qk} | ${f(s.jumpsPerMarketHour, 1)} |`;
};
const mc = (c: MeanCi) => `${f(c.mean)} [${f(c.lo)}, ${f(c.hi)}]`;
const sweepRow = (name: string, s: FlowStats): string => {
  const rates = SWEEP_SHARES.map((N) => {
    const w = s.sweeps[`${N}`];
    return `${f(w.perMarketHour, 1)} [${f(w.perMarketHourCi.lo, 1)}, ${f(w.perMarketHourCi.hi, 1)}]`;
  }).join(' | ');
  const w = s.sweeps['300'];
  const hs = SWEEP_HORIZONS.map(([h]) => mc(w.continuation[h])).join(' | ');
  const fs = SWEEP_HORIZONS.map(([h]) => mc(w.follower[h])).join(' | ');
  return `| ${name} | ${rates} | ${f(w.sizeP50, 0)} [${f(w.sizeP50Ci.lo, 0)}, ${f(w.sizeP50Ci.hi, 0)}] | ${hs} | ${fs} | ${mc(w.afterSameSide)} | ${mc(w.afterRate)} |`;
};
const runs: [string, FlowStats][] = [['Polymarket capture', flowStats(loadReplaySource(await polymarketRecording()))]];
for (const flow of (process.argv[4] ? [process.argv[4]] : FLOW_PRESETS) as typeof FLOW_PRESETS) {
  for (let seed = 1; seed <= seeds; seed++)
    runs.push([`${flow} seed ${seed} (${hours} h × 4)`, flowStats(await syntheticSource({ seed, hours, markets: 4, flow }))]);
}
process.stdout.write(
  '| flow | trades | trades / market-minute [95 %] | mean size | size p10 | p50 [95 %] | p90 [95 %] | passive markout 1 s ¢ [95 %] | 10 s | 60 s | 25-share quote, markout 1 s ¢ [95 %] | 10 s | 60 s | 5¢ jumps / market-hour |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
);
for (const [name, s] of runs) process.stdout.write(row(name, s) + '\n');
process.stdout.write(
  '\n| flow | sweeps ≥ 100 / market-hour [95 %] | ≥ 300 | ≥ 600 | 300-sweep size p50 [95 %] | mid after it ¢, 5 s | 30 s | 60 s | follower ¢, 5 s | 30 s | 60 s | same side, next 10 s | prints, next 10 s (× rate) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
);
for (const [name, s] of runs) process.stdout.write(sweepRow(name, s) + '\n');
