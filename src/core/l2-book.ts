/**
 * A fast L2 order book for one outcome, in integer units (prices in 1e-6 USDC, sizes in 1e-6 shares).
 *
 * Why tick-indexed typed arrays: a prediction-market price lives in (0, 1 USDC), so every possible level
 * of a side fits in one array indexed by `price / tick`. An update is a single store plus, at most, a short
 * scan when the best level empties, so updates at or near the top are O(1) and allocation-free; a Map plus
 * sorting costs a hash insert and an O(n log n) sort per query (see test/bench/l2-book.bench.ts).
 *
 * Memory: two Float64Arrays of (1e6 / tick + 1) entries. The default tick of 100 units (0.01¢) takes
 * 160 KB per book; pass the market's real tick (e.g. 10_000 = 1¢) to shrink it. Sizes are kept in
 * Float64Array because it stores every safe integer exactly.
 *
 * Generic prices (e.g. BTCUSDT at ~6e10 units) do not fit (0, 1): pass a price window instead,
 * `{ tick, minPrice, maxPrice }`, both bounds inclusive and on the tick grid; slot i is the price
 * minPrice + i·tick, so memory is 16 bytes × ((maxPrice − minPrice) / tick + 1). The caller picks the
 * window from its data (src/backtest/book-replay.ts does); L2_MAX_SLOTS (2^24, 256 MB) refuses a window
 * that would allocate hundreds of MB by accident. The default book keeps its (0, 1) check unchanged.
 *
 * Main entry points:
 *   new L2Book({ tick? }) or new L2Book({ tick, minPrice, maxPrice }) or new L2Book({ tick, fineTick })
 *   applySnapshot({ bids, asks })            replace the whole book
 *   applyLevel('bid' | 'ask', price, size)   absolute size at a level, 0 removes it
 *   applyLevels(side, levels)                a delta's changed levels of one side
 *   setBid / setAsk(price, size)             a replay's row: the previous size, -1 when refused (no throw)
 *   set(side, price, size)                   setBid (side 0) or setAsk (side 1) in one call
 *   accepts(price, size)                     whether setBid / setAsk would take the level
 *   bestBid() / bestAsk() / bestBidSize() / bestAskSize()   (-1 / 0 when the side is empty)
 *   sizeAt(side, price), levels(side, depth), levelsSince(side, depth, prev), mid(), spread(), microprice()
 *   levelsSinceKnown(side, depth, prev, known)   levelsSince with prev's numbers kept beside it (KnownLevels)
 */
import { BadInputError } from '../model/errors.ts';
import type { BookLevel } from '../model/book.ts';
import { ONE } from '../model/units.ts';

export type BookSide = 'bid' | 'ask';

export interface L2BookOptions {
  /** price tick in 1e-6 units; must divide 1_000_000 unless a window is given. Default 100 (0.01 cent). */
  tick?: number;
  /** lowest storable price (inclusive, > 0, a multiple of tick); with maxPrice it replaces the (0, 1) range */
  minPrice?: number;
  /** highest storable price (inclusive, a multiple of tick) */
  maxPrice?: number;
  /**
   * A finer tick (dividing `tick` and 1_000_000; not with a window) the book also takes prices on: it
   * starts on `tick` and moves to `fineTick` for good the first time it is given a price on
   * fineTick's grid but not on tick's (regrid). A replay of a market whose rows are almost always on
   * its own tick keeps its levels dense (fewer cache lines a walk or a write) and still takes every
   * price of the finer grid. Prices, sizes and every answer are those of a book made on `fineTick`
   * (a write or `accepts` at such a price moves it; `sizeAt` and the reads never do).
   */
  fineTick?: number;
}

/** Largest window a book accepts: 2^24 slots = 256 MB for the two sides (a bigger one is almost surely a mistake). */
export const L2_MAX_SLOTS = 1 << 24;

