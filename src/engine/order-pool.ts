/**
 * Storage for live orders in chunks of 4096 slots. Per chunk, two buffers:
 * - the records (`fc[chunk]` as numbers, `ic[chunk]` as ints: two views of one ArrayBuffer), one
 *   80-byte record per slot with the order's amounts, times, market and trader;
 * - the links (`lc[chunk]`, an Int32Array), one 16-byte entry per slot: the slot's generation, its
 *   packed flags (status, side, kind, level, ...) and the two links of its price level's FIFO queue
 *   (see ./price-ladder.ts), which also chain the free list.
 * Slot s lives in chunk s >>> CHUNK_BITS at index s & CHUNK_MASK. An order id encodes
 * (generation, slot) as gen·2^24 + slot, so ids are never reused and id → slot is O(1) without a map.
 *
 * Why records rather than one typed array per field: a resting book of ~500 k orders is far beyond
 * the caches, and a cancel, a reused slot or a maker met in matching touched ~15–26 separate arrays,
 * i.e. as many cache misses. Field offsets are the exported F_* (index into the chunk's
 * Float64Array after `record * F_STRIDE`), I_* (into its Int32Array after `record * I_STRIDE`) and
 * L_* (into the links after `record * L_STRIDE`) constants.
 *
 * Why the links apart from the record: at 500 k resting orders every random record is a cache and
 * TLB miss (~150 ns here), and a cancel was a chain of them: the id's record (is it live? where are
 * its neighbours?), then its queue neighbours' records to unlink it. The links are 16 bytes per
 * slot (8 MB at 500 k orders, mostly cache-resident where the 40 MB of records are not): a stale id
 * is refused from its link entry alone, the unlink touches only link entries, and the record's own
 * miss (needed to release the reservation) now overlaps them instead of preceding them. A taker
 * walking a level's queue likewise learns the next maker's slot without waiting for a record.
 *
 * Why chunks rather than one buffer that doubles: growing a single buffer copied every record and
 * page-faulted both the old and the new buffer (in a VM a fresh page costs microseconds: a 500 k
 * order book spent ~15 % of its time in the kernel), and held 1.5–2× the memory meanwhile. Chunks
 * are never moved, so their views stay valid for the pool's life, and freed chunks of a dropped
 * engine go back to the allocator for the next one.
 *
 * What a record does not hold, because it follows from what it does (fewer bytes per order is fewer
 * page faults and cache lines): the amount still reserved (payers: maxCollateralIn − paid − fees;
 * inventory sellers: maxShares − filled), separate paid and received sums (an order either pays or
 * receives: F_COLL holds whichever it is), the limit price (from the level, the tick and the
 * outcome), and the two signed limits that do not bind the order's kind (kept aside only when
 * non-zero, see `setLimits`).
 */
const SLOT_BITS = 24;
export const SLOT_COUNT = 1 << SLOT_BITS; // 16.7 M live orders at most
const NIL = -1;

export const CHUNK_BITS = 12;
export const CHUNK_SLOTS = 1 << CHUNK_BITS;
export const CHUNK_MASK = CHUNK_SLOTS - 1;

/** numbers per record in a chunk's Float64Array / Int32Array (80 bytes) */
export const F_STRIDE = 10;
export const I_STRIDE = 20;
/** ints per slot in a chunk's links (16 bytes, so an entry never straddles a cache line) */
export const L_STRIDE = 4;

export const F_QTY = 0;
export const F_FILLED = 1;
/** gross collateral paid (BUY, SELL_NO_INVENTORY) or received (SELL_INVENTORY), fees excluded */
export const F_COLL = 2;
export const F_FEES = 3;
export const F_MAX_FEE = 4;
/** the binding collateral limit: maxCollateralIn for payers, minCollateralOut for SELL_INVENTORY */
export const F_LIMIT = 5;
export const F_EXPIRY = 6;
export const F_CREATED = 7;
export const F_UPDATED = 8;
// f 9 overlaps the ints below

export const I_MARKET = 18;
export const I_TRADER = 19;

/** generation of the slot (bumped on every reuse) */
export const L_GEN = 0;
/** packed small fields and the book level, see the FL_* shifts */
export const L_FLAGS = 1;
/** intrusive links of the per-price FIFO queues (see ./price-ladder.ts); NEXT also links the free list */
export const L_PREV = 2;
export const L_NEXT = 3;

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
/** bits 12–25: level index in the YES-terms book (YES price / tick ≤ 10 000); read with `>>> FL_LEVEL` */
export const FL_LEVEL = 12;

/** An order's signed limits as the API names them. */
export interface OrderLimits {
  maxShares: number;
  minSharesOut: number;
  maxCollateralIn: number;
  minCollateralOut: number;
}

export class OrderPool {
  /** slots in the allocated chunks */
  capacity = 0;
  /** slots ever handed out (the high-water mark); live slots are below it */
  used = 0;
  /** slots in use: live and resting orders and tombstones not yet freed */
  live = 0;
  private freeHead = NIL;
  /** per chunk: its records as numbers and as ints (two views of one buffer), and its links */
  readonly fc: Float64Array[] = [];
  readonly ic: Int32Array[] = [];
  readonly lc: Int32Array[] = [];
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

