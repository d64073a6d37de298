/**
 * Fit the `calibrated` flow preset (src/sim/flow-presets.ts) to the Polymarket capture: a coordinate
 * search over the agents' settings that brings the synthetic flow's statistics (src/backtest/flow-stats.ts:
 * trade rate, median and 90th-percentile print size, a passive quote's markout at 1/10/60 s, the
 * rate of 5¢ mid jumps; and the sweeps: their rate at 100/300/600 shares, the median size of a
 * 300-share sweep, the mid's move after one at 5/30/60 s and the share of the next 10 s' prints on
 * its side) inside the capture's 95 % intervals. docs/edge.md ("The fit") explains the model and shows the result.
 *
 *   node --import tsx scripts/flow-calibrate.ts [--seeds 9001-9003] [--hours 1] [--markets 4]
 *     [--steps 1.6,1.25,1.1 | none] [--workers 1] [--start FILE.json] [--check 9201-9240] [--out FILE.json]
 *
 * Each round tries every setting multiplied and divided by the round's step, starting from the
 * preset's CALIBRATED_FIT (or `--start`'s settings over it: a JSON object of CalibratedFit keys), so
 * a re-run refines the fit; smaller steps for a finer one. `--steps none` searches nothing: it scores
 * the start, on the fit seeds and on `--check`'s.
 *
 * Many seeds: `--seeds` takes ranges joined by commas (9101-9132,9150); every candidate runs every
 * seed, and its statistics are the seeds' means (each seed weighted alike), so candidates are compared
 * on the same markets. `--workers N` runs the seeds in N child processes (each counts as one CPU-heavy
 * process); the figures do not depend on N. docs/edge-history.md ("The many-seed refit: the fit and its check")
 * gives the cost of a candidate.
 *
 * `--check SEEDS` scores the shipped CALIBRATED_FIT and the fitted settings on other seeds, side by
 * side, after the search; `--out` writes the best settings found so far as JSON after every
 * improvement (for `--start`).
 *
 * The fit runs on its own seeds (9001… by default), never on the seeds the edge bench and the
 * docs' tables are measured on (1…N). It prints each improvement, then the fitted settings as the
 * preset's source text and the z-scores of the fit (|z| < 1: inside the capture's interval).
 * Deterministic: the same arguments give the same fit.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { polymarketRecording } from '../test/bench/fixtures.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { flowStats, SWEEP_HORIZONS, SWEEP_SHARES, type FlowStats, type MeanCi, type SweepStats } from '../src/backtest/flow-stats.ts';
import { syntheticSource } from '../src/backtest/synthetic-source.ts';
import { CALIBRATED_FIT, calibratedAgents, type CalibratedFit } from '../src/sim/flow-presets.ts';
import { seedRanges } from './synthetic-flags.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '9001-9003' },
    hours: { type: 'string', default: '1' },
    markets: { type: 'string', default: '4' },
    steps: { type: 'string', default: '1.6,1.25,1.1' },
    workers: { type: 'string', default: '1' },
    start: { type: 'string' },
    check: { type: 'string' },
    out: { type: 'string' },
    worker: { type: 'boolean', default: false },
  },
});

/** One seed's flow under a fit: `benign` with the fit's agents, as the `calibrated` preset builds it. */
async function seedStats(fit: CalibratedFit, seed: number, hours: number, markets: number): Promise<FlowStats> {
  return flowStats(await syntheticSource({ seed, hours, markets, flow: 'benign', agents: calibratedAgents(fit) }));
}

type Job = { id: number; fit: CalibratedFit; seed: number; hours: number; markets: number };
type Answer = { id: number; stats: FlowStats; cpuMicros: number };

if (values.worker) {
  // a child of the search: measures the seeds it is sent, one at a time, until its parent goes
  process.on('message', (job: Job) => {
    const c0 = process.cpuUsage();
    void seedStats(job.fit, job.seed, job.hours, job.markets).then((stats) => {
      const c = process.cpuUsage(c0);
      process.send!({ id: job.id, stats, cpuMicros: c.user + c.system } satisfies Answer);
    });
  });
  process.on('disconnect', () => process.exit(0));
}

// the search's settings (a worker takes its jobs' own)
const seeds = seedRanges('--seeds', values.seeds!);
const checkSeeds = values.check ? seedRanges('--check', values.check) : [];
const hours = Number(values.hours);
const markets = Number(values.markets);
const workers = Number(values.workers);
if (!(hours > 0) || !Number.isSafeInteger(markets) || markets < 1) throw new Error('--hours: above 0; --markets: a positive integer');
if (!Number.isSafeInteger(workers) || workers < 1 || workers > 8) throw new Error('--workers: 1 to 8');
const steps = values.steps === 'none' ? [] : values.steps!.split(',').map(Number);
if (steps.some((x) => !(x > 1))) throw new Error('--steps: factors above 1, e.g. 1.6,1.25,1.1, or none');
const start: CalibratedFit = { ...CALIBRATED_FIT, ...(values.start ? (JSON.parse(readFileSync(values.start, 'utf8')) as Partial<CalibratedFit>) : {}) };
for (const k of Object.keys(start) as (keyof CalibratedFit)[])
  if (!(k in CALIBRATED_FIT) || !Number.isFinite(start[k])) throw new Error(`--start: ${k} is not a finite CalibratedFit setting`);