/** Validate a window and return its slot count; throws BadInputError naming the field. */
function windowSlots(tick: number, minPrice: unknown, maxPrice: unknown): number {
  if (typeof minPrice !== 'number' || !Number.isSafeInteger(minPrice) || minPrice <= 0 || minPrice % tick !== 0) {
    throw new BadInputError('minPrice', `a positive integer multiple of the ${tick}-unit tick`, minPrice);
  }
  if (typeof maxPrice !== 'number' || !Number.isSafeInteger(maxPrice) || maxPrice < minPrice || maxPrice % tick !== 0) {
    throw new BadInputError('maxPrice', `an integer multiple of the ${tick}-unit tick, at least minPrice ${minPrice}`, maxPrice);
  }
  const slots = (maxPrice - minPrice) / tick + 1;
  if (slots > L2_MAX_SLOTS)
    throw new BadInputError('maxPrice', `a window of at most ${L2_MAX_SLOTS} ticks (${slots} asked: ${Math.round((slots * 16) / 2 ** 20)} MB)`, maxPrice);
  return slots;
}

export class L2Book {
  /** the price grid (changes once, to the options' fineTick, when the book regrids: read-only outside) */
  tick: number;
  /** number of price slots per side: indices 0..maxIndex (changes with tick) */
  slots: number;
  /** lowest and highest price the book stores (inclusive): tick and 1e6 − tick by default */
  minPrice: number;
  maxPrice: number;
  /** price of slot 0: 0 by default (so index = price / tick exactly as before), minPrice with a window */
  private readonly base: number;
  private bidSize: Float64Array;
  private askSize: Float64Array;
  /**
   * One bit per slot, set while the slot holds size: finding the next level below or above a price
   * reads 32 slots per word, so a sparse side (a few levels over a 0.1-cent grid) costs a few word
   * reads per level instead of a read per empty slot.
   */
  private bidBits: Uint32Array;
  private askBits: Uint32Array;
  /** the finer tick the book moves to when given a price only it holds (0: none, or moved already) */
  private fine = 0;
  /** index of the best bid, -1 when there are no bids */
  private bestBidIdx = -1;
  /** index of the best ask, `slots` when there are no asks */
  private bestAskIdx: number;
  private bidCount = 0;
  private askCount = 0;
  /** lowest and highest index ever written since the last clear, so a snapshot clears only that range */
  private lo: number;
  private hi = -1;

  constructor(opts: L2BookOptions = {}) {
    const tick = opts.tick ?? 100;
    const windowed = opts.minPrice !== undefined || opts.maxPrice !== undefined;
    if (!Number.isSafeInteger(tick) || tick <= 0 || (!windowed && ONE % tick !== 0)) {
      throw new BadInputError('tick', windowed ? 'a positive integer' : 'a positive integer dividing 1000000', tick);
    }
    this.tick = tick;
    if (windowed) {
      this.slots = windowSlots(tick, opts.minPrice, opts.maxPrice);
      this.base = opts.minPrice!;
      this.minPrice = opts.minPrice!;
      this.maxPrice = opts.maxPrice!;
    } else {
      this.slots = ONE / tick + 1;
      this.base = 0;
      this.minPrice = tick;
      this.maxPrice = ONE - tick;
    }
    this.bidSize = new Float64Array(this.slots);
    this.askSize = new Float64Array(this.slots);
    this.bidBits = new Uint32Array((this.slots + 31) >>> 5);
    this.askBits = new Uint32Array((this.slots + 31) >>> 5);
    this.bestAskIdx = this.slots;
    this.lo = this.slots;
    if (opts.fineTick !== undefined) {
      const f = opts.fineTick;
      if (windowed || !Number.isSafeInteger(f) || f <= 0 || tick % f !== 0 || ONE % f !== 0) {
        throw new BadInputError('fineTick', `a positive integer dividing both the ${tick}-unit tick and 1000000 (no price window)`, f);
      }
      if (f !== tick) this.fine = f;
    }
  }

