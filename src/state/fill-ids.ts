/**
 * A market's recent fill ids, for the store's de-duplication (src/state/reduce.ts): an immutable
 * window of the newest ids whose copies share one append-only log, so a fill costs no copy of the
 * window, and a lookup one probe of a hash table instead of a walk over every id.
 *
 * Entry points: `FillIds.EMPTY`, `ids.has(id)`, `ids.push(id, max, ts)` → a new window of at most `max`
 * (ids is unchanged), `length`, `toArray()` (oldest first).
 *
 * What the window must cover: a fill a feed delivers again. The own-orders feed (the live source of
 * fills, src/feeds/own-orders-feed.ts) reports a fill only when an order's filled size grows past what
 * it holds for that order (open orders, and the newest MAX_CLOSED closed ones); it re-delivers an id
 * only for an order it has forgotten and reads again, and it reads again only orders inserted within a
 * recent-orders window (at most RECENT_MAX_S, 600 s, after reads failed that long), a lookup or an
 * ended-orders page of orders it still owes. So an id comes again within about ten minutes of the
 * first time, by the fills' own times (`ts`: the poll's clock). The window keeps the ids of the last
 * FILL_ID_HORIZON_MS (15 min) by the newest pushed fill's time, never fewer than the newest
 * FILL_IDS_KEPT whatever their age, and never more than `max` (the count cap, a backstop: 2,048 by
 * default, src/state/reduce.ts). It kept 2,048 ids a market before, whatever their age: ~4–8 hours of
 * fills at soak-memory's rates, ~130 KB a busy market once full (docs/performance.md, "Memory over a
 * long run"). An id pushed again after the window let it go is a new fill (reduce counts it):
 * the ledger's unique fill id is the durable guard.
 *
 * How (as src/state/mid-history.ts): a window is [from, from + length) of a log that only ever grows
 * at its end. A push from the window that ends at the log's end appends in place: every window made
 * before it reads only entries below its own end, which never change, so an earlier state stays as
 * it was. A push from any other window (a fork) copies the window into a new log, as does a push that
 * finds the log's dead entries (below the window) more than a quarter of the window (and 8), or the log
 * at its bound (the bound plus a quarter): one copy of the window every quarter of it pushes, where
 * the array copied up to `max` ids at every fill. The new log is as large as the old one when that
 * holds the window and its room, so a log's size follows its window's, reached when the window is. The log's hash table holds every
 * entry below its end; a lookup takes the entries of its window only. The log grows by doubling as
 * ids arrive, so a market with few fills holds few.
 *
 * The ids are kept as numbers where their form allows (src/core/fill-id-slots.ts): the array held
 * each id's string, ~100 bytes of heap, for as long as the market had fewer than `max` newer fills.
 */
import { FillIdSlots, fillIdHash, parseFillId, tableSize } from '../core/fill-id-slots.ts';
import { probeLink } from '../core/probe-table.ts';

/** how far back, by the fills' times (ms), a window keeps ids: beyond a feed's re-delivery (above) */
export const FILL_ID_HORIZON_MS = 15 * 60_000;
/** the newest ids a window keeps whatever their age (a quiet market's last fills) */
export const FILL_IDS_KEPT = 128;

/** ids a log holds beyond the bound: a copy of the window every this many pushes */
function slackOf(max: number): number {
  return Math.max(8, Math.ceil(max / 4));
}

/** An append-only log of ids: entries below `n` are never written again. */
class Log {
  readonly slots: FillIdSlots;
  /** each entry's fill time, ms (the window's age bound reads it) */
  ts: Float64Array;
  n = 0;
  /** entry + 1 per cell, 0: empty; every entry below n (none is ever taken out) */
  private table: Int32Array;
  private mask: number;

  constructor(
    cap: number,
    /** the most entries it grows to */
    readonly most: number,
  ) {
    this.slots = new FillIdSlots(cap);
    this.ts = new Float64Array(cap);
    this.table = new Int32Array(tableSize(cap));
    this.mask = this.table.length - 1;
  }

