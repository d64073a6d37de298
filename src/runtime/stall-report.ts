/**
 * The main thread's side of the watchdog's stall reports (src/runtime/loop-stall.ts): each stall the
 * loop came back from is counted (`bookmaker_event_loop_stalls_total{cause}`, `…_stalled_seconds_total`),
 * logged, and kept for /readyz. A starved bot stalls every few seconds; its log says so once per
 * `quietMs` (the first stall of a quiet spell at once, the others summed into one line when the spell
 * ends), so the stalls never flood the log and none goes untold. A line also says how many timers fell
 * due during its stalls and ran after the reads of what arrived meanwhile (src/core/late-timer.ts: the
 * housekeeping round's staleness checks, the venue client's request timeouts), so books were judged,
 * and answers taken, on what arrived during the stall.
 *
 *   const r = watchStalls(watchdog, metrics, log, clock)   // what the runtime does (endpoints phase)
 *   const r = new StallReport({ log, count: (cause, s) => …, clock })
 *   watchdog.onStall((s) => r.note(s))
 *   r.recent()          // the last stall and the count of the last minute, for /readyz (null: none)
 *   r.close()
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotMetrics } from '../metrics/bot-metrics.ts';
import type { Watchdog } from './watchdog.ts';
import { lateTimers } from '../core/late-timer.ts';
import { describeStall, stallFields, type LoopStall, type StallCause } from './loop-stall.ts';

/** one log line per this long at most; the stalls between are summed into the next */
export const STALL_LOG_QUIET_MS = 10_000;
/** /readyz shows stalls of this recent past */
export const STALL_RECENT_MS = 60_000;

export interface RecentStalls {
  /** the last one, and how long ago it ended */
  readonly last: LoopStall & { readonly secondsAgo: number; readonly why: string };
  /** stalls within STALL_RECENT_MS, and their seconds */
  readonly count: number;
  readonly stalledSeconds: number;
}

interface Seen {
  readonly at: number;
  readonly stall: LoopStall;
}

export class StallReport {
  private readonly quietMs: number;
  private lastLogAt = -Infinity;
  /** stalls since the last line */
  private held: LoopStall[] = [];
  private cancelFlush: (() => void) | null = null;
  private seen: Seen[] = [];

  constructor(
    private readonly o: {
      log: Pick<Logger, 'warn'>;
      count: (cause: StallCause, seconds: number) => void;
      clock: Pick<Clock, 'now' | 'setTimeout'>;
      quietMs?: number;
      /** timers put after the reads so far (default: the process's, src/core/late-timer.ts) */
      afterReads?: () => number;
    },
  ) {
    this.quietMs = o.quietMs ?? STALL_LOG_QUIET_MS;
    this.afterReads = o.afterReads ?? lateTimers;
    this.afterReadsSeen = this.afterReads();
  }
  private readonly afterReads: () => number;
  private afterReadsSeen: number;
  /** timers put after the reads during the held stalls */
  private heldAfterReads = 0;

  note(s: LoopStall): void {
    const now = this.o.clock.now();
    this.o.count(s.cause, s.seconds);
    this.seen.push({ at: now, stall: s });
    this.forget(now);
    const late = this.afterReads();
    const deferred = late - this.afterReadsSeen;
    this.afterReadsSeen = late;
    if (now - this.lastLogAt >= this.quietMs && this.held.length === 0) {
      this.lastLogAt = now;
      this.o.log.warn({ ...stallFields(s), timersAfterReads: deferred }, `event loop stalled ${s.seconds} s: ${describeStall(s)}${afterReadsText(deferred)}`);
      return;
    }
    this.heldAfterReads += deferred;
    this.held.push(s);
    this.cancelFlush ??= this.o.clock.setTimeout(() => this.flush(), Math.max(0, this.lastLogAt + this.quietMs - now));
  }

  /** the stalls held since the last line, told as one */
  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = null;
    const h = this.held;
    if (h.length === 0) return;
    this.held = [];
    const deferred = this.heldAfterReads;
    this.heldAfterReads = 0;
    const now = this.o.clock.now();
    const since = Math.round((now - this.lastLogAt) / 1000);
    this.lastLogAt = now;
    let longest = h[0]!;
    let sum = 0;
    for (const s of h) {
      sum += s.seconds;
      if (s.seconds > longest.seconds) longest = s;
    }
    this.o.log.warn(
      { ...stallFields(longest), longestSeconds: longest.seconds, stalls: h.length, stalledSeconds: Math.round(sum * 1000) / 1000, timersAfterReads: deferred },
      `event loop stalled ${h.length} more time(s) in ${since} s, ${Math.round(sum * 10) / 10} s in all; the longest ${longest.seconds} s: ${describeStall(longest)}${afterReadsText(deferred)}`,
    );
  }

  recent(): RecentStalls | null {
    const now = this.o.clock.now();
    this.forget(now);
    const last = this.seen.at(-1);
    if (!last) return null;
    let sum = 0;
    for (const x of this.seen) sum += x.stall.seconds;
    return {
      last: { ...last.stall, secondsAgo: Math.round((now - last.at) / 1000), why: describeStall(last.stall) },
      count: this.seen.length,
      stalledSeconds: Math.round(sum * 1000) / 1000,
    };
  }

  close(): void {
    this.flush();
  }

  private forget(now: number): void {
    let i = 0;
    while (i < this.seen.length && now - this.seen[i]!.at > STALL_RECENT_MS) i++;
    if (i > 0) this.seen = this.seen.slice(i);
  }
}

/** What the timers that fell due during a stall did, for its log line ('' when none did). */
function afterReadsText(n: number): string {
  if (n <= 0) return '';
  return `; ${n} timer(s) that fell due during it (the housekeeping round's stale-book checks, request timeouts) ran after the reads of what arrived meanwhile, so books were judged and answers taken on it`;
}

/** The runtime's wiring: each stall the watchdog reports counted in the metrics, logged, kept for /readyz. */
export function watchStalls(
  wd: Pick<Watchdog, 'onStall'>,
  metrics: Pick<BotMetrics, 'loopStalls' | 'loopStalledSeconds'>,
  log: Pick<Logger, 'warn'>,
  clock: Pick<Clock, 'now' | 'setTimeout'>,
): StallReport {
  const r = new StallReport({
    log,
    count: (cause, seconds) => {
      metrics.loopStalls.inc({ cause });
      metrics.loopStalledSeconds.inc({ cause }, seconds);
    },
    clock,
  });
  wd.onStall((s) => r.note(s));
  return r;
}
