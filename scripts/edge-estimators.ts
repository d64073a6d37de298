/**
 * How well the book tells the hidden fair value F in lopsided markets, and how much of the oracle
 * maker's edge there (docs/edge-feasibility.md) a maker keeps when it quotes around a book-only
 * estimate instead of F. For each `--sources` estimator (scripts/edge-estimator-maker.ts), the maker
 * quotes around it on every seed, each run taken apart against F as scripts/edge-oracle.ts does
 * (scripts/edge-decompose-run.ts); every run also records every estimator's error E − F at each of
 * the bot's ticks where min(F, 1 − F) ≤ 0.2 and ≤ 0.1.
 *
 *   node --import tsx scripts/edge-estimators.ts [--seeds 9501-9540] [--hours 1] [--markets 4]
 *     [--flow calibrated] [--fit FILE.json] [--sources fair,mid,ewma3] [--d 0.005] [--size 5] [--max-pq 0.2] [--inside-only]
 *
 * Prints one JSON line per source (the run's parts, and the errors its runs recorded), then the fills'
 * table (fills' edge a run, ¢ a share, PnL, mean [95 %] over the seeds) and the errors' table of the
 * first source's runs (bias, sd and RMS of E − F in ¢, pooled over the ticks; the bias's interval over
 * the seeds' means). The risk lines and fees of config/backtest.yaml.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { meanCi } from '../src/backtest/mean-ci.ts';
import { ci, decomposeRun, fitAgentsFromFile, type FillParts, type RunParts, strategyConfig, summariseParts } from './edge-decompose-run.ts';
import { ESTIMATORS, type ErrorTable, type Estimator, emptyErrors, PQ_BUCKETS, setEstimatorRun } from './edge-estimator-maker.ts';
import { seedRanges, syntheticFlags } from './synthetic-flags.ts';

const { flag, flow, hours, markets } = syntheticFlags({ flow: 'calibrated', seeds: '9501-9540', hours: '1' });
const seedText = flag('--seeds', '9501-9540');
const seeds = seedRanges('--seeds', seedText);
const fitFile = flag('--fit', '');
const agents = fitFile ? fitAgentsFromFile(fitFile) : undefined;
const sources = flag('--sources', 'fair,mid').split(',');
for (const s of sources) if (!(ESTIMATORS as readonly string[]).includes(s)) throw new Error(`--sources: each one of ${ESTIMATORS.join(', ')}, got ${s}`);
const num = (k: string, d: string): number => {
  const v = Number(flag(k, d));
  if (!Number.isFinite(v)) throw new Error(`${k}: a number, got ${flag(k, d)}`);
  return v;
};
const d = num('--d', '0.005');
const size = num('--size', '5');
const maxPQ = num('--max-pq', '0.2');
// --inside-only: the maker's insideOnly (no quote at or behind the others' touch)
const insideOnly = process.argv.includes('--inside-only');
const maker = fileURLToPath(new URL('./edge-estimator-maker.ts', import.meta.url));

/** one seed's errors: per estimator and bucket, the mean (¢) of its ticks */
type SeedErrors = Record<Estimator, ({ mean: number; n: number } | null)[]>;