  /** Price → slot index; throws BadInputError naming `field` for prices off the tick grid or outside the range. */
  private index(price: number, field: string): number {
    // The (0, 1) book keeps its original constant-bounds check (a predictable branch is cheaper than the
    // window's subtraction and two loaded bounds: l2-book bench, update-only 20.1 vs 20.8 ns).
    if (this.base === 0) {
      const i = price / this.tick;
      if (!(price > 0 && price < ONE) || (i | 0) !== i) {
        const j = this.offGrid(price);
        if (j < 0) this.badPrice(field, price);
        return j;
      }
      return i;
    }
    const i = (price - this.base) / this.tick;
    // Written as !(in range) so NaN is rejected; `| 0` is exact since slots ≤ 2^24 (slotOf below: the same test).
    if (!(price >= this.minPrice && price <= this.maxPrice) || (i | 0) !== i) this.badPrice(field, price);
    return i;
  }

  /** The cold path of index(), kept out of line so the hot one stays small enough to inline. */
  private badPrice(field: string, price: number): never {
    const range = this.base === 0 ? `strictly between 0 and ${ONE}` : `from ${this.minPrice} to ${this.maxPrice}`;
    // (a book that would move to a finer tick takes that grid's prices: it is the grid to name)
    throw new BadInputError(field, `a price ${range} on the ${this.fine > 0 ? this.fine : this.tick}-unit tick`, price);
  }

  /** True when `price` is inside the book's range (on the grid or not): the cheap pre-check of a replay. */
  inRange(price: number): boolean {
    // (a book with a finer tick to move to takes that grid's range too)
    const f = this.fine;
    return f > 0 ? price >= f && price <= ONE - f : price >= this.minPrice && price <= this.maxPrice;
  }

  private static checkSize(size: number, field: string): void {
    // `>= 0` is false for NaN, so NaN is rejected too.
    if (!(size >= 0) || !Number.isSafeInteger(size)) throw new BadInputError(field, 'a non-negative safe integer size', size);
  }

  /** Set the absolute size of one bid level (0 removes it). */
  applyBid(price: number, size: number): void {
    const i = this.index(price, 'bid.price');
    L2Book.checkSize(size, 'bid.size');
    this.put(0, i, size);
  }

  /** Set the absolute size of one ask level (0 removes it). */
  applyAsk(price: number, size: number): void {
    const i = this.index(price, 'ask.price');
    L2Book.checkSize(size, 'ask.size');
    this.put(1, i, size);
  }

  /**
   * As applyBid, for a replay of recorded rows: returns the size the level held before, or -1 when
   * the book refuses the level (a price off the grid or out of range, a size that is not a
   * non-negative safe integer), which then leaves the book unchanged. No error is built for a
   * refused row, and a caller that needs the level's previous size reads no second slot.
   */
  setBid(price: number, size: number): number {
    const i = this.slotOf(price);
    return i < 0 || !(size >= 0) || !Number.isSafeInteger(size) ? -1 : this.put(0, i, size);
  }

  /** As setBid, for the ask side. */
  setAsk(price: number, size: number): number {
    const i = this.slotOf(price);
    return i < 0 || !(size >= 0) || !Number.isSafeInteger(size) ? -1 : this.put(1, i, size);
  }

  /**
   * setBid (side 0) or setAsk (any other side) in one call: a replay's row names its side by number,
   * and one call site instead of two keeps its pass within the compiler's inlining budget.
   */
  set(side: number, price: number, size: number): number {
    const i = this.slotOf(price);
    if (i < 0 || !(size >= 0) || !Number.isSafeInteger(size)) return -1;
    return this.put(side === 0 ? 0 : 1, i, size);
  }

  /** True when setBid / setAsk would take this level (not -1): a price on the grid and in range, a non-negative safe integer size. */
  accepts(price: number, size: number): boolean {
    return this.slotOf(price) >= 0 && size >= 0 && Number.isSafeInteger(size);
  }

  /** The slot of a storable price (index() without the error): -1 off the grid or out of range. */
  private slotOf(price: number): number {
    if (this.base === 0) {
      const i = price / this.tick;
      return price > 0 && price < ONE && (i | 0) === i ? i : this.offGrid(price);
    }
    const i = (price - this.base) / this.tick;
    return price >= this.minPrice && price <= this.maxPrice && (i | 0) === i ? i : -1;
  }

