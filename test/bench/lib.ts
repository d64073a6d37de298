/** Shared helpers for benchmarks: timing loops, percentiles, the table and the last-line JSON. */
import os from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface BenchResult {
  name: string;
  unit: string;
  value: number;
  baseline?: string;
  baselineValue?: number;
  ratio?: number;
  p50?: number;
  p99?: number;
  [extra: string]: unknown;
}

/** Run `fn` repeatedly for about `ms` milliseconds (after a warm-up) and return operations per second. */
export function opsPerSecond(fn: () => void, ms = 1000, warmupMs = 200): number {
  const end0 = performance.now() + warmupMs;
  while (performance.now() < end0) fn();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 16; i++) fn();
    n += 16;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/** Print a two-column table then the JSON line (which must be the last line of output). */
export function report(rows: [string, string | number][], result: BenchResult): void {
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  process.stdout.write(`machine: ${machine()}\n`);
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}${typeof v === 'number' ? fmt(v) : v}\n`);
  process.stdout.write(JSON.stringify(result) + '\n');
}

export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toPrecision(4);
}

/**
 * Operations per second of this process's CPU time (user + system) rather than wall time: on a shared,
 * loaded machine the time spent descheduled is not counted, so two sides measured in the same run are
 * compared on the work they actually do. Awaits `fn` (works for sync and async functions alike).
 */
export async function cpuOpsPerSecond(fn: () => unknown, ms = 1000): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 8; i++) await fn();
    n += 8;
  }
  const c = process.cpuUsage(c0);
  return n / ((c.user + c.system) / 1e6);
}

/**
 * This tree's `ours` against a `base` line on CPU time: both warmed up, then `rounds` interleaved rounds
 * of `ms / rounds` each, the best round of each side (so load from elsewhere cannot land on one side only).
 */
export async function interleavedCpu(ours: () => unknown, base: () => unknown, ms: number, rounds = 6): Promise<{ ours: number; base: number }> {
  await cpuOpsPerSecond(ours, 300);
  await cpuOpsPerSecond(base, 300);
  let o = 0;
  let b = 0;
  for (let k = 0; k < rounds; k++) {
    o = Math.max(o, await cpuOpsPerSecond(ours, ms / rounds));
    b = Math.max(b, await cpuOpsPerSecond(base, ms / rounds));
  }
  return { ours: o, base: b };
}

/**
 * The last line of a bench that measures this tree (`value`) against a baseline: the rates rounded to
 * whole units, the ratio to `digits` decimals, p50/p99 (µs) to one; `extra` follows.
 */
export function versus(
  r: { name: string; unit: string; value: number; baseline: string; baselineValue: number; ratio: number; p50?: number; p99?: number },
  extra: Record<string, unknown> = {},
  digits = 2,
): BenchResult {
  return {
    name: r.name,
    unit: r.unit,
    value: Math.round(r.value),
    baseline: r.baseline,
    baselineValue: Math.round(r.baselineValue),
    ratio: Number(r.ratio.toFixed(digits)),
    ...(r.p50 !== undefined ? { p50: Number(r.p50.toFixed(1)) } : {}),
    ...(r.p99 !== undefined ? { p99: Number(r.p99.toFixed(1)) } : {}),
    ...extra,
  };
}

/** Time `n` single calls of `fn` (µs each), sorted ascending, for p50/p99. */
export function latencyMicros(fn: () => void, n = 20_000): Float64Array {
  const lat = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    fn();
    lat[k] = (performance.now() - t) * 1000;
  }
  return lat.sort();
}

/**
 * A soak's second half: the mean of the points at or after `minutes / 2` and their least-squares growth
 * over that half (slope × minutes / 2), in the points' unit. `t` is in minutes since the start.
 */
export function secondHalf(points: readonly { t: number; v: number }[], minutes: number): { mean: number; growth: number; n: number } {
  const half = points.filter((p) => p.t >= minutes / 2);
  const mean = half.reduce((a, p) => a + p.v, 0) / half.length;
  const tm = half.reduce((a, p) => a + p.t, 0) / half.length;
  const slope =
    half.reduce((a, p) => a + (p.t - tm) * (p.v - mean), 0) /
    Math.max(
      1e-9,
      half.reduce((a, p) => a + (p.t - tm) ** 2, 0),
    );
  return { mean, growth: slope * (minutes / 2), n: half.length };
}

/**
 * One full collection of a `--trace-gc` line: `[pid:isolate] <ms since the isolate started> ms:
 * Mark-Compact a (b) -> LIVE (d) MB, …` → the isolate (null when the line has no prefix), the ms and the
 * live heap in MB; null for any other line.
 */
export function markCompact(line: string): { isolate: string | null; ms: number; live: number } | null {
  const m = /(?:\[\d+:(0x[0-9a-f]+)\]\s+)?(\d+(?:\.\d+)?) ms: Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(line);
  return m ? { isolate: m[1] ?? null, ms: Number(m[2]), live: Number(m[3]) } : null;
}

/**
 * A module's path in a checkout that may predate a move (the kernel and the tick-to-wire meter lived in
 * src/runtime, the per-tick strategy step in src/strategy): today's path when the checkout has it.
 */
const MOVED: Readonly<Record<string, string>> = {
  'src/kernel/quoting-kernel.ts': 'src/runtime/quoting-kernel.ts',
  'src/kernel/tick-to-wire.ts': 'src/runtime/tick-to-wire.ts',
  'src/kernel/run-strategy.ts': 'src/strategy/run-strategy.ts',
};
export function inTree(root: string, path: string): string {
  const before = MOVED[path];
  return before !== undefined && !existsSync(resolve(root, path)) ? before : path;
}

/** one reading of test/bench/heap-probe.mjs, `t` in minutes since the soak's start */
/** `forced`: after two full collections the probe made; `major`: after one of the bot's own (test/bench/heap-probe.mjs) */
export type ProbeKind = 'forced' | 'major';

/** V8's own figures of a reading, bytes (getHeapStatistics; `committed`: physical size by heap space); an older probe's lines have none */
export interface ProbeV8 {
  physical: number;
  malloced: number;
  committed: Record<string, number>;
}

export interface ProbeReading {
  t: number;
  kind: ProbeKind;
  spaces: Record<string, number>;
  arrayBuffers: number;
  external: number;
  rss: number;
  v8?: ProbeV8;
}

/**
 * the readings of `kind` test/bench/heap-probe.mjs appended to `file` (none when it has not written any), in time
 * order; a line without a kind (an older probe's) is `forced`
 */
export function readProbes(file: string, t0: number, kind: ProbeKind = 'forced'): ProbeReading[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const p = JSON.parse(l) as {
        at: number;
        kind?: ProbeKind;
        spaces: Record<string, number>;
        arrayBuffers: number;
        external: number;
        rss: number;
        v8?: ProbeV8;
      };
      const r: ProbeReading = {
        t: (p.at - t0) / 60_000,
        kind: p.kind ?? 'forced',
        spaces: p.spaces,
        arrayBuffers: p.arrayBuffers,
        external: p.external,
        rss: p.rss,
      };
      if (p.v8) r.v8 = { physical: p.v8.physical, malloced: p.v8.malloced, committed: p.v8.committed };
      return r;
    })
    .filter((p) => p.kind === kind)
    .sort((a, b) => a.t - b.t);
}

const MB = 2 ** 20;
/** the soaks' criterion figure, MB: V8's heap (every space) after full collections, plus typed arrays' stores */
export function probeLive(p: ProbeReading, withCode = true): number {
  let sum = p.arrayBuffers;
  for (const [name, used] of Object.entries(p.spaces)) if (withCode || name !== 'code_space') sum += used;
  return sum / MB;
}

/**
 * The heap probes of a soak's second half: the reading nearest its start and its last, each space's and the
 * array buffers' change between them (MB), and the growth (slope × duration, as `secondHalf`) of the live
 * figure with array buffers, with and without code space.
 */
export function probeSecondHalf(
  probes: readonly ProbeReading[],
  minutes: number,
): { rows: [string, string | number][]; growth: number; growthNoCode: number; start: number; end: number } | null {
  if (probes.length < 2) return null;
  const what = probes[0]!.kind === 'major' ? "after the bot's own full GCs, old generation" : 'two forced full GCs';
  const start = probes.reduce((best, p) => (Math.abs(p.t - minutes / 2) < Math.abs(best.t - minutes / 2) ? p : best));
  const end = probes.at(-1)!;
  const f = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(2);
  const names = [...new Set([...Object.keys(start.spaces), ...Object.keys(end.spaces)])];
  const deltas = names.map((n) => `${n.replace(/_space$/, '')} ${f(((end.spaces[n] ?? 0) - (start.spaces[n] ?? 0)) / MB)}`);
  deltas.push(`arrayBuffers ${f((end.arrayBuffers - start.arrayBuffers) / MB)}`, `external ${f((end.external - start.external) / MB)}`);
  // a slope needs two readings in the half (the bot's own full collections can be minutes apart): NaN otherwise
  const slope = (withCode: boolean) => {
    const h = secondHalf(
      probes.map((p) => ({ t: p.t, v: probeLive(p, withCode) })),
      minutes,
    );
    return h.n >= 2 ? h.growth : Number.NaN;
  };
  const growth = slope(true);
  const growthNoCode = slope(false);
  const inHalf = probes.filter((p) => p.t >= minutes / 2).length;
  const at = (p: ProbeReading) =>
    `${p.t.toFixed(1)} min: ${probeLive(p).toFixed(2)} MB (code ${((p.spaces.code_space ?? 0) / MB).toFixed(2)}, AB ${(p.arrayBuffers / MB).toFixed(2)})`;
  return {
    rows: [
      [`heap probe (${what}) at the 2nd half start / end`, `${at(start)} / ${at(end)}`],
      ['2nd-half change by space MB (end - start)', deltas.join(', ')],
      [`2nd-half growth MB, live heap + array buffers (slope × duration of ${inHalf} readings, ${what})`, growth],
      ['the same without code space', growthNoCode],
      [`live+AB MB at each reading (${what})`, probes.map((p) => `${p.t.toFixed(1)}:${probeLive(p).toFixed(2)}`).join(' ')],
    ],
    growth,
    growthNoCode,
    start: probeLive(start),
    end: probeLive(end),
  };
}

/**
 * `--probe major|forced` of the soak benches (default `major`): which heap readings (test/bench/heap-probe.mjs) the
 * second-half criterion reads. `major`: after each of the bot's own full collections, nothing forced (one forced
 * probe at the end only); `forced`: two forced full collections every minute, as before session 30: every forced
 * collection discards optimised code the bot would have kept (docs/performance/reoptimisation.md), so a probe a minute
 * adds re-optimisation to what the readings measure.
 */
export function probeModeArg(): ProbeKind {
  const v = argOf('probe') ?? 'major';
  if (v !== 'major' && v !== 'forced') throw new Error(`--probe: expected major or forced, got ${v}`);
  return v;
}

/** The value after `--NAME` on the bench's command line, or undefined. */
export function argOf(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** `--NAME N`, a positive integer (`dflt` when not given); anything else throws, naming the flag. */
export function positiveIntArg(name: string, dflt: number): number {
  const v = Number(argOf(name) ?? dflt);
  if (!Number.isSafeInteger(v) || v < 1) throw new Error(`--${name}: expected a positive integer`);
  return v;
}
