/**
 * Storage for live orders in chunks of 4096 slots, each order split in two records:
 * - a hot record of 64 bytes (`fc[chunk]` as numbers, `ic[chunk]` as ints: two views of one
 *   ArrayBuffer): the slot's generation, its packed flags (status, side,
 *   kind, level, ...), the two links of its price level's FIFO queue (see ./price-ladder.ts, NEXT
 *   also chains the free list), trader, market, and the five amounts matching and cancelling read;
 * - a cold record of 32 bytes (`cc[chunk]`): the binding signed limit, expiry, created and updated
 *   times, written when the order is created, read by queries and only on rare matching paths.
 * Slot s lives in chunk s >>> CHUNK_BITS at index s & CHUNK_MASK. An order id encodes
 * (generation, slot) as gen·2^24 + slot, so ids are never reused and id → slot is O(1) without a map.
 *
 * Why this split: a book of ~500 k resting orders (600 k slots with the tombstones of lazy cancels)
 * is beyond this machine's 32 MiB L3, so a cancel or a maker met in matching is a random-access
 * miss (~200 ns here for a dependent one, with the TLB miss). Before, an order was an 80-byte record
 * plus a 16-byte link entry, all of it read by cancels and takers. Now everything a cancel needs (is
 * the id live, its level, trader and market, the reservation to release) and everything a taker
 * reads and writes per maker (remaining quantity, fees against maxFee, the budget left, the queue
 * links) is in one 64-byte record (one or two adjacent lines: malloc aligns a buffer to 16 bytes
 * only, and JS cannot see its address; a page-aligned WebAssembly.Memory measured ~20 % slower
 * overall), and the records the hot paths touch take 38 MB for 600 k slots instead of 57 MB.
 *
 * What a hot record does not hold, because it follows from what it does or is rarely needed (fewer
 * bytes per order is fewer page faults and cache lines): the binding limit (cold), the amount paid
 * by a payer (maxCollateralIn − reserved − fees: the record keeps the reservation left instead, which
 * is what a cancel releases and what the budget test compares against), the limit price (from the
 * level, the tick and the outcome), the expiry (a flag says whether there is one; the value is
 * cold), and the two signed limits that do not bind the order's kind (kept aside only when
 * non-zero, see `setLimits`).
 *
 * Why chunks rather than one buffer that doubles: growing a single buffer copied every record and
 * page-faulted both the old and the new buffer (in a VM a fresh page costs microseconds: a 500 k
 * order book spent ~15 % of its time in the kernel), and held 1.5–2× the memory meanwhile. Chunks
 * are never moved, so their views stay valid for the pool's life, and freed chunks of a dropped
 * engine go back to the allocator for the next one.
 */
const SLOT_BITS = 24;
export const SLOT_COUNT = 1 << SLOT_BITS; // 16.7 M live orders at most
const NIL = -1;

export const CHUNK_BITS = 12;
export const CHUNK_SLOTS = 1 << CHUNK_BITS;
export const CHUNK_MASK = CHUNK_SLOTS - 1;

/** numbers per hot record in a chunk's Float64Array / ints in its Int32Array (64 bytes) */
export const F_STRIDE = 8;
export const I_STRIDE = 16;
/** numbers per cold record (32 bytes) */
export const C_STRIDE = 4;
const CHUNK_BYTES = CHUNK_SLOTS * F_STRIDE * 8;

// hot record, ints (bytes 0–23)
/** generation of the slot (bumped on every reuse) */
export const I_GEN = 0;
/** packed small fields and the book level, see the FL_* shifts */
export const I_FLAGS = 1;
/** intrusive links of the per-price FIFO queues (see ./price-ladder.ts); NEXT also links the free list */
export const I_PREV = 2;
export const I_NEXT = 3;
export const I_TRADER = 4;
export const I_MARKET = 5;
// hot record, numbers (bytes 24–63)
export const F_QTY = 3;
export const F_FILLED = 4;
export const F_FEES = 5;
export const F_MAX_FEE = 6;
/**
 * payers (BUY, SELL_NO_INVENTORY): the collateral still reserved, maxCollateralIn − paid − fees;
 * SELL_INVENTORY: the gross collateral received (its reservation is in shares, quantity − filled)
 */
export const F_RESV = 7;

// cold record
/** the binding collateral limit: maxCollateralIn for payers, minCollateralOut for SELL_INVENTORY */
export const C_LIMIT = 0;
/** unix seconds, 0 for none (FL_EXPIRY set when non-zero) */
export const C_EXPIRY = 1;
export const C_CREATED = 2;
export const C_UPDATED = 3;

/**
 * bits 0–1: 0 free, 1 live (being matched), 2 resting in the book, 3 a tombstone: a cancelled order
 * still linked in its level's queue (its reservation already released, its id no longer answers),
 * unlinked and freed by the next walker of that queue (see ./price-ladder.ts)
 */