const target = values.worker ? (undefined as unknown as FlowStats) : flowStats(loadReplaySource(await polymarketRecording()));
const HORIZONS = ['1s', '10s', '60s'] as const;

type Fitted = Pick<FlowStats, 'tradesPerMarketMinute' | 'size' | 'passiveMarkouts' | 'quoteMarkouts' | 'jumpsPerMarketHour' | 'sweeps'>;
const half = (c: { lo: number; hi: number }) => (c.hi - c.lo) / 2;

/** The fit's distances, each in units of the capture's 95 % half-interval (|z| < 1: inside it). */
function zScores(s: Fitted): Record<string, number> {
  const z: Record<string, number> = {};
  z.rate = (s.tradesPerMarketMinute - target.tradesPerMarketMinute) / ((target.tradeRateCi.hi - target.tradeRateCi.lo) / 2);
  for (const q of ['p50', 'p90'] as const) {
    const ci = target.sizeCi[q];
    // log scale: sizes are log-normal; the interval's half-width in logs
    const t = Math.log(target.size[q]);
    const half = (Math.log(ci.hi) - Math.log(ci.lo)) / 2;
    z[`size ${q}`] = (Math.log(Math.max(1e-9, s.size[q])) - t) / half;
  }
  for (const h of HORIZONS) {
    const m = target.passiveMarkouts[h];
    z[`markout ${h}`] = (s.passiveMarkouts[h].centsPerShare - m.centsPerShare) / ((m.hi - m.lo) / 2);
    const q = target.quoteMarkouts[h];
    z[`quote ${h}`] = (s.quoteMarkouts[h].centsPerShare - q.centsPerShare) / ((q.hi - q.lo) / 2);
  }
  // the 5¢ mid jumps: the capture's count is a Poisson draw, its 95 % half-interval 1.96·√count (per market-hour)
  const exposure = (target.markets * target.minutes) / 60;
  z.jumps = (s.jumpsPerMarketHour - target.jumpsPerMarketHour) / ((1.96 * Math.sqrt(target.jumpsPerMarketHour * exposure)) / exposure);
  // the sweeps: how often, how large, what the book does after one, who trades next
  for (const N of SWEEP_SHARES) {
    const t = target.sweeps[`${N}`];
    z[`sweeps ${N}`] = (s.sweeps[`${N}`].perMarketHour - t.perMarketHour) / half(t.perMarketHourCi);
  }
  const t300 = target.sweeps['300'];
  const s300 = s.sweeps['300'];
  z['sweep size'] = (Math.log(Math.max(1e-9, s300.sizeP50)) - Math.log(t300.sizeP50)) / ((Math.log(t300.sizeP50Ci.hi) - Math.log(t300.sizeP50Ci.lo)) / 2);
  for (const [h] of SWEEP_HORIZONS) z[`after sweep ${h}`] = (s300.continuation[h].mean - t300.continuation[h].mean) / half(t300.continuation[h]);
  z['same side'] = (s300.afterSameSide.mean - t300.afterSameSide.mean) / half(t300.afterSameSide);
  return z;
}

/** The child processes that measure seeds (`--workers`), started on first use, ended by `stopPool`. */
const pool: ChildProcess[] = [];
let nextJob = 0;
let cpuMicros = 0;
function startPool(n: number): void {
  const self = fileURLToPath(import.meta.url);
  for (let i = 0; i < n; i++) pool.push(fork(self, ['--worker'], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: 'inherit' }));
}
function stopPool(): void {
  for (const c of pool) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}

/** Every seed's statistics under a fit, in seed order, the seeds shared out among the pool's children. */
async function runSeeds(fit: CalibratedFit, list: readonly number[]): Promise<FlowStats[]> {
  const out: FlowStats[] = new Array(list.length);
  let next = 0;
  const drive = (c: ChildProcess) =>
    new Promise<void>((resolve, reject) => {
      const pending = new Map<number, number>();
      const send = () => {
        if (next >= list.length) return resolve();
        const at = next++;
        const id = nextJob++;
        pending.set(id, at);
        c.send({ id, fit, seed: list[at]!, hours, markets } satisfies Job);
      };
      const onMessage = (a: Answer) => {
        const at = pending.get(a.id);
        if (at === undefined) return;
        pending.delete(a.id);
        out[at] = a.stats;
        cpuMicros += a.cpuMicros;
        if (next >= list.length) {
          c.off('message', onMessage);
          c.off('exit', onExit);
          resolve();
        } else send();
      };
      const onExit = (code: number | null) => reject(new Error(`flow-calibrate: a worker exited (${code}) with seeds left`));
      c.on('message', onMessage);
      c.on('exit', onExit);
      send();
    });
  await Promise.all(pool.map(drive));
  return out;
}

