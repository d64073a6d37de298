/**
 * health-cost: what this tree adds on the hot path over the code before the health model (1d73146) — the
 * watchdog heartbeat, the honest tick-to-wire meter, API latency on every request, the default
 * process/Node.js metrics, the health model's strategy timing, plus (charged to the same figure)
 * the edge state in the reducer and the ledger hook. "Before" is a checkout of the
 * code before the health model, "after" is this checkout; they run ALTERNATING in the same session (round 1
 * before→after, round 2 after→before, …), each in its own process:
 * - tick-to-wire.bench (in-process pipeline; "after" runs instrumented as the bot does): wall p50 /
 *   p99 per tick and the tick's CPU time p50;
 * - load.bench (the bot as a child process quoting 200 markets, 2,000 book deltas/s; "after" with
 *   the watchdog thread owning the metrics socket): bot CPU % and event-loop lag p99.
 *
 * Set up the base once (a worktree sharing this install):
 *   git worktree add ../base 1d73146 && ln -s "$PWD/node_modules" ../base/node_modules
 *   npm run bench -- health-cost --base ../base [--rounds 3] [--ticks 3000] [--load-rounds 2] [--load-minutes 1]
 *
 * Output: every run as it ends (stderr), then a table with, per measure, the medians over rounds
 * and their ratio (the figure; target ≤ 1.05) and each round's own after/before ratio (a pair ran
 * back to back, so on a shared machine the pairs show how much of a ratio is noise). The load
 * average at start and end says how quiet the machine was. Last line: one JSON object.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { report } from './lib.ts';

function opt(name: string, d: string | null): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? null) : d;
}
function count(name: string, d: string, min: number): number {
  const v = Number(opt(name, d));
  if (!Number.isFinite(v) || v < min) {
    process.stderr.write(`health-cost: --${name} must be a number ≥ ${min}\n`);
    process.exit(2);
  }
  return v;
}
const base = opt('base', null);
if (!base || !existsSync(resolve(base, 'test/bench/tick-to-wire.bench.ts')) || !existsSync(resolve(base, 'node_modules'))) {
  process.stderr.write(
    'health-cost: --base DIR must be a checkout of the code before the health model with node_modules, e.g.\n' +
      '  git worktree add ../base 1d73146 && ln -s "$PWD/node_modules" ../base/node_modules\n' +
      '  npm run bench -- health-cost --base ../base\n',
  );
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);
const ROUNDS = count('rounds', '3', 1);
const TICKS = count('ticks', '3000', 100);
const LOAD_MIN = count('load-minutes', '1', 0.1);
const LOAD_ROUNDS = count('load-rounds', '2', 0);

type Json = Record<string, number>;
function bench(dir: string, name: string, args: string[]): Json {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', name, ...args], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: process.env,
  });
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Json;
  } catch {
    throw new Error(`${name} in ${dir} failed (exit ${r.status}): ${r.stderr.slice(-2000)}`);
  }
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const load1 = (): string => os.loadavg()[0]!.toFixed(2);

/** Runs `name` in both trees, alternating which goes first; one pair per round. */
function alternate(name: string, rounds: number, args: string[], say: (which: string, r: Json) => string): { before: Json[]; after: Json[] } {
  const out: { before: Json[]; after: Json[] } = { before: [], after: [] };
  for (let i = 0; i < rounds; i++) {
    // alternate which goes first, so neither always meets the warmer or the quieter machine
    const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const which of order) {
      const r = bench(which === 'before' ? base! : here, name, args);
      out[which].push(r);
      process.stderr.write(`${name} round ${i + 1} ${which.padEnd(6)}: ${say(which, r)} (load avg ${load1()})\n`);
    }
  }
  return out;
}