export const FL_ALIVE_MASK = 3;
export const ALIVE_TOMB = 3;
/** bit 2: outcome (1 YES) */
export const FL_OUTCOME = 2;
/** bit 3: side in the YES-terms book (0 bid, 1 ask) */
export const FL_SIDE = 3;
/** bits 4–5: order kind */
export const FL_KIND = 4;
/** bits 6–7: time in force */
export const FL_TIF = 6;
/** bits 8–9: maker role */
export const FL_ROLE = 8;
/** bit 10: market order */
export const FL_MARKET_ORDER = 10;
/** bit 11: the order's two non-binding limits are non-zero and kept in `OrderPool.extras` */
export const FL_EXTRAS = 11;
/** bit 12: the order has an expiry (its cold C_EXPIRY is non-zero), so a walker reads it */
export const FL_EXPIRY = 12;
/** bits 13–26: level index in the YES-terms book (YES price / tick ≤ 10 000); read with `>>> FL_LEVEL` */
export const FL_LEVEL = 13;

/** An order's signed limits as the API names them. */
export interface OrderLimits {
  maxShares: number;
  minSharesOut: number;
  maxCollateralIn: number;
  minCollateralOut: number;
}

/** An order pool as plain data (see OrderPool.exportData). */
export interface OrderPoolData {
  capacity: number;
  used: number;
  live: number;
  freeHead: number;
  fc: Float64Array[];
  cc: Float64Array[];
  extras: Map<number, [number, number]>;
}

export class OrderPool {
  /** slots in the allocated chunks */
  capacity = 0;
  /** slots ever handed out (the high-water mark); live slots are below it */
  used = 0;
  /** slots in use: live and resting orders and tombstones not yet freed */
  live = 0;
  private freeHead = NIL;
  /** per chunk: its hot records as numbers and as ints (two views of one buffer), its cold records */
  readonly fc: Float64Array[] = [];
  readonly ic: Int32Array[] = [];
  readonly cc: Float64Array[] = [];
  /**
   * per slot flagged FL_EXTRAS: its two non-binding limits [a, b] (see `limitsOf`). Signed orders
   * normally leave them 0 (a BUY's maxShares and minCollateralOut, ...), so this stays near empty
   * and the record does not carry two numbers that are almost always zero.
   */
  readonly extras = new Map<number, [number, number]>();

  /** chunks for `capacity` slots up front; more are added as slots are needed */
  constructor(capacity = 1024) {
    do this.addChunk();
    while (this.capacity < capacity && this.capacity < SLOT_COUNT);
  }

  /**
   * A free slot, its generation bumped, flags set to "live"; the caller fills the rest (its queue
   * links are set when it rests: see PriceLadder.push). Kept small, as the rare paths of
   * `grow` and `setExtras`, so that the engine's submit inlines it with the other per-order calls
   * (TurboFan inlines about 920 bytes of bytecode into one function).
   */
  alloc(): number {
    let slot = this.freeHead;
    if (slot !== NIL) {
      this.freeHead = this.ic[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * I_STRIDE + I_NEXT]!;
    } else {
      if (this.used === this.capacity) this.grow();
      slot = this.used++;
    }
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    iv[b + I_GEN] = iv[b + I_GEN]! + 1;
    iv[b + I_FLAGS] = 1;
    this.live++;
    return slot;
  }

  free(slot: number): void {
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    if ((iv[b + I_FLAGS]! >> FL_EXTRAS) & 1) this.extras.delete(slot);
    iv[b + I_FLAGS] = 0;
    iv[b + I_NEXT] = this.freeHead;
    this.freeHead = slot;
    this.live--;
  }

  /** The packed flags of a slot (FL_*; 0 when free). */
  flags(slot: number): number {
    return this.ic[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * I_STRIDE + I_FLAGS]!;
  }

  /** 0 free, 1 live, 2 resting, 3 tombstone */
  alive(slot: number): number {
    return this.ic[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * I_STRIDE + I_FLAGS]! & FL_ALIVE_MASK;
  }

  /** The next slot in the slot's level queue (or free list), -1 at the end. */
  next(slot: number): number {
    return this.ic[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * I_STRIDE + I_NEXT]!;
  }

  idOf(slot: number): number {
    return (this.ic[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * I_STRIDE + I_GEN]! >>> 0) * SLOT_COUNT + slot;
  }

  /** The live (not tombstoned) slot of an id, or -1. Reads only the slot's hot record. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id <= 0) return NIL;
    // division by a power of two is exact; a float `%` would be a slow runtime call
    const g = Math.floor(id / SLOT_COUNT);
    const slot = id - g * SLOT_COUNT;
    if (slot >= this.used) return NIL;
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    const a = iv[b + I_FLAGS]! & FL_ALIVE_MASK;
    if (a === 0 || a === ALIVE_TOMB) return NIL;
    return iv[b + I_GEN]! >>> 0 === g ? slot : NIL;
  }

  /**
   * Store the signed limits of a new order in `slot` (its kind already in the flags) and start its
   * reservation: the binding collateral limit in the cold record, the other two, when not both
   * zero, in `extras`; a payer's F_RESV starts at maxCollateralIn, a seller's (received) at 0.
   */
  setLimits(slot: number, kind: number, o: OrderLimits): void {
    this.setLimitValues(slot, kind, o.maxShares, o.minSharesOut, o.maxCollateralIn, o.minCollateralOut);
  }

