/**
 * sweep: the same 16-run parameter sweep (avellaneda gamma × minSpread, 4 × 4, fast mode, the whole
 * imported Polymarket capture) over 1 and then 2 worker threads. (With 4 runs, as first written, the
 * workers' start-up was most of the time measured.) Figure: runs per second with 2 workers;
 * baseline: the same sweep with 1 worker; the ratio is the scaling (ideal 2.0 on an idle 2-CPU box).
 * Each figure includes starting the workers (tsx registration, loading the recording once per worker).
 * Control, in the same run: the same 1 → 2 thread scaling of a pure CPU loop (no I/O, no shared
 * state), which is what this machine can give at the moment; the sweep's scaling is read against it.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseSweepSpec } from '../../src/backtest/sweep-grid.ts';
import { runSweep } from '../../src/backtest/run-sweep.ts';
import { polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';

const data = await polymarketRecording();
const spec = parseSweepSpec(
  { grid: { 'defaults.strategy.params.gamma': [0.05, 0.1, 0.5, 1], 'defaults.strategy.params.minSpread': [0.01, 0.02, 0.03, 0.04] }, fast: true },
  'bench',
);
const runs = 16;

async function timed(workers: number): Promise<number> {
  const t0 = performance.now();
  const res = await runSweep({ configFile: 'config/backtest.yaml', data, spec, workers });
  if (res.some((r) => !r.summary)) throw new Error(`sweep run failed: ${res.find((r) => !r.summary)?.error}`);
  return (performance.now() - t0) / 1000;
}

/** Wall time of `n` threads each spinning the same fixed CPU loop. */
async function spin(n: number): Promise<number> {
  const code = 'let x = 0; for (let i = 0; i < 2e8; i++) x = (x + i * 7) % 1000003; require("node:worker_threads").parentPort.postMessage(x);';
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => new Promise((r) => new Worker(code, { eval: true }).once('message', r))));
  return (performance.now() - t0) / 1000;
}

await timed(2); // warm the OS file cache and tsx's transform cache
// interleave to share the machine's noise: 1, 2, 1, 2 — best of each
const one: number[] = [];
const two: number[] = [];
for (let k = 0; k < 2; k++) {
  one.push(await timed(1));
  two.push(await timed(2));
}
const spin1 = Math.min(await spin(1), await spin(1));
const spin2 = Math.min(await spin(2), await spin(2));
const s1 = Math.min(...one);
const s2 = Math.min(...two);
report(
  [
    ['sweep', `${runs} fast-mode backtests of the Polymarket capture (gamma × minSpread)`],
    ['CPUs / load average', `${availableParallelism()} / ${loadavg()[0]!.toFixed(1)}`],
    ['1 worker, s (best of 2)', s1],
    ['2 workers, s (best of 2)', s2],
    ['runs/s, 1 worker (baseline)', runs / s1],
    ['runs/s, 2 workers', runs / s2],
    ['scaling 1 → 2 workers', s1 / s2],
    ['control: CPU loop scaling 1 → 2 threads', (2 * spin1) / spin2],
  ],
  {
    name: 'sweep',
    unit: 'runs/s',
    value: Number((runs / s2).toFixed(3)),
    baseline: '1 worker thread',
    baselineValue: Number((runs / s1).toFixed(3)),
    ratio: Number((s1 / s2).toFixed(2)),
    controlScaling: Number(((2 * spin1) / spin2).toFixed(2)),
  },
);