const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-estimators-'));
const fillRows: string[] = [];
let errorRows: string[] = [];
try {
  for (const source of sources) {
    const cfg = await strategyConfig(work, maker, `{ source: ${source}, d: ${d}, size: ${size}, maxPQ: ${maxPQ}, insideOnly: ${insideOnly} }`);
    const runs: RunParts[] = [];
    const fills: FillParts[] = [];
    const pooled = emptyErrors();
    const perSeed: SeedErrors[] = [];
    for (const seed of seeds) {
      const errors = emptyErrors();
      const r = await decomposeRun({ seed, hours, markets, flow, cfg, withFair: (fair) => setEstimatorRun(fair, errors), ...(agents ? { agents } : {}) });
      setEstimatorRun(undefined, undefined);
      runs.push(r.run);
      fills.push(...r.fills);
      addErrors(pooled, errors);
      perSeed.push(seedMeans(errors));
      process.stderr.write(`${source} seed ${seed}: PnL ${r.run.pnl.toFixed(2)}, fills' edge ${r.run.spread.toFixed(2)}, ${r.run.fills} fills\n`);
    }
    const s = summariseParts(runs, fills);
    const p = s.perRun;
    const errorSummary = summariseErrors(pooled, perSeed);
    process.stdout.write(
      `${JSON.stringify({ source, d, size, maxPQ, insideOnly, flow, fit: fitFile || null, seeds: seedText, hours, markets, ...s, errors: errorSummary, runs })}\n`,
    );
    const held = runs.reduce((a, r) => a + r.heldResolutions, 0) / runs.length;
    fillRows.push(
      `| ${source} | ${ci(p.spread)} | ${ci(s.perShare.spread)} | ${ci(p.pnl)} | ${p.pnl.sd.toFixed(2)} | ${p.fills.mean.toFixed(1)} | ${held.toFixed(1)} | ${s.seedsNeeded ?? '–'} |`,
    );
    if (errorRows.length === 0)
      errorRows = ESTIMATORS.flatMap((e) =>
        PQ_BUCKETS.map((b, i) => {
          const x = errorSummary[e][i]!;
          return `| ${e} | ≤ ${b} | ${x.n} | ${sgn(x.bias)} [${sgn(x.biasLo)}, ${sgn(x.biasHi)}] | ${x.sd.toFixed(2)} | ${x.rms.toFixed(2)} |`;
        }),
      );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  `\nestimator maker, ${flow}${fitFile ? ` (fit ${fitFile})` : ''}, seeds ${seedText}, ${hours} h × ${markets} markets, d ${(d * 100).toFixed(1)}¢ × ${size} shares, opens where min(E, 1 − E) ≤ ${maxPQ}${insideOnly ? ', only inside the others’ touch' : ''}: USDC a run, mean [95 %] over the seeds\n` +
    "| source | fills' edge a run | ¢ a share at the fill | PnL a run | sd of a run | fills | markets held into a resolution | seeds to clear 0 |\n" +
    '|---|---|---|---|---|---|---|---|\n' +
    `${fillRows.join('\n')}\n` +
    `\nerrors E − F at the bot's ticks, ¢, in the runs quoting around ${sources[0]} (bias: pooled mean [95 % over the seeds' means]; sd and RMS pooled)\n` +
    '| estimator | min(F, 1 − F) | ticks | bias ¢ | sd ¢ | RMS ¢ |\n' +
    '|---|---|---|---|---|---|\n' +
    `${errorRows.join('\n')}\n`,
);

function addErrors(into: ErrorTable, from: ErrorTable): void {
  for (const e of ESTIMATORS)
    from[e].forEach((s, i) => {
      const t = into[e][i]!;
      t.sum += s.sum;
      t.sq += s.sq;
      t.n += s.n;
    });
}

function seedMeans(errors: ErrorTable): SeedErrors {
  return Object.fromEntries(ESTIMATORS.map((e) => [e, errors[e].map((s) => (s.n > 0 ? { mean: (100 * s.sum) / s.n, n: s.n } : null))])) as SeedErrors;
}

/** Per estimator and bucket: ticks, the pooled bias (¢) and its interval over the seeds' means, the pooled sd and RMS (¢). */
export function summariseErrors(pooled: ErrorTable, perSeed: readonly SeedErrors[]) {
  return Object.fromEntries(
    ESTIMATORS.map((e) => [
      e,
      pooled[e].map((s, i) => {
        const mean = s.n > 0 ? s.sum / s.n : 0;
        const sd = s.n > 1 ? Math.sqrt(Math.max(0, (s.sq - s.n * mean * mean) / (s.n - 1))) : 0;
        const seedCi = meanCi(perSeed.flatMap((x) => (x[e][i] ? [x[e][i]!.mean] : [])));
        return { n: s.n, bias: 100 * mean, biasLo: seedCi.lo, biasHi: seedCi.hi, sd: 100 * sd, rms: 100 * Math.sqrt(s.n > 0 ? s.sq / s.n : 0) };
      }),
    ]),
  ) as Record<Estimator, { n: number; bias: number; biasLo: number | null; biasHi: number | null; sd: number; rms: number }[]>;
}

function sgn(x: number | null): string {
  return x === null ? '–' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
}