  /** `setLimits` on values the caller has already read. */
  setLimitValues(slot: number, kind: number, maxShares: number, minSharesOut: number, maxCollateralIn: number, minCollateralOut: number): void {
    const c = this.cc[slot >>> CHUNK_BITS]!;
    const cb = (slot & CHUNK_MASK) * C_STRIDE;
    const f = this.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    // BUY: qty is minSharesOut, binding maxCollateralIn, others maxShares and minCollateralOut.
    // SELL_INVENTORY: qty is maxShares, binding minCollateralOut, others minSharesOut and maxCollateralIn.
    // SELL_NO_INVENTORY: qty is maxShares, binding maxCollateralIn, others minSharesOut and minCollateralOut.
    const sell = kind === 1;
    c[cb + C_LIMIT] = sell ? minCollateralOut : maxCollateralIn;
    f[fb + F_RESV] = sell ? 0 : maxCollateralIn;
    const x = kind === 0 ? maxShares : minSharesOut;
    const y = sell ? maxCollateralIn : minCollateralOut;
    if (x !== 0 || y !== 0) this.setExtras(slot, x, y);
  }

  /** The rare non-zero non-binding limits of `slot` (apart, so that `setLimitValues` stays small). */
  private setExtras(slot: number, x: number, y: number): void {
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    iv[b + I_FLAGS] = iv[b + I_FLAGS]! | (1 << FL_EXTRAS);
    this.extras.set(slot, [x, y]);
  }

  /** All four signed limits of the order in `slot` (the inverse of `setLimits`). */
  limitsOf(slot: number): OrderLimits {
    const fl = this.flags(slot);
    const qty = this.fc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * F_STRIDE + F_QTY]!;
    const limit = this.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_LIMIT]!;
    const kind = (fl >> FL_KIND) & 3;
    const [x, y] = (fl >> FL_EXTRAS) & 1 ? this.extras.get(slot)! : [0, 0];
    if (kind === 0) return { maxShares: x, minSharesOut: qty, maxCollateralIn: limit, minCollateralOut: y };
    if (kind === 1) return { maxShares: qty, minSharesOut: x, maxCollateralIn: y, minCollateralOut: limit };
    return { maxShares: qty, minSharesOut: x, maxCollateralIn: limit, minCollateralOut: y };
  }

  /**
   * Gross collateral the order has paid (payers: the binding limit less what is still reserved and
   * the fees) or received (SELL_INVENTORY). Reads the cold record for payers: queries only.
   */
  collateralOf(slot: number): number {
    const f = this.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    if (((this.flags(slot) >> FL_KIND) & 3) === 1) return f[fb + F_RESV]!;
    return this.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_LIMIT]! - f[fb + F_RESV]! - f[fb + F_FEES]!;
  }

  /** The order's expiry in unix seconds, 0 for none. */
  expiryOf(slot: number): number {
    return this.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_EXPIRY]!;
  }

  /** The pool as plain data (the live chunks, not copies): serialise it before the next command. */
  exportData(): OrderPoolData {
    return { capacity: this.capacity, used: this.used, live: this.live, freeHead: this.freeHead, fc: this.fc, cc: this.cc, extras: this.extras };
  }

  /** Replace this pool's contents with `d` (copied: the pool owns its chunks afterwards). */
  restoreData(d: OrderPoolData): void {
    if (d.fc.length !== d.cc.length || d.capacity !== d.fc.length * CHUNK_SLOTS) throw new Error('order pool data: chunk counts do not match the capacity');
    this.fc.length = 0;
    this.ic.length = 0;
    this.cc.length = 0;
    for (let i = 0; i < d.fc.length; i++) {
      const f = d.fc[i]!;
      const c = d.cc[i]!;
      if (f.length * 8 !== CHUNK_BYTES || c.length !== CHUNK_SLOTS * C_STRIDE) throw new Error('order pool data: a chunk has the wrong size');
      const buf = new ArrayBuffer(CHUNK_BYTES);
      const fc = new Float64Array(buf);
      fc.set(f);
      this.fc.push(fc);
      this.ic.push(new Int32Array(buf)); // the int view of the same record bytes
      this.cc.push(new Float64Array(c));
    }
    this.capacity = d.capacity;
    this.used = d.used;
    this.live = d.live;
    this.freeHead = d.freeHead;
    this.extras.clear();
    for (const [k, v] of d.extras) this.extras.set(k, [v[0], v[1]]);
  }

  /** One more chunk, or a RangeError at SLOT_COUNT. */
  private grow(): void {
    if (this.capacity >= SLOT_COUNT) throw new RangeError('order pool full (16.7 M live orders)');
    this.addChunk();
  }

  private addChunk(): void {
    const buf = new ArrayBuffer(CHUNK_BYTES);
    this.fc.push(new Float64Array(buf));
    this.ic.push(new Int32Array(buf));
    this.cc.push(new Float64Array(CHUNK_SLOTS * C_STRIDE));
    this.capacity += CHUNK_SLOTS;
  }
}
