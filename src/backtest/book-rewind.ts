/**
 * One book of the recorded rows per market for both cursors of a replay, not two.
 *
 * The exchange's cursor (src/backtest/sim-exchange.ts) writes every recorded row into its books at
 * the row's exchange time; the bot's cursor (src/backtest/replay-feed.ts) reaches the same rows at
 * the same time or later (exchange time + feed latency: the exchange's row of an instant goes
 * first), and its publications show a market's book as the rows before its own cursor left it.
 * Instead of a second book written row by row, the feed reads the exchange's book rewound to its
 * cursor: every row the exchange applies logs the size its level held before (SimExchange:
 * `log`), and `rewind(m, books)` puts back, for each level a row at or after the feed's cursor
 * wrote, the size before the earliest of them, so the book holds exactly the rows before the
 * cursor; `restore()` then puts the exchange's book back as it was, write for write.
 *
 * - A level the exchange's takes lowered (our order took recorded liquidity: SimExchange.drain) is
 *   not a row: its recorded size is kept here (`take`) until a row sets that level again or the
 *   market's book is cleared, and a rewind shows the recorded size.
 * - A CLEAR cannot be rewound (the book before it is gone): the run gives a market with clear rows
 *   a book of its own in the feed (`sharedMarkets`), as before.
 * - The log is a ring of the positions from the feed's cursor (`floor`) to the exchange's
 *   (`applied`), grown when the exchange runs further ahead than it holds (on the capture the
 *   exchange is 6 rows ahead at a publication on average, 63 at most).
 *
 * Exact: a rewind writes and a restore writes back through the book's own setters, which keep its
 * bits, counts and best levels, so the restored book is the exchange's book level for level, and the
 * rewound one is the book the rows before the cursor give (a test compares every publication with
 * the feed's own copy: test/backtest/shared-book.test.ts).
 */
import type { L2Book } from '../core/l2-book.ts';
import { KIND_CLEAR, KIND_LEVEL, type Columns } from './recording/columns.ts';
import type { ColumnStats } from './recording/check-columns.ts';
import { STAT_KINDS } from './recording/check-columns.ts';

export class BookRewind {
  /** per position, modulo the ring's size: the size the level of the row there held before it (-1: refused) */
  private prev: Float64Array;
  private mask: number;
  /** rows the exchange applied: positions below are in its books */
  applied = 0;
  /** the feed's cursor: rows below are in the books the feed shows; no rewind goes below it */
  floor = 0;
  /** per market, the levels takes lowered: side (0 bid), price, recorded size, three numbers each */
  private readonly taken: number[][];
  /** how many levels are taken over every market (the exchange's rows read the list only when some are) */
  takenCount = 0;
  /**
   * what the last rewind wrote, in order, to undo: side, price, the size before, three numbers each
   * (`undoN` of them; a typed array with a count: an array emptied by `length = 0` gives up its
   * storage, and every rewind grew a new one)
   */
  private undo = new Float64Array(48);
  private undoN = 0;
  private undoBook: L2Book | null = null;

  constructor(
    private readonly cols: Columns,
    private readonly rows: Uint32Array,
    markets: number,
  ) {
    this.prev = new Float64Array(1024);
    this.mask = 1023;
    this.taken = Array.from({ length: markets }, () => []);
  }

  /** The level row at position `pos` of market m (side 0 bid) found `prev` at its level (-1: the book refused it). */
  log(m: number, pos: number, side: number, price: number, prev: number): void {
    if (pos - this.floor > this.mask) this.grow(pos);
    this.prev[pos & this.mask] = this.takenCount === 0 || prev < 0 ? prev : this.untake(m, side, price, prev);
  }

  /** Market m's book was cleared: no level of it is taken any more. */
  cleared(m: number): void {
    const t = this.taken[m]!;
    this.takenCount -= t.length / 3;
    t.length = 0;
  }

  /** A take is about to lower market m's level (side, price) from its size `size`. */
  take(m: number, side: number, price: number, size: number): void {
    const t = this.taken[m]!;
    for (let k = 0; k < t.length; k += 3) if (t[k] === side && t[k + 1] === price) return; // the recorded size is kept already
    t.push(side, price, size);
    this.takenCount++;
  }

