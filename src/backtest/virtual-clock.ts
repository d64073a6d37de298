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

/**
 * The timers live in slots of typed arrays (due time, insertion number) and one array of callbacks,
 * and the heap is an Int32Array of slot numbers ordered by (due time, insertion number). A timer was
 * an object with its due time in a heap number, and every step of the heap's sift stored such young
 * objects into the heap's long-lived array (V8's write barrier on each): the replay runs ~15,000
 * timers a run of the capture. A freed slot is handed out again; its generation, bumped when it is
 * freed, keeps a late cancel of the timer that had it from cancelling the next one.
 */
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
  /** Infinity, as a field (nextDue) */
  private readonly never = Infinity;
  /** per slot: the timer's due time and insertion number */
  private at = new Float64Array(64);
  private order = new Float64Array(64);
  /** per slot: the callback, null once cancelled, run or free */
  private readonly fns: ((() => void) | null)[] = [];
  /** per slot: bumped each time the slot is freed (a cancel function checks it) */
  private gen = new Int32Array(64);
  /** slots set so far (the arrays' used part); freed slots wait in `free` */
  private used = 0;
  private free = new Int32Array(64);
  private nFree = 0;
  /** the heap of slots; cancelled timers stay in it until they reach the top */
  private heap = new Int32Array(64);
  private n = 0;
  readonly scheduler: SchedulerLike;

  constructor(startMs = 0) {
    this.t = startMs;
    this.scheduler = new VirtualScheduler(this);
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const s = this.add(fn, ms);
    const g = this.gen[s]!;
    return () => {
      if (this.gen[s] === g) this.fns[s] = null;
    };
  }

  /**
   * setTimeout for a caller that never cancels: the same timer, in the same order (it takes the
   * next sequence number as setTimeout does), without the cancel function (one closure less a timer).
   */
  schedule(fn: () => void, ms: number): void {
    this.add(fn, ms);
  }

  /** A timer in a slot of its own, pushed on the heap; its slot. */
  private add(fn: () => void, ms: number): number {
    let s: number;
    if (this.nFree > 0) s = this.free[--this.nFree]!;
    else {
      if (this.used === this.at.length) this.grow();
      s = this.used++;
    }
    this.at[s] = this.t + Math.max(0, ms);
    this.order[s] = this.seq++;
    this.fns[s] = fn;
    this.push(s);
    return s;
  }

  /** Twice the room for slots (and so for the heap and the free list, which never hold more). */
  private grow(): void {
    const n = this.at.length * 2;
    this.at = widened(this.at, new Float64Array(n));
    this.order = widened(this.order, new Float64Array(n));
    this.gen = widened(this.gen, new Int32Array(n));
    this.heap = widened(this.heap, new Int32Array(n));
    this.free = new Int32Array(n); // (empty when the slots run out)
  }

  /** True when slot x's timer runs before slot y's: (due time, insertion number). */
  private before(x: number, y: number): boolean {
    const a = this.at[x]!;
    const b = this.at[y]!;
    return a < b || (a === b && this.order[x]! < this.order[y]!);
  }

  private push(s: number): void {
    const h = this.heap;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const q = h[p]!;
      if (!this.before(s, q)) break;
      h[i] = q;
      i = p;
    }
    h[i] = s;
  }

  /** Take the top slot off the heap and free it (its callback is the caller's to read first). */
  private pop(): void {
    const h = this.heap;
    const top = h[0]!;
    const n = --this.n;
    if (n > 0) {
      const s = h[n]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && this.before(h[r]!, h[l]!) ? r : l;
        if (!this.before(h[c]!, s)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = s;
    }
    this.fns[top] = null;
    this.gen[top]!++;
    this.free[this.nFree++] = top;
  }

  /**
   * Due time of the earliest live timer, Infinity when none is set. The replay asks before every
   * step: the common case (the earliest timer is live) is kept small enough to inline.
   */
  nextDue(): number {
    if (this.n > 0 && this.fns[this.heap[0]!] === null) this.dropCancelled();
    // Both answers are doubles the optimising compiler knows as numbers, so the replay loop, which
    // inlines this, compares them unboxed. (Returning dropCancelled()'s result, or the global
    // `Infinity` on this path a run never takes — a load with no type feedback — made the answer
    // a tagged value: a new heap number at every call, ~60,000 a run of the capture.)
    return this.n === 0 ? this.never : this.at[this.heap[0]!]!;
  }

  /** Pop cancelled timers off the top (until a live one is there, or none). */
  private dropCancelled(): void {
    while (this.n > 0 && this.fns[this.heap[0]!] === null) this.pop();
  }

  /** Advance to the earliest live timer and run it; false when there is none. */
  runNext(): boolean {
    if (this.nextDue() === Infinity) return false;
    const s = this.heap[0]!;
    const at = this.at[s]!;
    const fn = this.fns[s]!;
    this.pop();
    if (at > this.t) this.t = at;
    fn();
    return true;
  }

  /** Move time forward (never backwards: recorded timestamps that step back keep the clock still). */
  advanceTo(t: number): void {
    if (t > this.t) this.t = t;
  }

  /** Timers in the heap (cancelled ones not yet dropped included). */
  get pendingTimers(): number {
    return this.n;
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

/** `to` (a longer array of the same kind) with `from` copied into its start */
function widened<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
