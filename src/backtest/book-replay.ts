/**
 * Book-only replay of recorded columns into one L2 book per market (YES terms). This is the fast path
 * of backtests and sweeps: a tight loop over typed arrays, no per-event allocation.
 *
 * Generic prices (the Binance import: USDT in 1e-6 units, ~6e10) need a price window per book;
 * `bookOptionsFromColumns` derives one from the data. When the whole level range would not fit a dense
 * array within the slot budget, the window is centred on the recorded top of book and the far levels
 * outside it are skipped and counted (`outside`). Best bid/ask stay exact as long as the top stays inside
 * the window, which holds for the recorded top (bbo rows) whenever its range fits the budget, and is checked against a full
 * reference book on the real Binance capture (test/backtest/book-replay.test.ts); depth beyond the window is lost.
 */
import { L2_MAX_SLOTS, L2Book, type L2BookOptions } from '../core/l2-book.ts';
import { KIND_BBO, KIND_CLEAR, KIND_LEVEL, type Columns } from './recording/columns.ts';

export interface BookReplayState {
  books: L2Book[];
  /** last venue-reported best bid / ask per market (0 = none) */
  bboBid: Float64Array;
  bboAsk: Float64Array;
  /** rows applied, rows rejected by the book (off-grid or out of range) */
  applied: number;
  rejected: number;
  /** level rows skipped because they lie outside a windowed book (far from the top; see the file comment) */
  outside: number;
  /** per market: the price range sent to the book; ±Infinity when the book has no window (errors count as rejected) */
  lo: Float64Array;
  hi: Float64Array;
  /** true when at least one book has a window (selects the replay loop that tests it) */
  windowed: boolean;
}

/**
 * One book per market. `books[i]` is a tick (number, as before: a (0, 1) book) or full book options
 * (tick and price window, e.g. from `bookOptionsFromColumns`); missing entries get a (0, 1) book of tick 1000.
 */
export function createReplayState(cols: Columns, books?: readonly (number | L2BookOptions | undefined)[]): BookReplayState {
  const n = cols.markets.length;
  const lo = new Float64Array(n).fill(-Infinity);
  const hi = new Float64Array(n).fill(Infinity);
  let windowed = false;
  const made = Array.from({ length: n }, (_, i) => {
    const o = books?.[i];
    const opts: L2BookOptions = typeof o === 'number' ? { tick: o } : (o ?? { tick: 1_000 });
    const book = new L2Book(opts);
    if (opts.minPrice !== undefined) {
      lo[i] = book.minPrice;
      hi[i] = book.maxPrice;
      windowed = true;
    }
    return book;
  });
  return { books: made, bboBid: new Float64Array(n), bboAsk: new Float64Array(n), applied: 0, rejected: 0, outside: 0, lo, hi, windowed };
}

/** Apply rows [from, to) to the books; trades do not change an L2 book (the deltas carry that). */
export function replayBook(cols: Columns, st: BookReplayState, from = 0, to = cols.rows): void {
  // Two loops rather than one with a per-row window test: the (0, 1) path stays exactly as fast as before.
  if (st.windowed) replayWindowed(cols, st, from, to);
  else replayPlain(cols, st, from, to);
}

