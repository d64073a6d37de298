/**
 * The bot's side of a replay: what the feeds of a live bot would deliver, built from recorded rows
 * at the time the bot sees them (exchange time + feed latency). Keeps the bot's own copy of every
 * book and publishes it to the kernel as a book snapshot (top `depth` levels, YES view), conflated
 * to at most one per `publishMs` per market with a leading and a trailing edge — the cadence at which
 * the kernel ticks anyway — so the hot path stays at a few nanoseconds per row. Trades, oracle
 * updates and market metadata are passed on as they come. Markets the bot does not quote are skipped.
 *
 * The bot's copy of a book is the exchange's book rewound to the feed's cursor where the run allows
 * it (`shared`, src/backtest/book-rewind.ts: one book of the recorded rows per market instead of
 * two); a market that does not (its drop copy, a CLEAR row, a feed without the exchange's books)
 * keeps a book of its own here, written row by row.
 *
 * A market recorded with the venue's drop copy (`exact`) shows the bot what the venue's stream
 * showed the recorded bot, with the simulated bot in its place: the others' book (XLEVEL / XCLEAR
 * rows) plus the simulated bot's own resting orders (`own`, reported by the sim exchange and
 * delayed like the feed), instead of the recorded stream's book, which carries the recorded bot's
 * quotes. Its recorded trades still reach the bot as they came. Such a book is published once per
 * instant of virtual time rather than conflated to `publishMs`: the live stream hands the bot every
 * change, and the kernel's own throttle decides when it ticks.
 */
import { KnownLevels, L2Book } from '../core/l2-book.ts';
import type { BookLevel, BookSnapshot } from '../model/book.ts';
import type { Bytes32 } from '../model/order.ts';
import type { MarketStatus } from '../strategy/types.ts';
import type { StateEvent } from '../state/events.ts';
import { KIND_CLEAR, KIND_LEVEL, KIND_TRADE, KIND_XCLEAR, KIND_XLEVEL, type Columns } from './recording/columns.ts';
import { replayMarketId } from './recording/format.ts';
import type { SideEvent } from './replay-source.ts';
import type { VirtualClock } from './virtual-clock.ts';
import type { BookRewind } from './book-rewind.ts';
import { payoutOfOutcome } from '../feeds/market-feed.ts';

export interface ReplayFeedOptions {
  readonly cols: Columns;
  /** book grid per column market (price units) */
  readonly bookTicks: readonly number[];
  readonly clock: VirtualClock;
  /** column indices of the markets the bot quotes */
  readonly quoted: ReadonlySet<number>;
  readonly publishMs: number;
  readonly depth: number;
  readonly dispatch: (e: StateEvent) => void;
  /** per column market: 1 when it is replayed from the venue's drop copy (SimExchange.exact) */
  readonly exact?: Uint8Array;
  /**
   * The exchange's books and their rewind (src/backtest/book-rewind.ts), with `shared`: per column
   * market, 1 when the feed shows the exchange's book rewound to its cursor instead of a copy of its
   * own (sharedMarkets). The replay then hands the feed every row in order (row, skipSilent).
   */
  readonly rewind?: { readonly log: BookRewind; readonly books: readonly L2Book[]; readonly shared: Uint8Array };
}

