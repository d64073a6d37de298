/**
 * Virtual time for backtests: a `Clock` (src/core/clock.ts) whose `now()` only moves when the replay
 * driver advances it, with timers kept in a binary heap ordered by (due time, insertion order) so two
 * timers due at the same millisecond always run in the order they were set (determinism).
 *
 * Entry points:
 *   const clock = new VirtualClock(startMs);
 *   clock.setTimeout(fn, ms) / clock.scheduler          // what the kernel and RxJS operators use
 *   clock.schedule(fn, ms)                              // a timer its caller never cancels (no cancel function)
 *   clock.nextDue()                                     // due time of the earliest timer (Infinity if none)
 *   clock.runNext()                                     // advance to the earliest timer and run it
 *   clock.advanceTo(t)                                  // move time forward without running anything
 * The driver interleaves recorded events and timers itself (the replay loop in src/backtest/run-backtest.ts), so a timer
 * never fires "late" relative to the data.
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { Clock } from '../core/clock.ts';

interface Timer {
  at: number;
  seq: number;
  fn: (() => void) | null;
}

/** Min-heap of timers by (at, seq). Cancelled timers stay until popped (fn = null). */
class TimerHeap {
  private readonly a: Timer[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Timer | undefined {
    return this.a[0];
  }
  push(t: Timer): void {
    const a = this.a;
    a.push(t);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const x = a[i]!;
      const y = a[p]!;
      if (!less(x, y)) break;
      a[i] = y;
      a[p] = x;
      i = p;
    }
  }
  pop(): Timer | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        const x = a[i]!;
        a[i] = a[m]!;
        a[m] = x;
        i = m;
      }
    }
    return top;
  }
}

const less = (x: Timer, y: Timer): boolean => x.at < y.at || (x.at === y.at && x.seq < y.seq);

export class VirtualClock implements Clock {
  /**
   * Virtual now, ms. Initialised with a double (NaN) where it is declared: a class field declared
   * without a value is defined as undefined first (ES2022 class fields), which gives the field V8's
   * tagged representation, and every write of a time (not a small integer) then boxed it in a new
   * heap number (advanceTo and runNext: up to ~25,000 a run of the capture). A field that holds a
   * double from the start is written in place.
   */
  private t = NaN;
  private seq = 0;
  private readonly heap = new TimerHeap();
  /** Infinity, as a field (nextDue) */
  private readonly never = Infinity;
  readonly scheduler: SchedulerLike;

  constructor(startMs = 0) {
    this.t = startMs;
    this.scheduler = new VirtualScheduler(this);
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.heap.push(timer);
    return () => {
      timer.fn = null;
    };
  }

  /**
   * setTimeout for a caller that never cancels: the same timer, in the same order (it takes the
   * next sequence number as setTimeout does), without the cancel function (one closure less a timer).
   */
  schedule(fn: () => void, ms: number): void {
    this.heap.push({ at: this.t + Math.max(0, ms), seq: this.seq++, fn });
  }

  /**
   * Due time of the earliest live timer, Infinity when none is set. The replay asks before every
   * step: the common case (the earliest timer is live) is kept small enough to inline.
   */
  nextDue(): number {
    let top = this.heap.peek();
    if (top !== undefined && top.fn === null) top = this.dropCancelled();
    // Both answers are doubles the optimising compiler knows as numbers, so the replay loop, which
    // inlines this, compares them unboxed. (Returning dropCancelled()'s result, or the global
    // `Infinity` on this path a run never takes — a load with no type feedback — made the answer
    // a tagged value: a new heap number at every call, ~60,000 a run of the capture.)
    return top === undefined ? this.never : top.at;
  }

  /** Pop cancelled timers off the top, then the earliest live one (undefined when none). */
  private dropCancelled(): Timer | undefined {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || top.fn !== null) return top;
      this.heap.pop();
    }
  }

  /** Advance to the earliest live timer and run it; false when there is none. */
  runNext(): boolean {
    if (this.nextDue() === Infinity) return false;
    const timer = this.heap.pop()!;
    if (timer.at > this.t) this.t = timer.at;
    const fn = timer.fn!;
    timer.fn = null;
    fn();
    return true;
  }

  /** Move time forward (never backwards: recorded timestamps that step back keep the clock still). */
  advanceTo(t: number): void {
    if (t > this.t) this.t = t;
  }

  get pendingTimers(): number {
    return this.heap.size;
  }
}

/** The RxJS face of the virtual clock: actions run as virtual timers. */
class VirtualScheduler implements SchedulerLike {
  constructor(private readonly clock: VirtualClock) {}
  now(): number {
    return this.clock.now();
  }
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new VirtualAction(this.clock, work).schedule(state, delay);
  }
}

class VirtualAction<T> extends Subscription implements SchedulerAction<T> {
  private cancelTimer: (() => void) | null = null;
  constructor(
    private readonly clock: VirtualClock,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super(() => this.cancelTimer?.());
  }
  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.cancelTimer?.();
    this.cancelTimer = this.clock.setTimeout(() => {
      this.cancelTimer = null;
      if (!this.closed) this.work.call(this, state);
    }, delay);
    return this;
  }
}