function replayPlain(cols: Columns, st: BookReplayState, from: number, to: number): void {
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

/** As replayPlain, but level rows outside a windowed book are skipped and counted, without the cost of a thrown error. */
function replayWindowed(cols: Columns, st: BookReplayState, from: number, to: number): void {
  const { kind, side, price, size, market } = cols;
  const { books, lo, hi } = st;
  let applied = 0;
  let outside = 0;
  for (let i = from; i < to; i++) {
    const k = kind[i]!;
    const m = market[i]!;
    const book = books[m]!;
    if (k === KIND_LEVEL) {
      const p = price[i]!;
      if (p < lo[m]! || p > hi[m]!) {
        outside++;
        continue;
      }
      try {
        if (side[i] === 0) book.applyBid(p, size[i]!);
        else book.applyAsk(p, size[i]!);
        applied++;
      } catch {
        st.rejected++;
      }
    } else if (k === KIND_CLEAR) book.clear();
    else if (k === KIND_BBO) {
      st.bboBid[m] = price[i]!;
      st.bboAsk[m] = size[i]!;
    }
  }
  st.applied += applied;
  st.outside += outside;
}

export interface BookWindowOptions {
  /** per market tick (e.g. the manifest's); default: the gcd of the market's level prices */
  ticks?: readonly (number | undefined)[];
  /** slots per book side at most; default 2^21 (32 MB a book for both sides), never above L2_MAX_SLOTS */
  maxSlots?: number;
  /** extra ticks on each side of the data's range, for levels a live feed might add; default 1000 */
  marginTicks?: number;
}

export interface BookWindow extends L2BookOptions {
  tick: number;
  minPrice: number;
  maxPrice: number;
  /** slots (and bytes, both sides) the full level range plus margin would take */
  fullSlots: number;
  fullBytes: number;
  /** true when the window is narrower than the data's level range (far levels are skipped) */
  clipped: boolean;
}

const gcd = (a: number, b: number): number => {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
};

/** Per-market level price range, gcd and top-of-book range from one pass over the columns. */
function scanMarkets(cols: Columns) {
  const n = cols.markets.length;
  const s = Array.from({ length: n }, () => ({ lo: Infinity, hi: -Infinity, g: 0, topLo: Infinity, topHi: -Infinity }));
  for (let i = 0; i < cols.rows; i++) {
    const m = s[cols.market[i]!]!;
    const k = cols.kind[i]!;
    if (k === KIND_LEVEL) {
      const p = cols.price[i]!;
      if (p < m.lo) m.lo = p;
      if (p > m.hi) m.hi = p;
      m.g = gcd(p, m.g);
    } else if (k === KIND_BBO) {
      const b = cols.price[i]!;
      const a = cols.size[i]!;
      if (b > 0 && b < m.topLo) m.topLo = b;
      if (a > 0 && a > m.topHi) m.topHi = a;
    }
  }
  return s;
}

/**
 * Book options for a genericPrices recording: per market the tick (given, else the gcd of its level
 * prices) and a window = the level price range ± margin. If that exceeds `maxSlots`, a window of
 * `maxSlots` centred on the recorded top-of-book range (bbo rows; the level range's middle without
 * them). Markets without level rows get a one-slot window. Floats are only used to pick the centre.
 */
export function bookOptionsFromColumns(cols: Columns, o: BookWindowOptions = {}): BookWindow[] {
  const maxSlots = Math.min(o.maxSlots ?? 1 << 21, L2_MAX_SLOTS);
  const margin = o.marginTicks ?? 1_000;
  return scanMarkets(cols).map((m, i) => {
    const tick = o.ticks?.[i] ?? (m.g > 0 ? m.g : 1);
    if (m.hi < m.lo) return { tick, minPrice: tick, maxPrice: tick, fullSlots: 1, fullBytes: 16, clipped: false };
    const lo = Math.max(tick, Math.floor(m.lo / tick) * tick - margin * tick);
    const hi = Math.ceil(m.hi / tick) * tick + margin * tick;
    const fullSlots = (hi - lo) / tick + 1;
    const full = { fullSlots, fullBytes: fullSlots * 16 };
    if (fullSlots <= maxSlots) return { tick, minPrice: lo, maxPrice: hi, ...full, clipped: false };
    const centre = m.topHi >= m.topLo ? (m.topLo + m.topHi) / 2 : (m.lo + m.hi) / 2;
    let minPrice = Math.max(lo, Math.round(centre / tick - (maxSlots - 1) / 2) * tick);
    const maxPrice = Math.min(hi, minPrice + (maxSlots - 1) * tick);
    minPrice = Math.max(lo, maxPrice - (maxSlots - 1) * tick);
    return { tick, minPrice, maxPrice, ...full, clipped: true };
  });
}