export class ReplayFeed {
  private readonly books: L2Book[];
  /** per market, 1 when books[m] is the exchange's book, read rewound (no row is written into it here) */
  private readonly shared: Uint8Array;
  private readonly rw: BookRewind | null;
  /** the simulated bot's own resting size per level, for drop-copy markets */
  private readonly ownBooks: L2Book[];
  private readonly exact: Uint8Array;
  private readonly dirty: Uint8Array;
  private readonly lastPublish: Float64Array;
  /**
   * per market, the row whose venue time its next publication shows (the last row of it this feed
   * reached, drop-copy rows of a market replayed from its public stream aside), -1 before any: the row,
   * not its venue time, so a pass over silent rows does not read the venue-time column (venueTs)
   */
  private readonly lastRow: Int32Array;
  private readonly quoted: Uint8Array;
  /** per market, the levels of its last publication (the next one shares what did not change: L2Book.levelsSince) */
  private readonly lastBids: BookLevel[][];
  private readonly lastAsks: BookLevel[][];
  /** their prices and sizes, kept beside them (L2Book.levelsSinceKnown reads these, not the level objects) */
  private readonly knownBids: KnownLevels[];
  private readonly knownAsks: KnownLevels[];
  /**
   * per market and side (2m: bids, 2m + 1: asks), 1 when a row wrote that side of the bot's book
   * since the market's last publication: an unwritten side publishes its last levels as they are
   * (what L2Book.levelsSince would hand back) without walking the book
   */
  private readonly sideDirty: Uint8Array;
  /** per market, 1 while its trailing publication is scheduled */
  private readonly trailing: Uint8Array;
  /** per market, when its scheduled trailing publication is due */
  private readonly trailingAt: Float64Array;
  /** the earliest of them (nextPublication), found again when it ran (NaN) */
  private nextTrailing = Infinity;
  /** set by stop(): a trailing publication still scheduled then does nothing */
  private stopped = false;
  /** per market, the trailing publication's timer callback, made once (not a closure per timer) */
  private readonly fire: (() => void)[];
  private seq = 0;
  /** each market's id as the replayed bot knows it (recording/format.ts replayMarketId), made once */
  private readonly ids: Bytes32[];
  /**
   * Set when a timer that ran was this feed's trailing publication (the replay loop clears it before
   * each timer): such a timer leaves no promise of its own behind, only the tick it may cause does.
   */
  trailingRan = false;

  constructor(private readonly o: ReplayFeedOptions) {
    const n = o.cols.markets.length;
    this.ids = o.cols.markets.map(replayMarketId);
    this.shared = o.rewind?.shared ?? new Uint8Array(n);
    this.rw = o.rewind?.log ?? null;
    this.books = o.cols.markets.map((_, i) => (this.shared[i] === 1 ? o.rewind!.books[i]! : new L2Book({ tick: o.bookTicks[i]! })));
    this.ownBooks = o.cols.markets.map((_, i) => new L2Book({ tick: o.bookTicks[i]! }));
    this.exact = o.exact ?? new Uint8Array(n);
    this.dirty = new Uint8Array(n);
    this.sideDirty = new Uint8Array(2 * n).fill(1);
    this.lastPublish = new Float64Array(n).fill(-Infinity);
    this.lastRow = new Int32Array(n).fill(-1);
    this.quoted = new Uint8Array(n);
    for (const m of o.quoted) this.quoted[m] = 1;
    this.lastBids = o.cols.markets.map(() => []);
    this.lastAsks = o.cols.markets.map(() => []);
    // (room for the publication's depth: the config allows at most 100; a deeper one walks as levelsSince)
    const room = Math.min(o.depth, 1024);
    this.knownBids = o.cols.markets.map(() => new KnownLevels(room));
    this.knownAsks = o.cols.markets.map(() => new KnownLevels(room));
    this.trailing = new Uint8Array(n);
    this.trailingAt = new Float64Array(n);
    this.fire = o.cols.markets.map((_, m) => () => {
      if (this.stopped) return;
      this.trailingRan = true;
      this.trailing[m] = 0;
      if (!(this.trailingAt[m]! > this.nextTrailing)) this.nextTrailing = NaN;
      if (this.dirty[m]) this.publish(m);
    });
  }

