/**
 * The best case for a passive maker on synthetic flow: the oracle maker (scripts/edge-oracle-maker.ts),
 * which knows the hidden fair value and quotes a fixed size at a fixed distance d from it, run over a
 * grid of (d, size, sides, flattening) on the same seeds, each run taken apart as
 * scripts/edge-decompose.ts does (scripts/edge-decompose-run.ts). Per setting: a run's PnL (mean over
 * the seeds, 95 % interval), the same with the resolutions at their model variance, per market-hour,
 * per share of a fill (¢), the run's parts, the run-to-run spread (sd) and the seeds a strategy with
 * that mean and spread would need for its interval to clear 0 ((1.96 · sd / mean)²).
 *
 *   node --import tsx scripts/edge-oracle.ts [--seeds 9301-9340] [--hours 1] [--markets 4]
 *     [--flow calibrated] [--fit FILE.json] [--d 0,0.01,0.02] [--size 5,25] [--sides both,away]
 *     [--flatten 0,0.08] [--requote SECONDS] [--max-pq 0.5]
 *
 * d in USDC per share; `--flatten` the flattenPQ values (0: held into the resolution). The risk lines of
 * config/backtest.yaml (maxPosition 500, maxOrderSize 100), fees as there (maker 0, taker 50 bps).
 * Prints one JSON line per setting, then the table. docs/edge-feasibility.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { meanCi } from '../src/backtest/mean-ci.ts';
import { ci, decomposeRun, fitAgentsFromFile, type FillParts, type RunParts, strategyConfig, summariseParts } from './edge-decompose-run.ts';
import { setOracleFair } from './edge-oracle-maker.ts';
import { seedRanges, syntheticFlags } from './synthetic-flags.ts';

const { flag, flow, hours, markets } = syntheticFlags({ flow: 'calibrated', seeds: '9301-9340', hours: '1' });
const seedText = flag('--seeds', '9301-9340');
const seeds = seedRanges('--seeds', seedText);
const fitFile = flag('--fit', '');
const agents = fitFile ? fitAgentsFromFile(fitFile) : undefined;
const list = (k: string, d: string) =>
  flag(k, d)
    .split(',')
    .map((x) => {
      const v = Number(x);
      if (!Number.isFinite(v)) throw new Error(`${k}: numbers joined by commas, got ${x}`);
      return v;
    });
const ds = list('--d', '0,0.01,0.02');
const sizes = list('--size', '5,25');
const flattens = list('--flatten', '0');
// --max-pq: the maxPQ of every setting (0.5: open everywhere)
const maxPQ = Number(flag('--max-pq', '0.5'));
const sidesList = flag('--sides', 'both').split(',');
for (const s of sidesList) if (s !== 'both' && s !== 'away') throw new Error(`--sides: both or away, got ${s}`);
// --requote S: orders.requoteIntervalSeconds (config/backtest.yaml's 1 s: a market ticked at most once a second)
const requote = flag('--requote', '');
const maker = fileURLToPath(new URL('./edge-oracle-maker.ts', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-oracle-'));
const rows: string[] = [];
try {
  for (const sides of sidesList)
    for (const flattenPQ of flattens)
      for (const size of sizes)
        for (const d of ds) {
          const params = `{ d: ${d}, size: ${size}, sides: ${sides}, flattenPQ: ${flattenPQ}, maxPQ: ${maxPQ} }`;
          const cfg = await strategyConfig(work, maker, params, requote ? { requoteSeconds: Number(requote) } : {});
          const runs: RunParts[] = [];
          const fills: FillParts[] = [];
          for (const seed of seeds) {
            const r = await decomposeRun({ seed, hours, markets, flow, cfg, withFair: setOracleFair, ...(agents ? { agents } : {}) });
            setOracleFair(undefined);
            runs.push(r.run);
            process.stderr.write(`seed ${seed}: PnL ${r.run.pnl.toFixed(2)}, ${r.run.fills} fills\n`);
            fills.push(...r.fills);
          }
          const s = summariseParts(runs, fills);
          const p = s.perRun;
          process.stdout.write(
            `${JSON.stringify({ d, size, sides, flattenPQ, maxPQ, requote: requote || null, flow, fit: fitFile || null, seeds: seedText, hours, markets, ...s, runs })}\n`,
          );
          const [lo, hi] = s.modelInterval;
          const mh = hours * markets;
          rows.push(
            `| ${(d * 100).toFixed(1)} | ${size} | ${sides} | ${flattenPQ || '–'} | ${ci(p.pnl)} | [${lo.toFixed(2)}, ${hi.toFixed(2)}] | ${(p.pnl.mean / mh).toFixed(3)} | ${ci(s.perShare.all)} | ${ci(s.perShare.spread)} | ${ci(s.perShare.at60s)} | ${p.fills.mean.toFixed(1)} | ${p.volume.mean.toFixed(0)} | ${ci(p.spread)} | ${ci(sumCi(runs, ['m1', 'm10', 'm60']))} | ${ci(sumCi(runs, ['carried']))} | ${ci(p.resolution)} (${s.heldResolutions}) | ${ci(p.fee)} | ${p.pnl.sd.toFixed(2)} | ${s.seedsNeeded ?? '–'} |`,
          );
        }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  `\noracle maker, ${flow}${fitFile ? ` (fit ${fitFile})` : ''}, seeds ${seedText}, ${hours} h × ${markets} markets: USDC a run, mean [95 %] over the seeds\n` +
    '| d ¢ | size | sides | flatten below | PnL a run | with resolutions at model variance | a market-hour | ¢ a share, all | ¢ a share, spread vs fair | ¢ a share, at 60 s | fills | volume | spread vs fair | move 0–60 s | carried | resolutions (held) | fees | sd of a run | seeds to clear 0 |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n' +
    `${rows.join('\n')}\n`,
);

/** the per-run sum of some parts, mean [95 %] over the seeds */
function sumCi(runs: readonly RunParts[], keys: readonly ('m1' | 'm10' | 'm60' | 'carried')[]) {
  return meanCi(runs.map((r) => keys.reduce((a, k) => a + r[k], 0)));
}
