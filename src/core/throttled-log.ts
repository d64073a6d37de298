/**
 * Aggregates a storm of like events into a few log lines: the first event of a key is told at once,
 * the rest are counted and told as one summary per interval ("a storm is a few lines").
 *
 *   const t = new ThrottledLog(intervalMs);
 *   const r = t.hit(key, now, detail)   // → 'first' (log it in full), or null (counted)
 *   t.due(now, (key, s) => …)           // summaries of keys whose interval has passed with hits
 *
 * Time comes from the caller (an injected clock's now()): usable on virtual time (backtests) and
 * on the hot path (no allocation per hit once a key exists).
 */
export interface ThrottledSummary {
  /** events since the last line for this key */
  readonly count: number;
  /** the interval those events fell in, ms */
  readonly windowMs: number;
  /** the detail of the latest of them */
  readonly last: string;
}

interface Entry {
  /** time of the last line told for this key */
  toldAt: number;
  count: number;
  last: string;
}

export class ThrottledLog {
  private readonly entries = new Map<string, Entry>();
  constructor(readonly intervalMs: number) {}

  /** 'first' when this event must be logged in full (first of its key, or first after a quiet interval). */
  hit(key: string, now: number, detail = ''): 'first' | null {
    const e = this.entries.get(key);
    if (!e) {
      this.entries.set(key, { toldAt: now, count: 0, last: detail });
      return 'first';
    }
    if (e.count === 0 && now - e.toldAt >= this.intervalMs) {
      // quiet for a whole interval: a new storm starts with a full line
      e.toldAt = now;
      e.last = detail;
      return 'first';
    }
    e.count++;
    e.last = detail;
    return null;
  }

  /** Summaries of keys with events counted and a whole interval since their last line. */
  due(now: number, emit: (key: string, s: ThrottledSummary) => void): void {
    for (const [key, e] of this.entries) {
      if (e.count === 0 || now - e.toldAt < this.intervalMs) continue;
      emit(key, { count: e.count, windowMs: now - e.toldAt, last: e.last });
      e.count = 0;
      e.toldAt = now;
    }
  }

  /**
   * The key's events not yet told (if any) go out now, but the key stays: an event within
   * `intervalMs` of this is counted, not told in full again (a storm that pauses and resumes, e.g. a
   * strategy that fails on every other tick, stays one storm).
   */
  pause(key: string, now: number, emit: (key: string, s: ThrottledSummary) => void): void {
    const e = this.entries.get(key);
    if (!e) return;
    if (e.count > 0) emit(key, { count: e.count, windowMs: now - e.toldAt, last: e.last });
    e.count = 0;
    e.toldAt = now;
  }

  /** Forget a key without a summary (a retired market); false when it was not there. */
  forget(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Forget every key that starts with `prefix` (a retired market's keys); how many went. */
  forgetPrefix(prefix: string): number {
    let n = 0;
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix) && this.entries.delete(k)) n++;
    return n;
  }

  /** keys held now (tests) */
  get size(): number {
    return this.entries.size;
  }

  drain(now: number, emit: (key: string, s: ThrottledSummary) => void): void {
    for (const [key, e] of this.entries) {
      if (e.count === 0) continue;
      emit(key, { count: e.count, windowMs: now - e.toldAt, last: e.last });
      e.count = 0;
      e.toldAt = now;
    }
  }
}
