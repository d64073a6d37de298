/**
 * A market's sampled mid history, oldest first and bounded: an immutable sequence whose copies share
 * one append-only buffer, so a new sample costs no copy of the history.
 *
 * Entry points: `MidHistory.EMPTY`, `h.push(sample, max)` → a new history (h is unchanged), and the
 * reads of `MidSeries` (src/strategy/types.ts): `length`, `at(i)`, iteration, as on an array.
 *
 * How: a history is a window [from, from + length) of a buffer that only ever grows at its end. A
 * push from the history that ends at the buffer's end appends in place: every history made before
 * it reads only entries below its own end, which never change, so an earlier snapshot stays as it
 * was. A push from any other history (one that was pushed from already: a fork) copies its window
 * into a new buffer, as does a push that finds the buffer full (the oldest samples are then dropped
 * from memory: one copy of `max` samples every SLACK pushes, instead of one at every push as the
 * plain array was; docs/performance.md, "The whole-capture backtest").
 *
 * The buffer is columns of numbers (times, mids, the volatility walk's increments) in arrays of
 * doubles of the bound plus a slack (a quarter of it), allocated whole at a market's first sample: a market's
 * history holds the same ~18 KB (600 samples) from then on, where an array of sample objects grew to
 * twice the bound (~75 KB) over the ~33 minutes it took to fill (docs/performance.md, "Memory over a
 * long run"). A sample read (`at`, iteration) is a new object of the stored numbers: equal samples,
 * not the objects pushed.
 */
import type { MidSample, MidSeries } from '../strategy/types.ts';
import { instantVariance } from '../strategy/volatility.ts';

/** samples a buffer holds beyond the bound: a copy of the window every this many pushes */
function slackOf(max: number): number {
  return Math.max(8, Math.ceil(max / 4));
}

/**
 * `cap` doubles in a JS array of double elements: a copy of one template per length (one allocation
 * and a copy of its memory, the elements already doubles). An ArrayBuffer per buffer cost ~4-9 µs
 * of the embedder's allocator and its collection (a backtest made ~240 a run: 0.7 % of its CPU).
 * Also the buffers of the pending prints (./pending-prints.ts).
 */
export function doublesOf(cap: number): number[] {
  let t = TEMPLATES.get(cap);
  if (t === undefined) {
    t = [];
    // pushed one by one: an array of packed double elements from the first (0.5 is no small integer)
    for (let i = 0; i < cap; i++) t.push(0.5);
    if (TEMPLATES.size >= 16) TEMPLATES.clear();
    TEMPLATES.set(cap, t);
  }
  return t.slice();
}
/**
 * doublesOf's templates, by length: one per configured history size, and the pending prints' buffers
 * (./pending-prints.ts: powers of two of slots, at most ~8 lengths); a handful at most, 16 before a clear.
 */
const TEMPLATES = new Map<number, number[]>();

/** A buffer of samples in columns: `n` of `cap` written, entries below `n` never written again. */
class Columns {
  readonly times: number[];
  readonly mids: number[];
  /**
   * the volatility walk's increment into each sample from the one before (src/strategy/volatility.ts
   * instantVariance), made once per sample instead of at every walk over it (-1 for a first sample;
   * a walk starts at its window's second sample, so a window's first entry is never read)
   */
  readonly inc: number[];
  n = 0;
  constructor(readonly cap: number) {
    // arrays of doubles on the heap (8 bytes an entry, as a Float64Array's): a market's history
    // makes a new buffer every slack pushes, and a young array is a bump of the allocation pointer
    this.times = doublesOf(cap);
    this.mids = doublesOf(cap);
    this.inc = doublesOf(cap);
  }

  append(ts: number, mid: number, inc: number): void {
    const i = this.n++;
    this.times[i] = ts;
    this.mids[i] = mid;
    this.inc[i] = inc;
  }
}

export class MidHistory implements MidSeries {
  static readonly EMPTY: MidHistory = new MidHistory(new Columns(0), 0, 0, -1, -1);

  /**
   * Where midAtOrBefore found its last two answers (indices into `buf`; -1: none), the newer first:
   * looked at before a search (two, as the reducer asks for two times a trend window apart at each
   * new mid). A cache, not state: every answer is the search's own (see midAtOrBefore); private (#), so no
   * comparison or copy of a history sees it.
   */
  #hint: number;
  #hint2 = -1;

  private constructor(
    /** append-only; entries below from + length are never written again */
    private readonly buf: Columns,
    private readonly from: number,
    readonly length: number,
    /**
     * the newest index of `buf` (below from + length) whose sample's time is not at or after the
     * one before it (a step back, a NaN), -1 for none: the window is in time order when it is at
     * most `from`
     */
    private readonly descent: number,
    hint: number,
  ) {
    this.#hint = hint;
  }

  /** A history of these samples (oldest first; copied). */
  static of(samples: readonly MidSample[]): MidHistory {
    if (samples.length === 0) return MidHistory.EMPTY;
    const buf = new Columns(samples.length);
    buf.append(samples[0]!.ts, samples[0]!.mid, -1);
    let descent = -1;
    for (let i = 1; i < samples.length; i++) {
      buf.append(samples[i]!.ts, samples[i]!.mid, instantVariance(samples[i - 1]!, samples[i]!));
      if (!(samples[i]!.ts >= samples[i - 1]!.ts)) descent = i;
    }
    return new MidHistory(buf, 0, samples.length, descent, -1);
  }

  /** the sample at buffer index k, as an object */
  private sampleAt(k: number): MidSample {
    return { ts: this.buf.times[k]!, mid: this.buf.mids[k]! };
  }