  /** Append an id (parsed just now: `canonical`, hash `h`) filled at `ts`; the log has room (n < most). */
  append(id: string, canonical: boolean, h: number, ts: number): void {
    if (this.n === this.slots.capacity) this.grow();
    const s = this.n++;
    this.slots.write(s, id, canonical, h);
    this.ts[s] = ts;
    this.link(s, h);
  }

  /** Is `id` an entry in [from, end)? */
  holds(id: string, canonical: boolean, h: number, from: number, end: number): boolean {
    const table = this.table;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const e = table[i]!;
      if (e === 0) return false;
      const s = e - 1;
      if (s >= from && s < end && this.slots.matches(s, id, canonical, h)) return true;
    }
  }

  /** Append entry s of `src` (the log has room). */
  appendFrom(src: Log, s: number): void {
    if (this.n === this.slots.capacity) this.grow();
    const t = this.n++;
    this.slots.copyFrom(src.slots, s, t);
    this.ts[t] = src.ts[s]!;
    this.link(t, src.slots.hash(s));
  }

  private link(s: number, h: number): void {
    probeLink(this.table, this.mask, s, h);
  }

  private grow(): void {
    const n = Math.min(this.most, Math.max(8, this.slots.capacity * 2));
    this.slots.grow(n);
    const ts = new Float64Array(n);
    ts.set(this.ts);
    this.ts = ts;
    this.table = new Int32Array(tableSize(n));
    this.mask = this.table.length - 1;
    for (let s = 0; s < this.n; s++) this.link(s, this.slots.hash(s));
  }
}

export class FillIds {
  static readonly EMPTY: FillIds = new FillIds(new Log(0, 0), 0, 0);

  private constructor(
    /** append-only; entries below from + length are never written again */
    private readonly log: Log,
    private readonly from: number,
    readonly length: number,
  ) {}

  /** A window of these ids (oldest first, filled at `ts`), at most `max`. */
  static of(ids: readonly string[], max: number, ts = 0): FillIds {
    let out = FillIds.EMPTY;
    for (const id of ids) out = out.push(id, max, ts);
    return out;
  }

  has(id: string): boolean {
    if (this.length === 0) return false;
    const canonical = parseFillId(id);
    return this.log.holds(id, canonical, fillIdHash(id, canonical), this.from, this.from + this.length);
  }

  /**
   * This window with `id` (filled at `ts`, ms) appended: a new window (this one is unchanged) of the
   * newest ids, at most `max` (≥ 1), without those older than FILL_ID_HORIZON_MS before `ts` beyond
   * the newest FILL_IDS_KEPT (counted from the oldest: a late fill's older time keeps ids, never drops one).
   */
  push(id: string, max: number, ts: number): FillIds {
    let keep = Math.min(this.length, Math.max(0, max - 1));
    const end = this.from + this.length;
    const log = this.log;
    const before = ts - FILL_ID_HORIZON_MS;
    while (keep >= FILL_IDS_KEPT && log.ts[end - keep]! < before) keep--;
    const canonical = parseFillId(id);
    const h = fillIdHash(id, canonical);
    // in place while the log's dead entries (below the window) are at most a quarter of the window
    // (and 8): a window the age bound keeps small holds a log of ~1.25 times it, whose size is reached
    // once the window is (in the first 15-20 minutes of a busy market, not over the next hour)
    const room = ((keep + 1) >> 2) + 8;
    if (end === log.n && end < log.most && end - keep <= room) {
      log.append(id, canonical, h, ts);
      return new FillIds(log, end - keep, keep + 1);
    }
    const most = Math.max(1, max) + slackOf(max);
    // the new log as large as the old one when that holds the window and its room: no step down and up again
    const out = new Log(Math.min(most, Math.max(8, keep + 1 + room, log.slots.capacity)), most);
    // (copying reads no id: the scratch still holds the new id's parts)
    for (let s = end - keep; s < end; s++) out.appendFrom(log, s);
    out.append(id, canonical, h, ts);
    return new FillIds(out, 0, keep + 1);
  }

  /** The ids, oldest first (tests, a state's JSON). */
  toArray(): string[] {
    const out = new Array<string>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.log.slots.idAt(this.from + i);
    return out;
  }

  toJSON(): string[] {
    return this.toArray();
  }
}
