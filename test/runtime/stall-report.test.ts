/**
 * The main thread's stall reports: every stall counted, the first of a quiet spell logged at once, the
 * rest of the spell summed into one line when it ends, the last minute's shown for /readyz.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeStall, type LoopStall } from '../../src/runtime/loop-stall.ts';
import { STALL_LOG_QUIET_MS, STALL_RECENT_MS, StallReport } from '../../src/runtime/stall-report.ts';

const S = 1e9;
const starved = (seconds: number): LoopStall =>
  judgeStall(seconds * 1000, { runNs: 0, waitNs: 0 }, { runNs: 0.05 * seconds * S, waitNs: 0.9 * seconds * S }, 20, 2);
const busy = (seconds: number): LoopStall => judgeStall(seconds * 1000, { runNs: 0, waitNs: 0 }, { runNs: seconds * S, waitNs: 0 }, 1, 2);

function harness() {
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const counted: [string, number][] = [];
  const timers: { at: number; fn: () => void; on: boolean }[] = [];
  const clock = {
    t: 1_000_000,
    now: () => clock.t,
    setTimeout(fn: () => void, ms: number) {
      const x = { at: clock.t + ms, fn, on: true };
      timers.push(x);
      return () => (x.on = false);
    },
  };
  const advance = (ms: number): void => {
    clock.t += ms;
    for (const x of timers) if (x.on && x.at <= clock.t) (x.on = false), x.fn();
  };
  const late = { n: 7 };
  const r = new StallReport({
    log: { warn: ((fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg })) as never },
    count: (cause, s) => counted.push([cause, s]),
    clock,
    afterReads: () => late.n,
  });
  return { r, lines, counted, advance, late };
}

test('the first stall is logged at once with its cause; those of the next 10 s go into one line; every one is counted', () => {
  const { r, lines, counted, advance } = harness();
  r.note(starved(10.3));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!.msg, /^event loop stalled 10\.3 s: the main thread ran 0\.515 s and waited 9\.27 s for a CPU: starved of CPU/);
  assert.equal(lines[0]!.fields.cause, 'cpu-starved');
  advance(3_000);
  r.note(starved(4));
  advance(2_000);
  r.note(busy(13.4));
  assert.equal(lines.length, 1, 'held within the quiet spell');
  advance(STALL_LOG_QUIET_MS - 5_001);
  assert.equal(lines.length, 1, 'held until the spell ends');
  advance(1);
  assert.equal(lines.length, 2);
  assert.match(lines[1]!.msg, /event loop stalled 2 more time\(s\) in 10 s, 17\.4 s in all; the longest 13\.4 s: .*one long turn of work/);
  assert.equal(lines[1]!.fields.stalls, 2);
  assert.equal(lines[1]!.fields.longestSeconds, 13.4);
  assert.equal(lines[1]!.fields.cause, 'busy');
  assert.deepEqual(counted, [
    ['cpu-starved', 10.3],
    ['cpu-starved', 4],
    ['busy', 13.4],
  ]);
  // a quiet spell later, a stall is logged at once again
  advance(STALL_LOG_QUIET_MS);
  r.note(busy(1.5));
  assert.equal(lines.length, 3);
  assert.match(lines[2]!.msg, /^event loop stalled 1\.5 s/);
});

test('a held stall is told at close; /readyz sees the last minute', () => {
  const { r, lines, advance } = harness();
  assert.equal(r.recent(), null);
  r.note(busy(2));
  advance(1_000);
  r.note(starved(6));
  const now = r.recent()!;
  assert.equal(now.count, 2);
  assert.equal(now.stalledSeconds, 8);
  assert.equal(now.last.cause, 'cpu-starved');
  assert.equal(now.last.secondsAgo, 0);
  assert.match(now.last.why, /starved of CPU/);
  r.close();
  assert.equal(lines.length, 2);
  assert.match(lines[1]!.msg, /stalled 1 more time\(s\)/);
  advance(STALL_RECENT_MS + 1);
  assert.equal(r.recent(), null, 'forgotten after a minute');
});

test('the runtime wiring: a reported stall is in the metrics, the log line and /readyz with the same figures', async () => {
  const { createBotMetrics } = await import('../../src/metrics/bot-metrics.ts');
  const { watchStalls } = await import('../../src/runtime/stall-report.ts');
  const metrics = createBotMetrics({ defaultMetrics: false });
  let listener: ((s: LoopStall) => void) | null = null;
  const lines: Record<string, unknown>[] = [];
  const clock = { now: () => 5_000_000, setTimeout: () => () => undefined };
  const r = watchStalls({ onStall: (l) => (listener = l) }, metrics, { warn: ((f: Record<string, unknown>) => lines.push(f)) as never }, clock);
  const s = starved(12.345);
  listener!(s);
  const text = await metrics.registry.metrics();
  assert.match(text, /^bookmaker_event_loop_stalls_total\{cause="cpu-starved"\} 1$/m);
  const counted = Number(/^bookmaker_event_loop_stalled_seconds_total\{cause="cpu-starved"\} (\S+)$/m.exec(text)![1]);
  assert.equal(counted, 12.345);
  assert.equal(lines[0]!.stalledSeconds, counted);
  assert.equal(r.recent()!.last.seconds, counted);
  assert.equal(r.recent()!.stalledSeconds, counted);
  assert.equal(lines[0]!.cause, r.recent()!.last.cause);
});

test('a stall line says how many timers that fell due during it ran after the reads; a summed line sums them', () => {
  const { r, lines, advance, late } = harness();
  late.n += 2_003; // the housekeeping round's slices, request timeouts, trailing ticks
  r.note(busy(35.2));
  assert.equal(lines[0]!.fields.timersAfterReads, 2_003);
  assert.match(lines[0]!.msg, /; 2003 timer\(s\) that fell due during it \(the housekeeping round's stale-book checks, request timeouts\) ran after the reads/);
  advance(1_000);
  late.n += 4;
  r.note(starved(2));
  advance(1_000);
  r.note(starved(3));
  r.close();
  assert.equal(lines[1]!.fields.timersAfterReads, 4);
  advance(STALL_LOG_QUIET_MS);
  r.note(busy(1.2));
  assert.equal(lines[2]!.fields.timersAfterReads, 0);
  assert.doesNotMatch(lines[2]!.msg, /timer/, 'none: nothing said');
});