  /** Recorded row r reaches the bot now. */
  row(r: number): void {
    // the rows up to this one are in the books this feed shows (a publication below rewinds to here)
    if (this.rw !== null) this.rw.floor++;
    const c = this.o.cols;
    const m = c.market[r]!;
    if (!this.quoted[m]) return;
    let k = c.kind[r]!;
    // a drop-copy market: the others' book replaces the stream's (which carries the recorded bot's quotes)
    if (this.exact[m] === 1 && k !== KIND_TRADE) k = k === KIND_XLEVEL ? KIND_LEVEL : k === KIND_XCLEAR ? KIND_CLEAR : -1;
    else if (k === KIND_XLEVEL || k === KIND_XCLEAR) return;
    if (k < 0) return;
    this.lastRow[m] = r;
    if (k === KIND_LEVEL) {
      const book = this.books[m]!;
      const sd = c.side[r] === 0 ? 0 : 1;
      // a level the book cannot hold (off-grid): the live stream parser would drop it too (-1 from a
      // write; a shared book holds the row already, written by the exchange)
      if (this.shared[m] === 1) {
        if (!book.accepts(c.price[r]!, c.size[r]!)) return;
      } else if ((sd === 0 ? book.setBid(c.price[r]!, c.size[r]!) : book.setAsk(c.price[r]!, c.size[r]!)) < 0) return;
      this.sideDirty[2 * m + sd] = 1;
      this.markBook(m);
    } else if (k === KIND_CLEAR) {
      // (a shared market has no CLEAR row: sharedMarkets)
      this.books[m]!.clear();
      this.sideDirty[2 * m] = 1;
      this.sideDirty[2 * m + 1] = 1;
      this.markBook(m);
    } else if (k === KIND_TRADE) {
      const t = this.o.clock.now();
      this.o.dispatch({
        type: 'BookEventReceived',
        event: {
          type: 'trade',
          marketId: this.ids[m]!,
          outcomeIndex: 1,
          seq: ++this.seq,
          price: c.price[r]!,
          size: c.size[r]!,
          takerSide: c.side[r] === 0 ? 'buy' : 'sell',
          venueTs: c.vts[r]!,
          localTs: t,
        },
        ts: t,
      });
    }
  }

  /**
   * Consume rows[j], rows[j + 1], … while each is silent, and return the index of the first row not
   * consumed: a row the bot sees only through a later publication of its market, whose time at the
   * bot (lts + `delay`, a constant feed delay) is before `before`. Silent: a row of a market the bot
   * does not quote, a drop-copy row of a market replayed from its public stream, a top-of-book or
   * taker row (the market's last venue time only), and a level or clear of a market whose trailing
   * publication is already scheduled (this.trailing: the row only changes the book that publication
   * will show). Not silent: a trade (dispatched at once), a level or clear that publishes or
   * schedules, and every row of a drop-copy market (the bot's own orders join its book at times of
   * their own). So with `before` at most the earliest trailing publication due (nextPublication),
   * consuming a silent row ahead of the exchange's rows, the side events, the other timers and the
   * drains of earlier times changes nothing any of them reads, and every publication shows exactly
   * the rows due before it, as row() one by one would.
   */
  skipSilent(rows: Uint32Array, j: number, end: number, delay: number, before: number): number {
    const c = this.o.cols;
    const { market, kind, lts, side } = c;
    let last = -Infinity;
    for (; j < end; j++) {
      const r = rows[j]!;
      const t = lts[r]! + delay;
      // (rows are in time order; one that is not stops the pass, as does NaN)
      if (!(t < before && t >= last)) break;
      last = t;
      const m = market[r]!;
      if (this.quoted[m] !== 1) continue;
      if (this.exact[m] === 1) break;
      const k = kind[r]!;
      if (k === KIND_XLEVEL || k === KIND_XCLEAR) continue;
      if (k === KIND_TRADE) break;
      if (k === KIND_LEVEL || k === KIND_CLEAR) {
        if (this.trailing[m] !== 1) break;
        this.lastRow[m] = r;
        if (this.shared[m] === 1) {
          // the exchange's book holds the row (a publication rewinds to this feed's cursor)
          this.sideDirty[2 * m + (side[r] === 0 ? 0 : 1)] = 1;
        } else if (k === KIND_CLEAR) {
          this.books[m]!.clear();
          this.sideDirty[2 * m] = 1;
          this.sideDirty[2 * m + 1] = 1;
        } else if (side[r] === 0) {
          this.books[m]!.setBid(c.price[r]!, c.size[r]!);
          this.sideDirty[2 * m] = 1;
        } else {
          this.books[m]!.setAsk(c.price[r]!, c.size[r]!);
          this.sideDirty[2 * m + 1] = 1;
        }
        // (dirty is set already: a scheduled trailing publication has it set until it publishes)
        continue;
      }
      this.lastRow[m] = r;
    }
    if (this.rw !== null) this.rw.floor = j;
    return j;
  }