  /**
   * A price off the book's grid (or out of its range): -1, unless the book has a finer tick that holds
   * it (options' fineTick), when the book first moves to that grid (regrid) and the price's slot there
   * is returned. Kept out of slotOf and index so their usual path stays small enough to inline.
   */
  private offGrid(price: number): number {
    const f = this.fine;
    if (f === 0 || !(price > 0 && price < ONE)) return -1;
    const j = price / f;
    if ((j | 0) !== j) return -1;
    this.regrid(f);
    return j;
  }

  /** Move the book to the finer tick `f` (a divisor of its tick): every level, best and range at its new slot. */
  private regrid(f: number): void {
    const k = this.tick / f;
    const slots = ONE / f + 1;
    const bidSize = new Float64Array(slots);
    const askSize = new Float64Array(slots);
    const bidBits = new Uint32Array((slots + 31) >>> 5);
    const askBits = new Uint32Array((slots + 31) >>> 5);
    for (let j = 0; j < this.slots; j++) {
      const b = this.bidSize[j]!;
      const a = this.askSize[j]!;
      const i = j * k;
      if (b > 0) {
        bidSize[i] = b;
        bidBits[i >>> 5]! |= 1 << (i & 31);
      }
      if (a > 0) {
        askSize[i] = a;
        askBits[i >>> 5]! |= 1 << (i & 31);
      }
    }
    this.bestBidIdx = this.bestBidIdx < 0 ? -1 : this.bestBidIdx * k;
    this.bestAskIdx = this.bestAskIdx >= this.slots ? slots : this.bestAskIdx * k;
    this.lo = this.lo >= this.slots ? slots : this.lo * k;
    this.hi = this.hi < 0 ? -1 : this.hi * k;
    this.bidSize = bidSize;
    this.askSize = askSize;
    this.bidBits = bidBits;
    this.askBits = askBits;
    this.tick = f;
    this.slots = slots;
    this.minPrice = f;
    this.maxPrice = ONE - f;
    this.fine = 0;
  }

  /**
   * Store a slot's size on side 0 (bids) or 1 (asks), keeping the side's count, bits and best level;
   * returns the slot's previous size. One function for both sides: with two (putBid, putAsk, ~226
   * bytecodes each) `set`'s optimised code carried 570 bytecodes of inlined callees, over V8's limit
   * for inlining it anywhere (460), so each of the exchange's row writes was a call with its doubles
   * boxed; with one, set is inlined into the replay's row pass (docs/performance/backtest.md).
   */
  private put(side: number, i: number, size: number): number {
    const bid = side === 0;
    const arr = bid ? this.bidSize : this.askSize;
    const bits = bid ? this.bidBits : this.askBits;
    const was = arr[i]!;
    arr[i] = size;
    if (i < this.lo) this.lo = i;
    if (i > this.hi) this.hi = i;
    if (size > 0) {
      if (!(was > 0)) {
        bits[i >>> 5]! |= 1 << (i & 31);
        if (bid) this.bidCount++;
        else this.askCount++;
      }
      if (bid) {
        if (i > this.bestBidIdx) this.bestBidIdx = i;
      } else if (i < this.bestAskIdx) this.bestAskIdx = i;
    } else if (was > 0) {
      bits[i >>> 5]! &= ~(1 << (i & 31));
      if (bid) {
        this.bidCount--;
        if (i === this.bestBidIdx) this.bestBidIdx = this.bidCount === 0 ? -1 : this.below(bits, i - 1);
      } else {
        this.askCount--;
        if (i === this.bestAskIdx) this.bestAskIdx = this.askCount === 0 ? this.slots : this.above(bits, i + 1);
      }
    }
    return was;
  }

  /** Set the absolute size at a level of either side (0 removes it). */
  applyLevel(side: BookSide, price: number, size: number): void {
    if (side === 'bid') this.applyBid(price, size);
    else this.applyAsk(price, size);
  }

  /** Apply a list of changed levels of one side (a stream delta's `bids` or `asks`). */
  applyLevels(side: BookSide, levels: readonly BookLevel[]): void {
    if (side === 'bid') for (let k = 0; k < levels.length; k++) this.applyBid(levels[k]!.price, levels[k]!.size);
    else for (let k = 0; k < levels.length; k++) this.applyAsk(levels[k]!.price, levels[k]!.size);
  }

