/**
 * Book-only replay of recorded columns into one L2 book per market (YES terms). This is the fast path
 * of backtests and sweeps: a tight loop over typed arrays, no per-event allocation.
 */
import { L2Book } from '../core/l2-book.ts';
import { KIND_BBO, KIND_CLEAR, KIND_LEVEL, type Columns } from './recording/columns.ts';

export interface BookReplayState {
  books: L2Book[];
  /** last venue-reported best bid / ask per market (0 = none) */
  bboBid: Float64Array;
  bboAsk: Float64Array;
  /** rows applied, rows rejected by the book (off-grid or out of range) */
  applied: number;
  rejected: number;
}

export function createReplayState(cols: Columns, ticks?: readonly number[]): BookReplayState {
  const n = cols.markets.length;
  return {
    books: Array.from({ length: n }, (_, i) => new L2Book({ tick: ticks?.[i] ?? 1_000 })),
    bboBid: new Float64Array(n),
    bboAsk: new Float64Array(n),
    applied: 0,
    rejected: 0,
  };
}

/** Apply rows [from, to) to the books; trades do not change an L2 book (the deltas carry that). */
export function replayBook(cols: Columns, st: BookReplayState, from = 0, to = cols.rows): void {
  const { kind, side, price, size, market } = cols;
  const books = st.books;
  let applied = 0;
  for (let i = from; i < to; i++) {
    const k = kind[i]!;
    const book = books[market[i]!]!;
    if (k === KIND_LEVEL) {
      try {
        if (side[i] === 0) book.applyBid(price[i]!, size[i]!);
        else book.applyAsk(price[i]!, size[i]!);
        applied++;
      } catch {
        st.rejected++;
      }
    } else if (k === KIND_CLEAR) book.clear();
    else if (k === KIND_BBO) {
      st.bboBid[market[i]!] = price[i]!;
      st.bboAsk[market[i]!] = size[i]!;
    }
  }
  st.applied += applied;
}