/** The statistics of a candidate, averaged over the given seeds (each weighted alike). */
async function measure(fit: CalibratedFit, list: readonly number[] = seeds): Promise<Fitted> {
  const all = await runSeeds(fit, list);
  const avg = (f: (x: FlowStats) => number) => all.reduce((acc, x) => acc + f(x), 0) / all.length;
  const mk = (h: (typeof HORIZONS)[number], of: 'passiveMarkouts' | 'quoteMarkouts' = 'passiveMarkouts') => ({
    centsPerShare: avg((x) => x[of][h].centsPerShare),
    lo: NaN,
    hi: NaN,
    n: avg((x) => x[of][h].n),
  });
  return {
    tradesPerMarketMinute: avg((x) => x.tradesPerMarketMinute),
    size: {
      mean: avg((x) => x.size.mean),
      p10: avg((x) => x.size.p10),
      p25: avg((x) => x.size.p25),
      p50: avg((x) => x.size.p50),
      p75: avg((x) => x.size.p75),
      p90: avg((x) => x.size.p90),
    },
    passiveMarkouts: { '1s': mk('1s'), '10s': mk('10s'), '60s': mk('60s') },
    quoteMarkouts: { '1s': mk('1s', 'quoteMarkouts'), '10s': mk('10s', 'quoteMarkouts'), '60s': mk('60s', 'quoteMarkouts') },
    jumpsPerMarketHour: avg((x) => x.jumpsPerMarketHour),
    sweeps: Object.fromEntries(SWEEP_SHARES.map((N) => [`${N}`, avgSweeps(all.map((x) => x.sweeps[`${N}`]))])) as Fitted['sweeps'],
  };
}

/** The seeds' sweep statistics averaged (the means; the intervals are the capture's, not these). */
function avgSweeps(xs: SweepStats[]): SweepStats {
  const avg = (f: (x: SweepStats) => number) => xs.reduce((acc, x) => acc + f(x), 0) / xs.length;
  const mc = (f: (x: SweepStats) => MeanCi): MeanCi => ({ mean: avg((x) => f(x).mean), lo: NaN, hi: NaN, n: avg((x) => f(x).n) });
  const byH = (f: (x: SweepStats) => SweepStats['continuation']) =>
    Object.fromEntries(SWEEP_HORIZONS.map(([h]) => [h, mc((x) => f(x)[h])])) as SweepStats['continuation'];
  return {
    count: avg((x) => x.count),
    perMarketHour: avg((x) => x.perMarketHour),
    perMarketHourCi: { lo: NaN, hi: NaN },
    sizeP50: avg((x) => x.sizeP50),
    sizeP50Ci: { lo: NaN, hi: NaN },
    spanP50Ms: avg((x) => x.spanP50Ms),
    continuation: byH((x) => x.continuation),
    follower: byH((x) => x.follower),
    afterRate: mc((x) => x.afterRate),
    afterSameSide: mc((x) => x.afterSameSide),
  };
}

/** Sum of squared z, with a steep penalty outside the interval so the worst statistic is fitted first. */
const loss = (z: Record<string, number>) => Object.values(z).reduce((acc, v) => acc + v * v + (Math.abs(v) > 1 ? 4 * (Math.abs(v) - 1) : 0), 0);
const show = (z: Record<string, number>) =>
  Object.entries(z)
    .map(([k, v]) => `${k} ${v >= 0 ? '+' : ''}${v.toFixed(2)}`)
    .join(', ');

/**
 * The settings searched, each with its bounds; shares and rates move multiplicatively, an `additive`
 * one (which may start at 0) by ± its step × (the round's factor − 1).
 */