  /** The simulated bot's resting size at a level of a drop-copy market, as the bot's feed reports it now. */
  own(m: number, side: 'bid' | 'ask', price: number, size: number): void {
    if (!this.quoted[m] || this.exact[m] !== 1) return;
    try {
      this.ownBooks[m]!.applyLevel(side, price, size);
    } catch {
      return; // a price the book grid cannot hold: the sim exchange refused such an order already
    }
    this.markBook(m);
  }

  /** A recorded oracle update or metadata snapshot reaches the bot now. */
  side(e: SideEvent): void {
    const t = this.o.clock.now();
    if (e.t === 'oracle')
      this.o.dispatch({
        type: 'OracleUpdated',
        marketId: replayMarketId(e.m),
        probability: e.probability / 1e6,
        confidence: confidenceOf(e.confidence),
        updatedAt: e.vts,
        ts: t,
      });
    else this.o.dispatch({ type: 'MarketMetadataUpdated', marketId: replayMarketId(e.m), ...metaOf(e.meta), ts: t });
  }

  /** The venue time market m's next publication shows: its last row's (0 before any). */
  venueTs(m: number): number {
    const r = this.lastRow[m]!;
    return r < 0 ? 0 : this.o.cols.vts[r]!;
  }

  /** Cancel pending trailing publications (end of the run). */
  stop(): void {
    this.stopped = true;
    this.trailing.fill(0);
    this.nextTrailing = Infinity;
  }

  /**
   * When the earliest scheduled trailing publication is due (Infinity when none). Until then no
   * publication reads a book a silent row changes (skipSilent): the bot's other timers read the
   * bot's store, not these books, and a market's next publication is either this timer or comes
   * from a row that is not silent.
   */
  nextPublication(): number {
    let t = this.nextTrailing;
    if (t !== t) {
      t = Infinity;
      for (let m = 0; m < this.trailing.length; m++) if (this.trailing[m] === 1 && this.trailingAt[m]! < t) t = this.trailingAt[m]!;
      this.nextTrailing = t;
    }
    return t;
  }

  private scheduleTrailing(m: number, wait: number): void {
    const at = this.o.clock.now() + Math.max(0, wait);
    this.trailing[m] = 1;
    this.trailingAt[m] = at;
    if (at < this.nextTrailing) this.nextTrailing = at;
    this.o.clock.schedule(this.fire[m]!, wait);
  }

  private markBook(m: number): void {
    this.dirty[m] = 1;
    if (this.trailing[m] === 1) return;
    if (this.exact[m] === 1) {
      // as the venue's stream: every change reaches the bot (the kernel throttles its own ticks), once
      // per instant — a timer due now runs after the rows and reports of this instant already queued
      this.scheduleTrailing(m, 0);
      return;
    }
    const wait = this.lastPublish[m]! + this.o.publishMs - this.o.clock.now();
    if (wait <= 0) this.publish(m);
    else this.scheduleTrailing(m, wait);
  }

