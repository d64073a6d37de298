/**
 * What a stalled event loop was doing, from the kernel's account of the main thread: the time it ran on
 * a CPU and the time it waited, runnable, for one (`/proc/self/task/<pid>/schedstat`, Linux; the main
 * thread's id is the process id). The watchdog thread samples it at every heartbeat and again when the
 * heartbeat is late, so one stall is judged the same way everywhere it is shown: the watchdog's fatal
 * line, `/healthz` and the forwarded endpoints' 503 answers while it lasts, and the log line and
 * `bookmaker_event_loop_stalls_total` once the loop runs again (docs/operating.md, "A stalled event loop").
 *
 *   const a = mainThreadSched()                  // { runNs, waitNs } or null (not Linux, no schedstat)
 *   const s = judgeStall(wallMs, a, mainThreadSched(), loadavg()[0], availableParallelism())
 *   s.cause                                      // 'busy' | 'cpu-starved' | 'off-cpu' | 'unknown'
 *   describeStall(s)                             // 'the main thread ran 0.4 s and waited 4.6 s for a CPU: …'
 *   stallFields(s)                               // the same figures as log and JSON fields
 */
import { readFileSync } from 'node:fs';

/** The main thread's time on a CPU and waiting for one, nanoseconds since it started. */
export interface ThreadSched {
  readonly runNs: number;
  readonly waitNs: number;
}

/**
 * Why a turn took long:
 * - `busy`: the main thread ran most of the time (a long synchronous turn: a loop over thousands of
 *   items, a burst of events processed at once, a garbage collection);
 * - `cpu-starved`: it was ready to run but waited most of the time for a CPU (the machine is
 *   oversubscribed: more runnable threads than cores);
 * - `off-cpu`: neither (a synchronous call that sleeps: disk, a lock, a page fault storm);
 * - `unknown`: no scheduler figures on this system.
 */
export type StallCause = 'busy' | 'cpu-starved' | 'off-cpu' | 'unknown';

export interface LoopStall {
  /** how long the loop has not turned (so far, for a stall still going on) */
  readonly seconds: number;
  /** of which the main thread ran on a CPU (null: unknown) */
  readonly ranSeconds: number | null;
  /** of which it waited, runnable, for a CPU (null: unknown) */
  readonly waitedSeconds: number | null;
  readonly cause: StallCause;
  /** the machine's 1-minute load average and its cores, at the time */
  readonly loadAverage: number;
  readonly cores: number;
}

/** The main thread's scheduler figures now (null where the system has none). */
export function mainThreadSched(pid: number = process.pid): ThreadSched | null {
  try {
    return parseSchedstat(readFileSync(`/proc/self/task/${pid}/schedstat`, 'latin1'));
  } catch {
    return null;
  }
}

/** `/proc/…/schedstat`: "<ns on a CPU> <ns waiting on a run queue> <time slices>". */
export function parseSchedstat(text: string): ThreadSched | null {
  const f = text.trim().split(/\s+/);
  const run = Number(f[0]);
  const wait = Number(f[1]);
  if (f.length < 2 || !Number.isFinite(run) || !Number.isFinite(wait) || run < 0 || wait < 0) return null;
  return { runNs: run, waitNs: wait };
}

const round1 = (s: number): number => Math.round(s * 10) / 10;
const round3 = (s: number): number => Math.round(s * 1000) / 1000;

/**
 * A stall of `wallMs` judged from the thread's figures at its start and now: the largest of running,
 * waiting for a CPU and neither names it.
 */
export function judgeStall(wallMs: number, from: ThreadSched | null, to: ThreadSched | null, loadAverage: number, cores: number): LoopStall {
  const seconds = round3(Math.max(0, wallMs) / 1000);
  const load = round1(loadAverage);
  // literals, not `{ ...base, ranSeconds, ... }`: a spread followed by new keys gave each stall a V8 map of its own
  // (docs/performance/map-churn.md)
  // a thread that has run shows run time: zeros are a kernel that keeps no such figures
  if (!from || !to || to.runNs === 0 || to.runNs < from.runNs || to.waitNs < from.waitNs)
    return { seconds, loadAverage: load, cores, ranSeconds: null, waitedSeconds: null, cause: 'unknown' };
  const ran = Math.min(seconds, (to.runNs - from.runNs) / 1e9);
  const waited = Math.min(seconds - ran, (to.waitNs - from.waitNs) / 1e9);
  const off = seconds - ran - waited;
  const cause: StallCause = ran >= waited && ran >= off ? 'busy' : waited >= off ? 'cpu-starved' : 'off-cpu';
  return { seconds, loadAverage: load, cores, ranSeconds: round3(ran), waitedSeconds: round3(waited), cause };
}

/** One sentence for logs and answers: what the main thread did during the stall, and what it means. */
export function describeStall(s: LoopStall): string {
  const load = `load average ${s.loadAverage} on ${s.cores} core${s.cores === 1 ? '' : 's'}`;
  if (s.ranSeconds === null || s.waitedSeconds === null) return `no scheduler figures on this system (${load})`;
  const split = `the main thread ran ${s.ranSeconds} s and waited ${s.waitedSeconds} s for a CPU`;
  switch (s.cause) {
    case 'busy':
      return `${split}: one long turn of work (a burst of events, a loop over many markets, garbage collection; a CPU profile shows which) (${load})`;
    case 'cpu-starved':
      return `${split}: starved of CPU, the machine runs more than it has cores for (${load}); give the bot a core or fewer markets`;
    default:
      return `${split}, and was off the CPU the rest: a synchronous call that sleeps (disk, swap, a lock) (${load})`;
  }
}

/** A stall's figures as the fields of a log line or a JSON answer (the same names everywhere). */
export function stallFields(s: LoopStall) {
  return {
    stalledSeconds: s.seconds,
    cause: s.cause,
    ranSeconds: s.ranSeconds,
    waitedForCpuSeconds: s.waitedSeconds,
    loadAverage: s.loadAverage,
    cores: s.cores,
  };
}