  /** Replace the book with a snapshot (levels of size 0 are ignored; duplicates: the last one wins). */
  applySnapshot(book: { bids: readonly BookLevel[]; asks: readonly BookLevel[] }): void {
    // Validate first so a bad snapshot leaves the previous book untouched.
    for (let k = 0; k < book.bids.length; k++) {
      this.index(book.bids[k]!.price, `bids[${k}].price`);
      L2Book.checkSize(book.bids[k]!.size, `bids[${k}].size`);
    }
    for (let k = 0; k < book.asks.length; k++) {
      this.index(book.asks[k]!.price, `asks[${k}].price`);
      L2Book.checkSize(book.asks[k]!.size, `asks[${k}].size`);
    }
    this.clear();
    for (const l of book.bids) if (l.size > 0) this.applyBid(l.price, l.size);
    for (const l of book.asks) if (l.size > 0) this.applyAsk(l.price, l.size);
  }

  /** Empty both sides (touches only the range written since the last clear). */
  clear(): void {
    if (this.hi >= this.lo) {
      this.bidSize.fill(0, this.lo, this.hi + 1);
      this.askSize.fill(0, this.lo, this.hi + 1);
      this.bidBits.fill(0, this.lo >>> 5, (this.hi >>> 5) + 1);
      this.askBits.fill(0, this.lo >>> 5, (this.hi >>> 5) + 1);
    }
    this.lo = this.slots;
    this.hi = -1;
    this.bestBidIdx = -1;
    this.bestAskIdx = this.slots;
    this.bidCount = 0;
    this.askCount = 0;
  }

  /** The highest slot at or below `from` that holds size, or -1. */
  private below(bits: Uint32Array, from: number): number {
    if (from < 0) return -1;
    let w = from >>> 5;
    // bits 0..(from & 31) of the first word: (2 << b) − 1, which is every bit when b is 31
    let word = bits[w]! & ((2 << (from & 31)) - 1);
    while (word === 0) {
      if (--w < 0) return -1;
      word = bits[w]!;
    }
    return (w << 5) + 31 - Math.clz32(word);
  }

  /** The lowest slot at or above `from` that holds size, or `slots`. */
  private above(bits: Uint32Array, from: number): number {
    if (from >= this.slots) return this.slots;
    let w = from >>> 5;
    let word = bits[w]! & (-1 << (from & 31));
    while (word === 0) {
      if (++w >= bits.length) return this.slots;
      word = bits[w]!;
    }
    return (w << 5) + 31 - Math.clz32(word & -word);
  }

  /** Best bid price, or -1 when there are no bids. */
  bestBid(): number {
    return this.bestBidIdx < 0 ? -1 : this.base + this.bestBidIdx * this.tick;
  }

  /** Best ask price, or -1 when there are no asks. */
  bestAsk(): number {
    return this.bestAskIdx >= this.slots ? -1 : this.base + this.bestAskIdx * this.tick;
  }

  bestBidSize(): number {
    return this.bestBidIdx < 0 ? 0 : this.bidSize[this.bestBidIdx]!;
  }

  bestAskSize(): number {
    return this.bestAskIdx >= this.slots ? 0 : this.askSize[this.bestAskIdx]!;
  }

  /** Number of non-empty levels on a side. */
  depth(side: BookSide): number {
    return side === 'bid' ? this.bidCount : this.askCount;
  }

  /** Size resting at a price (0 when empty or off the grid). */
  sizeAt(side: BookSide, price: number): number {
    const i = (price - this.base) / this.tick;
    // slot 0 is price 0 (never stored) by default, minPrice (a real level) with a window
    if ((i | 0) !== i || i < 0 || i >= this.slots) return 0;
    return (side === 'bid' ? this.bidSize : this.askSize)[i]!;
  }

