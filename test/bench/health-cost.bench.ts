/**
 * health-cost (issue 11): what the watchdog heartbeat, the honest tick-to-wire meter, API latency on
 * every request and the default process/Node.js metrics cost. "Before" is a checkout of the code
 * before issue 11 (a git worktree, e.g. `git worktree add ../base 1d73146` with node_modules
 * linked), "after" is this checkout; the two run ALTERNATING in the same session, each in its own
 * process:
 * - tick-to-wire.bench (in-process pipeline; "after" runs instrumented as the bot does), p50/p99;
 * - load.bench (the bot as a child process quoting 200 markets, 2,000 deltas/s; "after" with the
 *   watchdog thread owning the metrics socket), bot CPU % and event-loop lag p99.
 *
 *   npm run bench -- health-cost --base ../base [--rounds 3] [--ticks 4000] [--load-minutes 2] [--load-rounds 2]
 *
 * Figure: after / before of the medians over rounds (target ≤ 1.05).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { report } from './lib.ts';

function opt(name: string, d: string | null): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? null) : d;
}
const base = opt('base', null);
if (!base || !existsSync(resolve(base, 'test/bench/tick-to-wire.bench.ts'))) {
  process.stderr.write('health-cost: --base DIR must be a checkout of the code before issue 11 (with node_modules)\n');
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);
const ROUNDS = Number(opt('rounds', '3'));
const TICKS = Number(opt('ticks', '4000'));
const LOAD_MIN = Number(opt('load-minutes', '2'));
const LOAD_ROUNDS = Number(opt('load-rounds', '2'));

type Json = Record<string, number>;
function bench(dir: string, name: string, args: string[]): Json {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', name, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20, env: process.env });
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

const t2w: { before: Json[]; after: Json[] } = { before: [], after: [] };
for (let i = 0; i < ROUNDS; i++) {
  // alternate which goes first, so neither always meets the warmer or the quieter machine
  const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
  for (const which of order) {
    const r = bench(which === 'before' ? base : here, 'tick-to-wire', ['--ticks', String(TICKS)]);
    t2w[which].push(r);
    process.stderr.write(`tick-to-wire round ${i + 1} ${which}: p50 ${r.p50} µs, p99 ${r.p99} µs\n`);
  }
}
const load: { before: Json[]; after: Json[] } = { before: [], after: [] };
for (let i = 0; i < LOAD_ROUNDS; i++) {
  const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
  for (const which of order) {
    const r = bench(which === 'before' ? base : here, 'load', ['--minutes', String(LOAD_MIN)]);
    load[which].push(r);
    process.stderr.write(`load round ${i + 1} ${which}: CPU ${r.cpuPercent} %, lag p99 ${r.p99} ms, dropped ${r.dropped}\n`);
  }
}

const m = (xs: Json[], k: string): number => median(xs.map((x) => x[k]!));
const b50 = m(t2w.before, 'p50');
const a50 = m(t2w.after, 'p50');
const b99 = m(t2w.before, 'p99');
const a99 = m(t2w.after, 'p99');
const bCpu = LOAD_ROUNDS ? m(load.before, 'cpuPercent') : NaN;
const aCpu = LOAD_ROUNDS ? m(load.after, 'cpuPercent') : NaN;
const bLag = LOAD_ROUNDS ? m(load.before, 'p99') : NaN;
const aLag = LOAD_ROUNDS ? m(load.after, 'p99') : NaN;
const r2 = (x: number): number => Math.round(x * 1000) / 1000;
report(
  [
    ['rounds (tick-to-wire / load)', `${ROUNDS} / ${LOAD_ROUNDS}`],
    ['tick-to-wire p50 before / after (µs)', `${b50} / ${a50}  (×${r2(a50 / b50)})`],
    ['tick-to-wire p99 before / after (µs)', `${b99} / ${a99}  (×${r2(a99 / b99)})`],
    ['load bot CPU % before / after', `${bCpu} / ${aCpu}  (×${r2(aCpu / bCpu)})`],
    ['load lag p99 ms before / after', `${bLag} / ${aLag}  (×${r2(aLag / bLag)})`],
    ['load dropped before / after', `${load.before.map((x) => x.dropped).join(',')} / ${load.after.map((x) => x.dropped).join(',')}`],
  ],
  {
    name: 'health-cost',
    unit: 'after/before, tick-to-wire p50',
    value: r2(a50 / b50),
    p50: a50,
    p99: a99,
    baseline: 'code before issue 11 (1d73146), same session, alternating',
    baselineValue: b50,
    ratio: r2(a50 / b50),
    p99Ratio: r2(a99 / b99),
    loadCpuRatio: r2(aCpu / bCpu),
    loadLagP99Ratio: r2(aLag / bLag),
  },
);