  private publish(m: number): void {
    const now = this.o.clock.now();
    this.dirty[m] = 0;
    this.lastPublish[m] = now;
    const b = this.books[m]!;
    const seq = ++this.seq;
    const d = this.o.depth;
    const mine = this.exact[m] === 1 ? this.ownBooks[m]! : null;
    const dirty = this.sideDirty;
    // a shared book: the exchange's, rewound to the rows this feed has reached, then put back
    const rw = this.shared[m] === 1 && (dirty[2 * m] === 1 || dirty[2 * m + 1] === 1) ? this.rw : null;
    if (rw !== null) rw.rewind(m, b);
    const bids =
      mine !== null
        ? mergeLevels(b.levels('bid', d), mine.levels('bid', d), 'bid', d)
        : dirty[2 * m] === 1
          ? (this.lastBids[m] = b.levelsSinceKnown('bid', d, this.lastBids[m]!, this.knownBids[m]!))
          : this.lastBids[m]!;
    const asks =
      mine !== null
        ? mergeLevels(b.levels('ask', d), mine.levels('ask', d), 'ask', d)
        : dirty[2 * m + 1] === 1
          ? (this.lastAsks[m] = b.levelsSinceKnown('ask', d, this.lastAsks[m]!, this.knownAsks[m]!))
          : this.lastAsks[m]!;
    if (rw !== null) rw.restore();
    dirty[2 * m] = 0;
    dirty[2 * m + 1] = 0;
    // without the drop copy the bot's own orders are not in the book it sees (src/strategy/others-book.ts)
    const book: BookSnapshot = {
      marketId: this.ids[m]!,
      outcomeIndex: 1,
      bids,
      asks,
      venueTs: this.venueTs(m),
      seq,
      withoutOwn: mine === null,
    };
    this.o.dispatch({ type: 'BookEventReceived', event: { type: 'snapshot', book, seq, localTs: now, source: 'stream' }, ts: now });
  }
}

/** Two books' levels (best first) summed price by price, best first, at most `depth`. */
export function mergeLevels(a: readonly BookLevel[], b: readonly BookLevel[], side: 'bid' | 'ask', depth: number): BookLevel[] {
  if (b.length === 0) return a as BookLevel[];
  const out: BookLevel[] = [];
  let i = 0;
  let j = 0;
  const first = (x: number, y: number): boolean => (side === 'bid' ? x > y : x < y);
  while (out.length < depth && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && first(x.price, y.price))) out.push(x!), i++;
    else if (x === undefined || first(y.price, x.price)) out.push(y), j++;
    else out.push({ price: x.price, size: x.size + y.size }), i++, j++;
  }
  return out;
}

/** An oracle confidence label or number → [0, 1]. */
export function confidenceOf(c: string | null): number {
  if (c === null) return 0;
  const n = Number(c);
  if (Number.isFinite(n)) return Math.min(1, Math.max(0, n));
  return c === 'high' ? 0.9 : c === 'medium' ? 0.6 : c === 'low' ? 0.3 : 0;
}

/**
 * The recorded market metadata fields the store understands (others are ignored): status, deadline
 * and, once resolved with a winning outcome (the venue's `outcome`: 1 = YES, 0 = NO), the payout of
 * a YES share, as the live market poll reads it (src/feeds/market-feed.ts payoutOfOutcome).
 */
export function metaOf(meta: Record<string, unknown>): { status?: MarketStatus; deadline?: number | null; payoutYes?: number } {
  const out: { status?: MarketStatus; deadline?: number | null; payoutYes?: number } = {};
  const st = meta.status;
  if (st === 'active' || st === 'pending' || st === 'resolved' || st === 'closed') out.status = st;
  const d = meta.deadline;
  if (typeof d === 'number' && Number.isFinite(d)) out.deadline = d;
  else if (typeof d === 'string' && Number.isFinite(Date.parse(d))) out.deadline = Date.parse(d);
  const payoutYes = payoutOfOutcome(st, meta.outcome);
  if (payoutYes !== null) out.payoutYes = payoutYes;
  return out;
}

/** A recorded side event's resolution: what one YES share pays (1e-6 USDC), null when it is none (metaOf). */
export function resolutionOf(e: SideEvent): number | null {
  return e.t === 'market' ? payoutOfOutcome(e.meta.status, e.meta.outcome) : null;
}
