/**
 * The bot's side of a replay: what the feeds of a live bot would deliver, built from recorded rows
 * at the time the bot sees them (exchange time + feed latency). Keeps the bot's own copy of every
 * book and publishes it to the kernel as a book snapshot (top `depth` levels, YES view), conflated
 * to at most one per `publishMs` per market with a leading and a trailing edge — the cadence at which
 * the kernel ticks anyway — so the hot path stays at a few nanoseconds per row. Trades, oracle
 * updates and market metadata are passed on as they come. Markets the bot does not quote are skipped.
 */
import { L2Book } from '../core/l2-book.ts';
import type { Clock } from '../core/clock.ts';
import type { BookSnapshot } from '../model/book.ts';
import type { Bytes32 } from '../model/order.ts';
import type { MarketStatus } from '../strategy/types.ts';
import type { StateEvent } from '../state/events.ts';
import { KIND_CLEAR, KIND_LEVEL, KIND_TRADE, type Columns } from './recording/columns.ts';
import type { SideEvent } from './replay-source.ts';

export interface ReplayFeedOptions {
  readonly cols: Columns;
  /** book grid per column market (price units) */
  readonly bookTicks: readonly number[];
  readonly clock: Clock;
  /** column indices of the markets the bot quotes */
  readonly quoted: ReadonlySet<number>;
  readonly publishMs: number;
  readonly depth: number;
  readonly dispatch: (e: StateEvent) => void;
}

export class ReplayFeed {
  private readonly books: L2Book[];
  private readonly dirty: Uint8Array;
  private readonly lastPublish: Float64Array;
  private readonly lastVts: Float64Array;
  private readonly quoted: Uint8Array;
  private readonly trailing: ((() => void) | null)[];
  private seq = 0;

  constructor(private readonly o: ReplayFeedOptions) {
    const n = o.cols.markets.length;
    this.books = o.cols.markets.map((_, i) => new L2Book({ tick: o.bookTicks[i]! }));
    this.dirty = new Uint8Array(n);
    this.lastPublish = new Float64Array(n).fill(-Infinity);
    this.lastVts = new Float64Array(n);
    this.quoted = new Uint8Array(n);
    for (const m of o.quoted) this.quoted[m] = 1;
    this.trailing = o.cols.markets.map(() => null);
  }

  /** Recorded row r reaches the bot now. */
  row(r: number): void {
    const c = this.o.cols;
    const m = c.market[r]!;
    if (!this.quoted[m]) return;
    const k = c.kind[r]!;
    this.lastVts[m] = c.vts[r]!;
    if (k === KIND_LEVEL) {
      try {
        if (c.side[r] === 0) this.books[m]!.applyBid(c.price[r]!, c.size[r]!);
        else this.books[m]!.applyAsk(c.price[r]!, c.size[r]!);
      } catch {
        return; // a level the book cannot hold (off-grid): the live stream parser would drop it too
      }
      this.markBook(m);
    } else if (k === KIND_CLEAR) {
      this.books[m]!.clear();
      this.markBook(m);
    } else if (k === KIND_TRADE) {
      const t = this.o.clock.now();
      this.o.dispatch({
        type: 'BookEventReceived',
        event: { type: 'trade', marketId: c.markets[m] as Bytes32, outcomeIndex: 1, seq: ++this.seq, price: c.price[r]!, size: c.size[r]!, takerSide: c.side[r] === 0 ? 'buy' : 'sell', venueTs: c.vts[r]!, localTs: t },
        ts: t,
      });
    }
  }

  /** A recorded oracle update or metadata snapshot reaches the bot now. */
  side(e: SideEvent): void {
    const t = this.o.clock.now();
    if (e.t === 'oracle') this.o.dispatch({ type: 'OracleUpdated', marketId: e.m as Bytes32, probability: e.probability / 1e6, confidence: confidenceOf(e.confidence), updatedAt: e.vts, ts: t });
    else this.o.dispatch({ type: 'MarketMetadataUpdated', marketId: e.m as Bytes32, ...metaOf(e.meta), ts: t });
  }

  /** Cancel pending trailing publications (end of the run). */
  stop(): void {
    for (let m = 0; m < this.trailing.length; m++) {
      this.trailing[m]?.();
      this.trailing[m] = null;
    }
  }

  private markBook(m: number): void {
    this.dirty[m] = 1;
    if (this.trailing[m]) return;
    const wait = this.lastPublish[m]! + this.o.publishMs - this.o.clock.now();
    if (wait <= 0) this.publish(m);
    else
      this.trailing[m] = this.o.clock.setTimeout(() => {
        this.trailing[m] = null;
        if (this.dirty[m]) this.publish(m);
      }, wait);
  }

  private publish(m: number): void {
    const now = this.o.clock.now();
    this.dirty[m] = 0;
    this.lastPublish[m] = now;
    const b = this.books[m]!;
    const seq = ++this.seq;
    const book: BookSnapshot = { marketId: this.o.cols.markets[m] as Bytes32, outcomeIndex: 1, bids: b.levels('bid', this.o.depth), asks: b.levels('ask', this.o.depth), venueTs: this.lastVts[m]!, seq };
    this.o.dispatch({ type: 'BookEventReceived', event: { type: 'snapshot', book, seq, localTs: now, source: 'stream' }, ts: now });
  }
}

/** An oracle confidence label or number → [0, 1]. */
export function confidenceOf(c: string | null): number {
  if (c === null) return 0;
  const n = Number(c);
  if (Number.isFinite(n)) return Math.min(1, Math.max(0, n));
  return c === 'high' ? 0.9 : c === 'medium' ? 0.6 : c === 'low' ? 0.3 : 0;
}

/** The recorded market metadata fields the store understands (others are ignored). */
export function metaOf(meta: Record<string, unknown>): { status?: MarketStatus; deadline?: number | null } {
  const out: { status?: MarketStatus; deadline?: number | null } = {};
  const st = meta.status;
  if (st === 'active' || st === 'pending' || st === 'resolved' || st === 'closed') out.status = st;
  const d = meta.deadline;
  if (typeof d === 'number' && Number.isFinite(d)) out.deadline = d;
  else if (typeof d === 'string' && Number.isFinite(Date.parse(d))) out.deadline = Date.parse(d);
  return out;
}