  /** Up to `depth` levels of a side, best first. */
  levels(side: BookSide, depth: number = Infinity): BookLevel[] {
    const out: BookLevel[] = [];
    const tick = this.tick;
    const base = this.base;
    // a side with fewer levels than `depth` stops at its last one, not at the end of the price range
    if (side === 'bid') {
      const arr = this.bidSize;
      const want = Math.min(depth, this.bidCount);
      for (let j = this.bestBidIdx; j >= 0 && out.length < want; j = this.below(this.bidBits, j - 1)) out.push({ price: base + j * tick, size: arr[j]! });
    } else {
      const arr = this.askSize;
      const want = Math.min(depth, this.askCount);
      for (let j = this.bestAskIdx; j < this.slots && out.length < want; j = this.above(this.askBits, j + 1))
        out.push({ price: base + j * tick, size: arr[j]! });
    }
    return out;
  }

  /**
   * levels(side, depth), sharing with `prev` (an earlier result for this side, best first) what did not
   * change: a level of the same price and size is prev's object, and when the whole result equals
   * prev, prev itself is returned. Level objects are never changed once made, so consecutive
   * snapshots of a book whose top barely moved share most of them (a replay publishes thousands).
   */
  levelsSince(side: BookSide, depth: number, prev: readonly BookLevel[]): BookLevel[] {
    // the levels are gathered in a scratch array and copied out once, at their final length (an array
    // grown by push is reallocated on the way: the feed's snapshots make thousands a run)
    const out = SCRATCH;
    let n = 0;
    // true once a level is not prev's at the same position (a new object, or prev's from further down)
    let changed = false;
    // prev is walked by price alongside (both best first): a level that moved down the ladder keeps its object
    let k = 0;
    const tick = this.tick;
    const base = this.base;
    const bid = side === 'bid';
    const arr = bid ? this.bidSize : this.askSize;
    const want = Math.min(depth, bid ? this.bidCount : this.askCount);
    for (
      let j = bid ? this.bestBidIdx : this.bestAskIdx;
      j >= 0 && j < this.slots && n < want;
      j = bid ? this.below(this.bidBits, j - 1) : this.above(this.askBits, j + 1)
    ) {
      const s = arr[j]!;
      const price = base + j * tick;
      while (k < prev.length && (bid ? prev[k]!.price > price : prev[k]!.price < price)) k++;
      const p = k < prev.length && prev[k]!.price === price ? prev[k++]! : undefined;
      if (p !== undefined && p.size === s) {
        if (k !== n + 1) changed = true;
        out[n++] = p;
      } else {
        changed = true;
        out[n++] = { price, size: s };
      }
    }
    if (!changed) return n === prev.length ? (prev as BookLevel[]) : prev.slice(0, n);
    return out.slice(0, n);
  }

  /**
   * levelsSince(side, depth, prev) with prev's prices and sizes read from `known` (kept beside prev by
   * the caller, and brought up to the result here) instead of from prev's level objects: the same
   * answer, the same objects shared. A replay publishes a book every few rows; by then the last
   * publication's level objects have usually left the cache (a collection may have moved them), and
   * reading their prices was a good part of the walk (levelsSince's self time −11 to −18 % in two
   * profiles of the capture's backtest). The result's numbers are written into known's spare pair of
   * arrays, which then becomes the current one (KnownLevels.flip), not copied back level by level.
   * Falls back to levelsSince when `known` does not describe prev (its count differs) or has no room
   * for the result.
   */
  levelsSinceKnown(side: BookSide, depth: number, prev: readonly BookLevel[], known: KnownLevels): BookLevel[] {
    const want = Math.min(depth, side === 'bid' ? this.bidCount : this.askCount);
    if (known.n !== prev.length || known.price.length < want) {
      const out = this.levelsSince(side, depth, prev);
      known.set(out);
      return out;
    }
    const out = SCRATCH;
    const kp = known.price;
    const ks = known.size;
    // the result's prices and sizes go into known's spare pair (kp and ks are read while the result
    // grows), which then becomes its current pair: no copy back
    const np = known.sparePrice;
    const ns = known.spareSize;
    let n = 0;
    let changed = false;
    let k = 0;
    const tick = this.tick;
    const base = this.base;
    const bid = side === 'bid';
    const arr = bid ? this.bidSize : this.askSize;
    const len = prev.length;
    for (
      let j = bid ? this.bestBidIdx : this.bestAskIdx;
      j >= 0 && j < this.slots && n < want;
      j = bid ? this.below(this.bidBits, j - 1) : this.above(this.askBits, j + 1)
    ) {
      const s = arr[j]!;
      const price = base + j * tick;
      while (k < len && (bid ? kp[k]! > price : kp[k]! < price)) k++;
      if (k < len && kp[k] === price) {
        if (ks[k] === s) {
          if (k !== n) changed = true;
          out[n] = prev[k]!;
        } else {
          changed = true;
          out[n] = { price, size: s };
        }
        k++;
      } else {
        changed = true;
        out[n] = { price, size: s };
      }
      np[n] = price;
      ns[n] = s;
      n++;
    }
    known.flip(n);
    if (!changed) return n === len ? (prev as BookLevel[]) : prev.slice(0, n);
    return out.slice(0, n);
  }

