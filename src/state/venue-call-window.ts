/**
 * The venue calls of the last minute (the error-rate kill switch's window) as a value a state can hold
 * without copying: every state used to hold its own array, filtered and copied on every completed
 * call (up to 10,000 entries, ~80 KB a call) and scanned in full by every market's view on every tick.
 *
 * Entry points:
 *   VenueCallWindow.EMPTY.with(ts, ok, windowMs)   // a window with one more call, calls at or before ts − windowMs gone
 *   w.count(now, windowMs) → { requests, errors }  // calls after now − windowMs
 *   w.size                                         // calls held
 *
 * A window is immutable to its readers: it is a range [start, end) of a log the windows of one store
 * share. Only the window at the log's tip appends in place (what older windows see, below their own
 * end, never changes); any other window copies its range first. Calls are kept in time order, so the
 * calls inside a window are a suffix found by binary search, and their errors a difference of the
 * log's running error counts: O(log n) a view instead of O(n). A call completing before the last one
 * (a clock stepped back) is placed in order by a rebuild, as rare as that is.
 */

interface Log {
  readonly ts: number[];
  /** errors among the log's calls up to and including each index */
  readonly errs: number[];
}

/** at most this many calls are kept (the newest), whatever the window */
const MAX_CALLS = 10_000;

export class VenueCallWindow {
  static readonly EMPTY = new VenueCallWindow({ ts: [], errs: [] }, 0, 0, -1);

  /**
   * Where count's search last ended (an index into the log; -1: none): where the next one looks
   * first. A cache, not state: every answer is the search's own (see count); private (#), so no comparison
   * or copy of a window sees it.
   */
  #hint: number;

  private constructor(
    private readonly log: Log,
    private readonly start: number,
    private readonly end: number,
    hint: number,
  ) {
    this.#hint = hint;
  }

  get size(): number {
    return this.end - this.start;
  }

  /** The window with one more call completed at `ts`, without the calls at or before `ts − windowMs`. */
  with(ts: number, ok: boolean, windowMs: number): VenueCallWindow {
    const last = this.end > this.start ? this.log.ts[this.end - 1]! : Number.NEGATIVE_INFINITY;
    // eslint-disable-next-line prefer-const
    let log = this.log;
    let start = this.start;
    let end = this.end;
    if (end === start) {
      // an empty window starts a log of its own (EMPTY is shared by every store)
      log = { ts: [], errs: [] };
      push(log, ts, ok);
      return new VenueCallWindow(log, 0, 1, -1);
    }
    if (ts < last || log.ts.length !== end) {
      // out of time order, or not the tip of the log: a log of our own, then the call in its place
      const calls: { ts: number; ok: boolean }[] = [];
      for (let i = start; i < end; i++) calls.push({ ts: log.ts[i]!, ok: log.errs[i]! === (i > 0 ? log.errs[i - 1]! : 0) });
      let at = calls.length;
      while (at > 0 && calls[at - 1]!.ts > ts) at--;
      calls.splice(at, 0, { ts, ok });
      log = { ts: [], errs: [] };
      for (const c of calls) push(log, c.ts, c.ok);
      start = 0;
      end = calls.length;
    } else {
      push(log, ts, ok);
      end++;
    }
    start = Math.max(firstAfter(log.ts, start, end, ts - windowMs), end - MAX_CALLS);
    // the dead head of a long log is dropped now and then (amortised O(1) a call)
    if (start > 4096 && start > end - start) {
      const fresh: Log = { ts: [], errs: [] };
      for (let i = start; i < end; i++) push(fresh, log.ts[i]!, log.errs[i]! === (i > 0 ? log.errs[i - 1]! : 0));
      return new VenueCallWindow(fresh, 0, end - start, -1);
    }
    // the same log: the last search's end is still an index into it
    return new VenueCallWindow(log, start, end, log === this.log ? this.#hint : -1);
  }

  /** The calls completed after `now − windowMs`, and how many of them failed. */
  count(now: number, windowMs: number): { requests: number; errors: number } {
    const t = now - windowMs;
    const ts = this.log.ts;
    const lo = this.start;
    const end = this.end;
    // the first call after `t` is where the last search ended (or just after it) when the calls
    // around it still bracket `t`: every view of every tick asks, for a time that moves forward by
    // less than a call most times; else the search
    let i = this.#hint;
    if (!(i >= lo && i <= end && (i === lo || ts[i - 1]! <= t) && (i === end || ts[i]! > t))) {
      i++;
      if (!(i > lo && i <= end && ts[i - 1]! <= t && (i === end || ts[i]! > t))) i = firstAfter(ts, lo, end, t);
      this.#hint = i;
    }
    if (i >= this.end) return { requests: 0, errors: 0 };
    const errs = this.log.errs;
    return { requests: this.end - i, errors: errs[this.end - 1]! - (i > 0 ? errs[i - 1]! : 0) };
  }
}

function push(log: Log, ts: number, ok: boolean): void {
  const n = log.errs.length;
  log.ts.push(ts);
  log.errs.push((n > 0 ? log.errs[n - 1]! : 0) + (ok ? 0 : 1));
}

/** The first index in [lo, hi) whose time is after `t` (hi when none); times ascend. */
function firstAfter(ts: readonly number[], lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
