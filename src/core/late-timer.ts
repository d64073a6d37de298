/**
 * A timer that runs after the reads when it falls due during a stall of the event loop.
 *
 * Node runs a turn's due timers before it reads the sockets. After a long turn (a burst of socket
 * data, a garbage collection, a process starved of CPU: docs/performance/breadth.md, "A stalled event loop at
 * 2,000 markets") every timer that fell due meanwhile runs first, and judges by what the process had
 * read before the stall: a request's timeout fires although its answer waits in the socket, the
 * housekeeping round finds books stale although their deltas and keep-alives wait there too. A timer
 * that runs `LATE_TIMER_MS` or more after it was due runs its callback one turn later instead, from
 * `setImmediate`, which Node runs after that turn's reads: once, so a verdict is never put off for
 * longer than one turn.
 *
 *   const cancel = setTimeoutAfterReads(() => …, ms);          // like setTimeout; `cancel()` clears it
 *   setTimeoutAfterReads(fn, ms, { unref: true, onLate })      // onLate(ms late)
 *   setTimeoutAfterReads(fn, ms, { lateMs: 0 })                // always after the reads
 *   lateTimers()                                               // how many were put after the reads
 *
 * The live clock's timers (./clock.ts systemClock: the kernel's housekeeping round and trailing ticks,
 * the feeds' checks) and the venue client's request timeouts are such timers.
 */

/** a timer this late (ms) ran after a stall of the event loop: its callback waits one turn for the reads */
export const LATE_TIMER_MS = 1_000;

let putAfterReads = 0;
/** timers of this process whose callbacks were put after the reads so far (the stall log says how many) */
export function lateTimers(): number {
  return putAfterReads;
}

export interface AfterReadsOptions {
  /** the timer does not keep the process alive */
  readonly unref?: boolean;
  /**
   * how late (ms) a timer must run to put its callback after the reads (default LATE_TIMER_MS); 0: always
   * (a verdict that is rare and must be right, such as a request's timeout)
   */
  readonly lateMs?: number;
  /** the timer ran late (ms past due) and its callback was put after the reads */
  readonly onLate?: (lateMs: number) => void;
}

export function setTimeoutAfterReads(fn: () => void, ms: number, o?: AfterReadsOptions): () => void {
  const due = performance.now() + ms;
  let immediate: ReturnType<typeof setImmediate> | undefined;
  const timer = setTimeout(() => {
    const late = performance.now() - due;
    if (late < (o?.lateMs ?? LATE_TIMER_MS)) {
      fn();
      return;
    }
    immediate = setImmediate(fn);
    if (late >= LATE_TIMER_MS) putAfterReads++; // (a stall's: its log line tells them)
    if (o?.unref) immediate.unref();
    o?.onLate?.(late);
  }, ms);
  if (o?.unref) timer.unref();
  return () => {
    clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
  };
}