  /** The sample at `index` (a negative index counts back from the newest, as Array.prototype.at); undefined outside. */
  at(index: number): MidSample | undefined {
    const i = index < 0 ? this.length + index : index;
    return i >= 0 && i < this.length ? this.sampleAt(this.from + i) : undefined;
  }

  /**
   * The volatility walk's increment into the sample at `index` from the one before it
   * (instantVariance of the two), for 1 ≤ index < length; kept from the push.
   */
  incrementAt(index: number): number {
    return this.buf.inc[this.from + index]!;
  }

  /**
   * The volatility walk over this window (src/strategy/volatility.ts): the EWMA variance with decay
   * `lambda` of the increments into its second to last sample, -1 when none carried time
   * information. The walk's loop body, the same expression in the same order, so the same bits; one
   * loop over the increments' array instead of a call per sample (the walk runs at nearly every tick
   * of a market whose history is at its bound: its window slid).
   */
  ewmaVariance(lambda: number): number {
    const inc = this.buf.inc;
    const end = this.from + this.length;
    let variance = -1;
    for (let i = this.from + 1; i < end; i++) {
      const x = inc[i]!;
      if (x < 0) continue;
      variance = variance < 0 ? x : lambda * variance + (1 - lambda) * x;
    }
    return variance;
  }

  /**
   * The mid of the newest sample at or before `t`, else the oldest sample's; null when empty (what
   * src/state/edge-state.ts midAtOrBefore answers for any series: the same search, on the buffer).
   */
  midAtOrBefore(t: number): number | null {
    if (this.length === 0) return null;
    const times = this.buf.times;
    const mids = this.buf.mids;
    const from = this.from;
    // In time order, the search's answer is the newest sample at or before `t`: one of the last two
    // answers (or the sample after the newer) when it still is (the regime asks at each event and
    // view of a market, for times that move forward by less than a sample most times), else the
    // search as before.
    const ordered = this.descent <= from;
    if (ordered) {
      const end = from + this.length;
      const h = this.#hint;
      if (h >= from && h < end && times[h]! <= t) {
        if (h + 1 === end || times[h + 1]! > t) return mids[h]!;
        if (h + 2 === end || times[h + 2]! > t) {
          this.#hint = h + 1;
          return mids[h + 1]!;
        }
      }
      const h2 = this.#hint2;
      if (h2 >= from && h2 < end && times[h2]! <= t && (h2 + 1 === end || times[h2 + 1]! > t)) return mids[h2]!;
    }
    let lo = 0;
    let hi = this.length - 1;
    let ans = 0;
    while (lo <= hi) {
      const k = (lo + hi) >> 1;
      if (times[from + k]! <= t) {
        ans = k;
        lo = k + 1;
      } else hi = k - 1;
    }
    if (ordered) {
      this.#hint2 = this.#hint;
      this.#hint = from + ans;
    }
    return mids[from + ans]!;
  }

  /** The newest sample, undefined when empty. */
  last(): MidSample | undefined {
    return this.length === 0 ? undefined : this.sampleAt(this.from + this.length - 1);
  }

  /** The newest sample's time, NaN when empty (what the reducer asks at each book event, without an object). */
  lastTs(): number {
    return this.length === 0 ? Number.NaN : this.buf.times[this.from + this.length - 1]!;
  }

  /**
   * This history with `sample` appended, keeping at most `max` (≥ 1) of the newest: a new history;
   * this one is unchanged.
   */
  push(sample: MidSample, max: number): MidHistory {
    const keep = Math.min(this.length, Math.max(0, max - 1));
    const end = this.from + this.length;
    const buf = this.buf;
    const inc = this.length > 0 ? instantVariance(this.sampleAt(end - 1), sample) : -1;
    const back = this.length > 0 && !(sample.ts >= buf.times[end - 1]!);
    if (this.length > 0 && end === buf.n && end < buf.cap) {
      buf.append(sample.ts, sample.mid, inc);
      const next = new MidHistory(buf, end - keep, keep + 1, back ? end : this.descent, this.#hint);
      next.#hint2 = this.#hint2;
      return next;
    }
    const out = new Columns(Math.max(1, max) + slackOf(max));
    // the kept window copied entry by entry (no subarray view per column)
    const { times, mids, inc: incs } = buf;
    for (let i = 0, j = end - keep; i < keep; i++, j++) {
      out.times[i] = times[j]!;
      out.mids[i] = mids[j]!;
      out.inc[i] = incs[j]!;
    }
    out.n = keep;
    out.append(sample.ts, sample.mid, inc);
    // the kept window's step back, at its new index (one before the window: none that counts)
    const descent = back ? keep : Math.max(-1, this.descent - (end - keep));
    return new MidHistory(out, 0, keep + 1, descent, -1);
  }

  /** `next` is this history with exactly one sample appended: one longer, and the same samples (times and mids) before it. */
  isAppendedBy(next: MidSeries): boolean {
    if (next.length !== this.length + 1) return false;
    // the same buffer and start: the same entries below this one's end (they never change)
    if (next instanceof MidHistory && next.buf === this.buf && next.from === this.from) return true;
    const { times, mids } = this.buf;
    for (let i = 0; i < this.length; i++) {
      const s = next.at(i)!;
      if (!Object.is(s.ts, times[this.from + i]) || !Object.is(s.mid, mids[this.from + i])) return false;
    }
    return true;
  }

  toArray(): MidSample[] {
    const out = new Array<MidSample>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.sampleAt(this.from + i);
    return out;
  }

  toJSON(): MidSample[] {
    return this.toArray();
  }

  *[Symbol.iterator](): Iterator<MidSample> {
    for (let i = 0; i < this.length; i++) yield this.sampleAt(this.from + i);
  }
}