const KNOBS: { key: keyof CalibratedFit; lo: number; hi: number; round?: (v: number) => number; additive?: number }[] = [
  { key: 'informedRatePerSec', lo: 0.05, hi: 5 },
  { key: 'noiseRatePerSec', lo: 0.005, hi: 2 },
  { key: 'makerLagSeconds', lo: 1, hi: 300 },
  { key: 'makerLagShare', lo: 0.05, hi: 1 },
  { key: 'makerSizeShares', lo: 20, hi: 5000, round: Math.round },
  { key: 'makerHalfSpreadTicks', lo: 0.5, hi: 4 },
  { key: 'jumpRatePerSec', lo: 1 / 3600, hi: 1 / 10 },
  { key: 'jumpStd', lo: 0.05, hi: 2 },
  { key: 'sizeLogSd', lo: 0.5, hi: 3.5 },
  { key: 'sizeMedian', lo: 1, hi: 500 },
  { key: 'noiseSizeLogSd', lo: 0.5, hi: 3.5 },
  { key: 'noiseSizeMedian', lo: 1, hi: 200 },
  { key: 'newsTrades', lo: 0, hi: 8, round: Math.round, additive: 1 / 0.6 },
  { key: 'newsSizeShares', lo: 10, hi: 2000, round: Math.round },
  { key: 'informedEdgeTicks', lo: 0, hi: 4, additive: 2 },
  { key: 'otherMakerHalfSpreadTicks', lo: 0.5, hi: 40 },
  { key: 'otherMakerSizeShares', lo: 1, hi: 2000, round: Math.round },
];

/** The candidate's z-scores and loss on the given seeds, and the seeds' cost. */
async function score(fit: CalibratedFit, list: readonly number[] = seeds): Promise<{ z: Record<string, number>; loss: number }> {
  const z = zScores(await measure(fit, list));
  return { z, loss: loss(z) };
}

/** Two fits' z-scores side by side, a Markdown table. */
function sideBySide(title: string, a: Record<string, number>, b: Record<string, number>, la: number, lb: number): string {
  const f = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(2)}`;
  const rows = Object.keys(a).map((k) => `| ${k} | ${f(a[k]!)} | ${f(b[k]!)} |`);
  return `\n${title}\n\n| statistic | shipped z | candidate z |\n|---|---|---|\n${rows.join('\n')}\n| loss | ${la.toFixed(2)} | ${lb.toFixed(2)} |\n`;
}

async function main(): Promise<void> {
  startPool(workers);
  const t0 = Date.now();
  let candidates = 0;
  const cost = () => {
    const n = Math.max(1, candidates);
    return `${candidates} candidates, ${(cpuMicros / 1e6 / n).toFixed(1)} CPU-s and ${((Date.now() - t0) / 1000 / n).toFixed(1)} s wall each (${seeds.length} seeds × ${hours} h × ${markets} markets, ${workers} worker(s))`;
  };
  try {
    let best: CalibratedFit = { ...start };
    let { z: bestZ, loss: bestLoss } = await score(best);
    candidates++;
    process.stderr.write(`start (${values.start ?? 'CALIBRATED_FIT'}): loss ${bestLoss.toFixed(2)}: ${show(bestZ)}\n`);
    for (const [round, factor] of steps.entries()) {
      for (const k of KNOBS) {
        for (const dir of [factor, 1 / factor]) {
          const moved = k.additive !== undefined ? best[k.key] + Math.sign(dir - 1) * k.additive * (factor - 1) : best[k.key] * dir;
          const raw = Math.min(k.hi, Math.max(k.lo, moved));
          const v = k.round ? k.round(raw) : Number(raw.toPrecision(3));
          if (v === best[k.key]) continue;
          const cand = { ...best, [k.key]: v };
          const { z, loss: l } = await score(cand);
          candidates++;
          if (l < bestLoss) {
            best = cand;
            bestZ = z;
            bestLoss = l;
            process.stderr.write(`round ${round + 1}: ${k.key} ${v}: loss ${l.toFixed(2)}: ${show(z)} [${cost()}]\n`);
            if (values.out) writeFileSync(values.out, `${JSON.stringify(best, null, 2)}\n`);
            break; // keep the direction that helped; the next knob
          }
        }
      }
      process.stderr.write(`round ${round + 1} done: loss ${bestLoss.toFixed(2)} [${cost()}]\n`);
    }
    process.stdout.write(
      `// fitted by scripts/flow-calibrate.ts --seeds ${values.seeds} --hours ${hours} --markets ${markets} --steps ${values.steps}: ${show(bestZ)}\n`,
    );
    process.stdout.write(`export const CALIBRATED_FIT: Readonly<CalibratedFit> = Object.freeze(${JSON.stringify(best, null, 2)});\n`);
    process.stdout.write(`// cost: ${cost()}\n`);
    const shipped = await score({ ...CALIBRATED_FIT });
    process.stdout.write(sideBySide(`Seeds ${values.seeds} (the search's)`, shipped.z, bestZ, shipped.loss, bestLoss));
    if (checkSeeds.length > 0) {
      const [a, b] = [await score({ ...CALIBRATED_FIT }, checkSeeds), await score(best, checkSeeds)];
      process.stdout.write(sideBySide(`Check seeds ${values.check}`, a.z, b.z, a.loss, b.loss));
    }
  } finally {
    stopPool();
  }
}

if (!values.worker) await main();
