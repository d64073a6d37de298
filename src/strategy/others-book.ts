/**
 * The market's book without the bot's own orders ("the others' book"), for fair values that must not
 * follow the bot's own quotes.
 *
 * Entry points:
 *   othersBook(view) → ViewBook | null   the view's book less every own quote in `view.quotes`
 *   bookExcluding(book, quotes) → ViewBook
 *   fairBook(view, from) → ViewBook | null   `from: 'others'` → othersBook(view), `'book'` → view.book
 *
 * Why: a fair value taken from a book that holds the bot's own quotes moves whenever the bot joins or
 * leaves the touch, so the bot chases its own orders (bands around a microprice became a two-cycle
 * whose phase a millisecond decided, live and in replays alike).
 *
 * What is subtracted: each own quote's remaining size at its YES-terms price level, whatever its
 * state (in flight, working or being cancelled: the book may already, or still, hold it), exact in
 * integer units, clamped at 0; a level left empty is removed, and mid and microprice are recomputed
 * from what remains (src/strategy/view-book.ts). An own order the book does not (yet, or any more)
 * hold can only take size off others at its price, never add any: the others' book errs toward
 * thinner, never toward the bot's own. Quotes deeper than the view's depth change nothing. A book
 * marked `withoutOwn` (a backtest of a recording without the venue's drop copy shows the replayed
 * bot the recorded book alone) is the others' book as it is.
 *
 * Cost: the same book object when no own quote sits at a price of the book (no allocation), and one
 * result remembered with the market (the view's `memo`, src/state/market-memo.ts) for its (book,
 * quotes) pair: the store keeps both objects while neither changes (src/state/market-view.ts), so
 * ticks between changes reuse it; a hand-built view without a memo recomputes. Nothing is computed
 * for a strategy that does not ask. Live and backtest run this same code on the same view.
 */
import type { MarketView, ViewBook, ViewLevel, WorkingQuote } from './types.ts';
import { viewBook } from './view-book.ts';

/** Where a strategy takes its fair value from: the others' book (default) or the whole book. */
export type FairFrom = 'others' | 'book';
export const FAIR_FROM: readonly FairFrom[] = ['others', 'book'];

export function othersBook(view: MarketView): ViewBook | null {
  const book = view.book;
  if (book === null) return null;
  const quotes = view.quotes;
  // a replay's book without the drop copy never held our orders: it is the others' already
  if (quotes.length === 0 || book.withoutOwn === true) return book;
  // remembered with the market (the view's memo), so released with it
  const memo = view.memo;
  if (memo === undefined) return bookExcluding(book, quotes);
  const last = memo.others;
  if (last !== null && last.book === book && last.quotes === quotes) return last.out;
  const out = bookExcluding(book, quotes);
  if (last !== null) {
    last.book = book;
    last.quotes = quotes;
    last.out = out;
  } else memo.others = { book, quotes, out };
  return out;
}

/** `book` less `quotes` (the same object when none of them sits at a price of the book). */
export function bookExcluding(book: ViewBook, quotes: readonly WorkingQuote[]): ViewBook {
  // one pass over the quotes; a side is copied only when a quote takes size off one of its levels
  let bids: ViewLevel[] | null = null;
  let asks: ViewLevel[] | null = null;
  for (let k = 0; k < quotes.length; k++) {
    const q = quotes[k]!;
    if (!(q.size > 0)) continue;
    if (q.side === 'bid') {
      const src: readonly ViewLevel[] = bids ?? book.bids;
      // best first (bids descending): own quotes sit near the top, so the scan is short
      let i = 0;
      while (i < src.length && src[i]!.price > q.price) i++;
      if (i === src.length || src[i]!.price !== q.price) continue;
      bids ??= book.bids.slice();
      take(bids, i, q.size);
    } else if (q.side === 'ask') {
      const src: readonly ViewLevel[] = asks ?? book.asks;
      let i = 0;
      while (i < src.length && src[i]!.price < q.price) i++;
      if (i === src.length || src[i]!.price !== q.price) continue;
      asks ??= book.asks.slice();
      take(asks, i, q.size);
    }
  }
  if (bids === null && asks === null) return book;
  return viewBook(bids ?? book.bids, asks ?? book.asks, book.venueTs, book.updatedAt);
}

/** Take `size` off level i (exact integers), removing the level when nothing is left. */
function take(levels: ViewLevel[], i: number, size: number): void {
  const l = levels[i]!;
  const left = l.size - size;
  if (left > 0) levels[i] = { price: l.price, size: left };
  else levels.splice(i, 1);
}

export function fairBook(view: MarketView, from: FairFrom): ViewBook | null {
  return from === 'others' ? othersBook(view) : view.book;
}
