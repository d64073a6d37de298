/**
 * The flow fit (docs/edge.md): the Polymarket capture's flow statistics (src/backtest/flow-stats.ts)
 * beside those of synthetic markets under each flow preset, so the `calibrated` preset can be
 * checked against the real flow. `node --import tsx scripts/flow-fit.ts [HOURS] [SEEDS] [FLOW]`. The
 * preset is fitted by scripts/flow-calibrate.ts (on other seeds); this script checks it.
 */
import { polymarketRecording } from '../test/bench/fixtures.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { flowStats, type FlowStats } from '../src/backtest/flow-stats.ts';
import { syntheticSource } from '../src/backtest/synthetic-source.ts';
import { FLOW_PRESETS } from '../src/sim/flow-presets.ts';

const hours = Number(process.argv[2] ?? 0.5);
const seeds = Number(process.argv[3] ?? 2);
const f = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '–');
const row = (name: string, s: FlowStats): string => {
  const mk = (['1s', '10s', '60s'] as const)
    .map((h) => `${f(s.passiveMarkouts[h].centsPerShare)} [${f(s.passiveMarkouts[h].lo)}, ${f(s.passiveMarkouts[h].hi)}]`)
    .join(' | ');
  const ci = (c: { lo: number; hi: number }, d = 1) => ` [${f(c.lo, d)}, ${f(c.hi, d)}]`;
  return `| ${name} | ${s.trades} | ${f(s.tradesPerMarketMinute, 2)}${ci(s.tradeRateCi, 2)} | ${f(s.size.mean, 1)} | ${f(s.size.p10, 1)} | ${f(s.size.p50, 1)}${ci(s.sizeCi.p50)} | ${f(s.size.p90, 1)}${ci(s.sizeCi.p90)} | ${mk} | ${f(s.jumpsPerMarketHour, 1)} |`;
};
process.stdout.write(
  '| flow | trades | trades / market-minute [95 %] | mean size | size p10 | p50 [95 %] | p90 [95 %] | passive markout 1 s ¢ [95 %] | 10 s | 60 s | 5¢ jumps / market-hour |\n|---|---|---|---|---|---|---|---|---|---|---|\n',
);
process.stdout.write(row('Polymarket capture', flowStats(loadReplaySource(await polymarketRecording()))) + '\n');
for (const flow of (process.argv[4] ? [process.argv[4]] : FLOW_PRESETS) as typeof FLOW_PRESETS) {
  for (let seed = 1; seed <= seeds; seed++)
    process.stdout.write(row(`${flow} seed ${seed} (${hours} h × 4)`, flowStats(await syntheticSource({ seed, hours, markets: 4, flow }))) + '\n');
}