const loadAtStart = load1();
const t2w = alternate('tick-to-wire', ROUNDS, ['--ticks', String(TICKS)], (_w, r) => `p50 ${r.p50} µs, p99 ${r.p99} µs, CPU p50 ${r.cpuP50} µs`);
const load = alternate('load', LOAD_ROUNDS, ['--minutes', String(LOAD_MIN)], (_w, r) => {
  // CPU per 1,000 book deltas/s delivered: on a busy machine the driver delivers fewer than 2,000/s
  r.cpuPerK = Math.round((r.cpuPercent! / (r.deltasPerSecond! / 1000)) * 100) / 100;
  return `CPU ${r.cpuPercent} % (${r.cpuPerK} % per 1,000 deltas/s at ${r.deltasPerSecond}/s), lag p99 ${r.p99} ms, dropped ${r.dropped}`;
});
const loadAtEnd = load1();

interface Measure {
  before: number;
  after: number;
  ratio: number;
  pairs: number[];
}
function measure(runs: { before: Json[]; after: Json[] }, key: string): Measure | null {
  if (runs.before.length === 0) return null;
  const before = r3(median(runs.before.map((x) => x[key]!)));
  const after = r3(median(runs.after.map((x) => x[key]!)));
  return { before, after, ratio: r3(after / before), pairs: runs.after.map((a, i) => r3(a[key]! / runs.before[i]![key]!)) };
}
const p50 = measure(t2w, 'p50')!;
const p99 = measure(t2w, 'p99')!;
const cpu50 = measure(t2w, 'cpuP50')!;
const cpu = measure(load, 'cpuPercent');
const cpuPerK = measure(load, 'cpuPerK');
const lag = measure(load, 'p99');
const row = (label: string, m: Measure | null, unit: string): [string, string] =>
  m ? [label, `${m.before} → ${m.after} ${unit}  ×${m.ratio}   pairs ×${m.pairs.join(', ×')}`] : [label, 'not run (--load-rounds 0)'];
report(
  [
    ['rounds (tick-to-wire / load)', `${ROUNDS} × ${TICKS} ticks / ${LOAD_ROUNDS} × ${LOAD_MIN} min`],
    ['load average at start / end', `${loadAtStart} / ${loadAtEnd} (2 cores; above ~0.5 the ratios are noisy)`],
    ['', "before → after (medians), ratio, each pair's ratio"],
    row('tick-to-wire p50 (wall)', p50, 'µs'),
    row('tick-to-wire p99 (wall)', p99, 'µs'),
    row('tick-to-wire CPU per tick p50', cpu50, 'µs'),
    row('load: bot CPU (% of a core)', cpu, '%'),
    row('load: bot CPU per 1,000 deltas/s', cpuPerK, '%'),
    row('load: event-loop lag p99', lag, 'ms'),
    ['load: dropped deltas before / after', `${load.before.map((x) => x.dropped).join(',') || '-'} / ${load.after.map((x) => x.dropped).join(',') || '-'}`],
    [
      'target (≤ 1.05: p50 and load CPU)',
      `p50 ${p50.ratio <= 1.05 ? 'met' : 'NOT met'}; load CPU ${cpu === null ? 'not run' : cpu.ratio <= 1.05 ? 'met' : 'NOT met'}`,
    ],
  ],
  {
    name: 'health-cost',
    unit: 'after/before, tick-to-wire p50',
    value: p50.ratio,
    p50: p50.after,
    p99: p99.after,
    baseline: 'code before the health model (--base), same session, alternating',
    baselineValue: p50.before,
    ratio: p50.ratio,
    p50Pairs: p50.pairs,
    p99Ratio: p99.ratio,
    cpuP50Ratio: cpu50.ratio,
    loadCpuRatio: cpu?.ratio ?? null,
    loadCpuBefore: cpu?.before ?? null,
    loadCpuAfter: cpu?.after ?? null,
    loadCpuPairs: cpu?.pairs ?? [],
    loadCpuPerKRatio: cpuPerK?.ratio ?? null,
    loadLagP99Ratio: lag?.ratio ?? null,
    loadAvgStart: Number(loadAtStart),
    loadAvgEnd: Number(loadAtEnd),
  },
);