  /** A row sets a taken level again: its recorded size before the row is the taken one, and it is not taken any more. */
  private untake(m: number, side: number, price: number, prev: number): number {
    const t = this.taken[m]!;
    for (let k = 0; k < t.length; k += 3) {
      if (t[k] === side && t[k + 1] === price) {
        const recorded = t[k + 2]!;
        t.splice(k, 3);
        this.takenCount--;
        return recorded;
      }
    }
    return prev;
  }

  private grow(pos: number): void {
    let size = this.prev.length;
    while (pos - this.floor >= size) size *= 2;
    const next = new Float64Array(size);
    for (let p = Math.max(0, this.floor); p < pos; p++) next[p & (size - 1)] = this.prev[p & this.mask]!;
    this.prev = next;
    this.mask = size - 1;
  }

  /**
   * Put market m's book (`book`, the exchange's) back to the recorded rows before the feed's cursor:
   * the taken levels at their recorded sizes, then each level a row from the cursor on wrote at its
   * size before the earliest of them (the rows walked newest first, so the earliest writes last).
   * Call restore() before anything else reads or writes the book.
   */
  rewind(m: number, book: L2Book): void {
    this.undoN = 0;
    this.undoBook = book;
    const t = this.taken[m]!;
    for (let k = 0; k < t.length; k += 3) this.put(book, t[k]!, t[k + 1]!, t[k + 2]!);
    const { market, kind, side, price } = this.cols;
    const rows = this.rows;
    const ring = this.prev;
    const mask = this.mask;
    for (let p = this.applied - 1; p >= this.floor; p--) {
      const r = rows[p]!;
      if (market[r] !== m || kind[r] !== KIND_LEVEL) continue;
      const was = ring[p & mask]!;
      if (was >= 0) this.put(book, side[r]!, price[r]!, was);
    }
  }

  private put(book: L2Book, side: number, price: number, size: number): void {
    const before = book.set(side, price, size);
    let undo = this.undo;
    const k = this.undoN;
    if (k + 3 > undo.length) {
      undo = new Float64Array(undo.length * 2);
      undo.set(this.undo);
      this.undo = undo;
    }
    undo[k] = side;
    undo[k + 1] = price;
    undo[k + 2] = before;
    this.undoN = k + 3;
  }

  /** Put the book the last rewind changed back as it was (its writes undone newest first). */
  restore(): void {
    const book = this.undoBook;
    if (book === null) return;
    const undo = this.undo;
    for (let k = this.undoN - 3; k >= 0; k -= 3) {
      book.set(undo[k]!, undo[k + 1]!, undo[k + 2]!);
    }
    this.undoN = 0;
    this.undoBook = null;
  }
}

/**
 * Per market, 1 when the feed can show the exchange's book rewound instead of a copy of its own:
 * a market the bot quotes, replayed from its public stream (not the venue's drop copy: the feed
 * adds the bot's own orders to that one) and with no CLEAR row (a rewind cannot go back past one).
 * From the load's counts per market and kind when they describe these columns, else a pass over
 * the window's rows.
 */
export function sharedMarkets(cols: Columns, rows: Uint32Array, quoted: ReadonlySet<number>, exact: Uint8Array, stats: ColumnStats | null): Uint8Array {
  const n = cols.markets.length;
  const clears = new Uint8Array(n);
  if (stats !== null && stats.rows === cols.rows) {
    for (let m = 0; m < n; m++) if (stats.counts[m * STAT_KINDS + KIND_CLEAR]! > 0) clears[m] = 1;
  } else {
    const { market, kind } = cols;
    for (let j = 0; j < rows.length; j++) if (kind[rows[j]!] === KIND_CLEAR) clears[market[rows[j]!]!] = 1;
  }
  const out = new Uint8Array(n);
  for (const m of quoted) if (m >= 0 && m < n && exact[m] !== 1 && clears[m] !== 1) out[m] = 1;
  return out;
}
