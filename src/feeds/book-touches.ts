/**
 * What the book streams tell the own-orders poll (./own-orders-feed.ts) about where a resting order
 * of ours may have filled since its last read. A fill of a resting order is a match at the venue, and
 * the stream prints every match as a trade at the resting order's price
 * (docs/venue.md#order-book-streaming), so a market whose trades since the last read did not reach
 * the price of any order we rest there had no fill of ours. `see` records, per market, how far the
 * trades reached on each side of the YES-terms book: the lowest price a taker sold at (a bid at or
 * above it may have been hit) and the highest a taker bought at (an ask at or below it). A snapshot
 * (a connection or reconnection, a resync after a gap in the stream's `seq`, a book read by polling
 * where the market does not stream) says nothing about the trades in between: it marks the whole
 * market.
 *
 *   const t = new BookTouches();
 *   t.see(bookEvent);                // every book event of the streams
 *   t.markAll(marketId);             // an order of ours there found gone: read the market next poll
 *   const marks = t.take();          // per market since the last take; putBack(marks) if the read failed
 *   reaches(marks.get(id)!, order)   // may this order have filled?
 */
import type { OutcomeIndex, SideValue } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import { ONE } from '../model/units.ts';

/** One market's marks since the last take (YES terms). */
export interface Touch {
  /** the lowest price a taker sold at (Infinity: none) */
  bidLow: number;
  /** the highest price a taker bought at (-Infinity: none) */
  askHigh: number;
  /** a snapshot: any order of the market may have filled */
  all: boolean;
}

/** The fields of an order (the venue's or the bot's) that say where it rests. */
export interface RestingAt {
  readonly outcomeIndex: OutcomeIndex;
  readonly side: SideValue;
  readonly price: number;
}

/** May a trade recorded in `t` have filled `o`? (side 0 = buy; a NO order rests at 1e6 − price in YES terms) */
export function reaches(t: Touch, o: RestingAt): boolean {
  if (t.all) return true;
  const yesBid = (o.outcomeIndex === 1) === (o.side === 0);
  const yesPrice = o.outcomeIndex === 1 ? o.price : ONE - o.price;
  return yesBid ? yesPrice >= t.bidLow : yesPrice <= t.askHigh;
}

/** Mark a whole market in marks a poll has taken (it reads the market after all). */
export function markWhole(marks: Map<string, Touch>, marketId: string): void {
  const t = marks.get(marketId);
  if (t) t.all = true;
  else marks.set(marketId, { bidLow: Infinity, askHigh: -Infinity, all: true });
}

export class BookTouches {
  private marks = new Map<string, Touch>();

  /** A book event of a market's stream. Deltas and the connection's statuses mark nothing. */
  see(ev: BookEvent): void {
    if (ev.type === 'trade') {
      const t = this.mark(ev.marketId);
      // a NO-view trade in YES terms: the price mirrored, the taker on the other side
      const yesPrice = ev.outcomeIndex === 1 ? ev.price : ONE - ev.price;
      const yesSell = (ev.outcomeIndex === 1) === (ev.takerSide === 'sell');
      if (yesSell) t.bidLow = Math.min(t.bidLow, yesPrice);
      else t.askHigh = Math.max(t.askHigh, yesPrice);
    } else if (ev.type === 'snapshot') {
      this.mark(ev.book.marketId).all = true;
    }
  }

  /**
   * An order of ours in the market ended without our cancel being answered (a reconcile found it
   * gone, a cancel was refused): the next poll reads the market, so the order's last fills and its
   * end are seen then, not only when the sweep of the whole list comes round to it. An order whose
   * cancel was answered waits in ./parked-cancels.ts instead.
   */
  markAll(marketId: string): void {
    this.mark(marketId).all = true;
  }

  /** Every market's marks since the last take; they are then cleared. */
  take(): Map<string, Touch> {
    const out = this.marks;
    this.marks = new Map();
    return out;
  }

  /** Marks taken by a read that failed: they count again, with anything seen since. */
  putBack(taken: ReadonlyMap<string, Touch>): void {
    for (const [k, v] of taken) {
      const t = this.mark(k);
      t.bidLow = Math.min(t.bidLow, v.bidLow);
      t.askHigh = Math.max(t.askHigh, v.askHigh);
      t.all ||= v.all;
    }
  }

  /** markets marked now */
  get size(): number {
    return this.marks.size;
  }

  private mark(marketId: string): Touch {
    let t = this.marks.get(marketId);
    if (!t) {
      t = { bidLow: Infinity, askHigh: -Infinity, all: false };
      this.marks.set(marketId, t);
    }
    return t;
  }
}