  /** best ask − best bid in price units, or -1 when a side is empty. */
  spread(): number {
    if (this.bestBidIdx < 0 || this.bestAskIdx >= this.slots) return -1;
    return (this.bestAskIdx - this.bestBidIdx) * this.tick;
  }

  /** Mid price (float, price units), or NaN when a side is empty. */
  mid(): number {
    if (this.bestBidIdx < 0 || this.bestAskIdx >= this.slots) return NaN;
    return this.base + ((this.bestBidIdx + this.bestAskIdx) * this.tick) / 2;
  }

  /** True when the best bid is at or above the best ask (transient during a burst of deltas, or bad data). */
  crossed(): boolean {
    return this.bestBidIdx >= 0 && this.bestAskIdx < this.slots && this.bestBidIdx >= this.bestAskIdx;
  }

  /**
   * Size-weighted microprice (float, price units): bid·askSize + ask·bidSize over the sum, i.e. it leans
   * toward the side with less size, the side more likely to be consumed next. NaN when a side is empty.
   */
  microprice(): number {
    return microprice(this.bestBid(), this.bestBidSize(), this.bestAsk(), this.bestAskSize());
  }
}

/**
 * levelsSince's working array, shared by every book: the method is synchronous and calls nothing back.
 * It keeps its entries between calls (at most `depth` level objects stay reachable), so it is not
 * reallocated.
 */
const SCRATCH: BookLevel[] = [];

/**
 * The prices and sizes of a levelsSince result (`n` levels, best first), kept beside it for
 * levelsSinceKnown: room for `depth` levels.
 */
export class KnownLevels {
  /** the current pair: the prices and sizes of the `n` levels described */
  price: Float64Array;
  size: Float64Array;
  /** the spare pair, written by the next levelsSinceKnown while it reads the current one (then flipped) */
  sparePrice: Float64Array;
  spareSize: Float64Array;
  n = 0;
  constructor(depth: number) {
    this.price = new Float64Array(depth);
    this.size = new Float64Array(depth);
    this.sparePrice = new Float64Array(depth);
    this.spareSize = new Float64Array(depth);
  }
  /** Describe `levels` (at most the room there is: a longer list is described by no count, n = -1). */
  set(levels: readonly BookLevel[]): void {
    if (levels.length > this.price.length) {
      this.n = -1;
      return;
    }
    for (let k = 0; k < levels.length; k++) {
      this.price[k] = levels[k]!.price;
      this.size[k] = levels[k]!.size;
    }
    this.n = levels.length;
  }
  /** The spare pair, written with `n` levels, becomes the current one (the current one the spare). */
  flip(n: number): void {
    const p = this.price;
    const s = this.size;
    this.price = this.sparePrice;
    this.size = this.spareSize;
    this.sparePrice = p;
    this.spareSize = s;
    this.n = n;
  }
}

/** Microprice of a top of book; NaN when either side is missing (price < 0 or size 0). Float: model maths. */
export function microprice(bid: number, bidSize: number, ask: number, askSize: number): number {
  if (bid < 0 || ask < 0 || !(bidSize > 0) || !(askSize > 0)) return NaN;
  return (bid * askSize + ask * bidSize) / (bidSize + askSize);
}