  /** A free slot, its generation bumped, flags set to "live", links cleared; the caller fills the rest. */
  alloc(): number {
    let slot = this.freeHead;
    if (slot !== NIL) {
      this.freeHead = this.lc[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) * L_STRIDE) + L_NEXT]!;
    } else {
      if (this.used === this.capacity) {
        if (this.capacity >= SLOT_COUNT) throw new RangeError('order pool full (16.7 M live orders)');
        this.addChunk();
      }
      slot = this.used++;
    }
    const lv = this.lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * L_STRIDE;
    lv[b + L_GEN] = lv[b + L_GEN]! + 1;
    lv[b + L_FLAGS] = 1;
    lv[b + L_PREV] = NIL;
    lv[b + L_NEXT] = NIL;
    this.live++;
    return slot;
  }

  free(slot: number): void {
    const lv = this.lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * L_STRIDE;
    if ((lv[b + L_FLAGS]! >> FL_EXTRAS) & 1) this.extras.delete(slot);
    lv[b + L_FLAGS] = 0;
    lv[b + L_NEXT] = this.freeHead;
    this.freeHead = slot;
    this.live--;
  }

  /** The packed flags of a slot (FL_*; 0 when free). */
  flags(slot: number): number {
    return this.lc[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) * L_STRIDE) + L_FLAGS]!;
  }

  /** 0 free, 1 live, 2 resting, 3 tombstone */
  alive(slot: number): number {
    return this.lc[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) * L_STRIDE) + L_FLAGS]! & FL_ALIVE_MASK;
  }

  /** The next slot in the slot's level queue (or free list), -1 at the end. */
  next(slot: number): number {
    return this.lc[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) * L_STRIDE) + L_NEXT]!;
  }

  idOf(slot: number): number {
    return (this.lc[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) * L_STRIDE) + L_GEN]! >>> 0) * SLOT_COUNT + slot;
  }

  /** The live (not tombstoned) slot of an id, or -1. Reads only the slot's link entry, never its record. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id <= 0) return NIL;
    // division by a power of two is exact; a float `%` would be a slow runtime call
    const g = Math.floor(id / SLOT_COUNT);
    const slot = id - g * SLOT_COUNT;
    if (slot >= this.used) return NIL;
    const lv = this.lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * L_STRIDE;
    const a = lv[b + L_FLAGS]! & FL_ALIVE_MASK;
    if (a === 0 || a === ALIVE_TOMB) return NIL;
    return lv[b + L_GEN]! >>> 0 === g ? slot : NIL;
  }

  /**
   * Store the signed limits of a new order in `slot` (its kind already in the flags): the binding
   * collateral limit in the record, the other two, when not both zero, in `extras`.
   */
  setLimits(slot: number, kind: number, o: OrderLimits): void {
    this.setLimitValues(slot, kind, o.maxShares, o.minSharesOut, o.maxCollateralIn, o.minCollateralOut);
  }

  /** `setLimits` on values the caller has already read. */
  setLimitValues(slot: number, kind: number, maxShares: number, minSharesOut: number, maxCollateralIn: number, minCollateralOut: number): void {
    const f = this.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    // BUY: qty is minSharesOut, binding maxCollateralIn, others maxShares and minCollateralOut.
    // SELL_INVENTORY: qty is maxShares, binding minCollateralOut, others minSharesOut and maxCollateralIn.
    // SELL_NO_INVENTORY: qty is maxShares, binding maxCollateralIn, others minSharesOut and minCollateralOut.
    let x: number;
    let y: number;
    if (kind === 0) {
      f[fb + F_LIMIT] = maxCollateralIn;
      x = maxShares;
      y = minCollateralOut;
    } else if (kind === 1) {
      f[fb + F_LIMIT] = minCollateralOut;
      x = minSharesOut;
      y = maxCollateralIn;
    } else {
      f[fb + F_LIMIT] = maxCollateralIn;
      x = minSharesOut;
      y = minCollateralOut;
    }
    if (x !== 0 || y !== 0) {
      const lv = this.lc[slot >>> CHUNK_BITS]!;
      const b = (slot & CHUNK_MASK) * L_STRIDE;
      lv[b + L_FLAGS] = lv[b + L_FLAGS]! | (1 << FL_EXTRAS);
      this.extras.set(slot, [x, y]);
    }
  }

  /** All four signed limits of the order in `slot` (the inverse of `setLimits`). */
  limitsOf(slot: number): OrderLimits {
    const fl = this.flags(slot);
    const f = this.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const kind = (fl >> FL_KIND) & 3;
    const qty = f[fb + F_QTY]!;
    const limit = f[fb + F_LIMIT]!;
    const [x, y] = (fl >> FL_EXTRAS) & 1 ? this.extras.get(slot)! : [0, 0];
    if (kind === 0) return { maxShares: x, minSharesOut: qty, maxCollateralIn: limit, minCollateralOut: y };
    if (kind === 1) return { maxShares: qty, minSharesOut: x, maxCollateralIn: y, minCollateralOut: limit };
    return { maxShares: qty, minSharesOut: x, maxCollateralIn: limit, minCollateralOut: y };
  }

  private addChunk(): void {
    const buf = new ArrayBuffer(CHUNK_SLOTS * F_STRIDE * 8);
    this.fc.push(new Float64Array(buf));
    this.ic.push(new Int32Array(buf));
    this.lc.push(new Int32Array(CHUNK_SLOTS * L_STRIDE));
    this.capacity += CHUNK_SLOTS;
  }
}
