/**
 * Storage for live orders as fixed 128-byte records (array of structs) in chunks of 4096 slots, each
 * chunk one ArrayBuffer seen through a Float64Array (16 numbers per slot, `fc[chunk]`) and an
 * Int32Array (32 per slot, `ic[chunk]`), plus a free list of slots and per-slot generations. Slot s
 * lives in chunk s >>> CHUNK_BITS at record s & CHUNK_MASK. An order id encodes (generation, slot)
 * as gen·2^24 + slot, so ids are never reused and id → slot is O(1) without a map.
 *
 * Why records rather than one typed array per field: a resting book of ~500 k orders is far beyond
 * the caches, and a cancel, a reused slot or a maker met in matching touched ~15–26 separate arrays,
 * i.e. as many cache misses; a record is two adjacent cache lines. Field offsets are the exported
 * F_* (index into the chunk's Float64Array after `record << 4`) and I_* (into its Int32Array after
 * `record << 5`) constants; the ints live in the record's last 32 bytes, which the F_* never use.
 *
 * Why chunks rather than one buffer that doubles: growing a single buffer copied every record and
 * page-faulted both the old and the new buffer (in a VM a fresh page costs microseconds: a 500 k
 * order book spent ~15 % of its time in the kernel), and held 1.5–2× the memory meanwhile. Chunks
 * are never moved, so their views stay valid for the pool's life, and freed chunks of a dropped
 * engine go back to the allocator for the next one.
 *
 * What a record does not hold, because it follows from what it does: the amount still reserved
 * (payers: maxCollateralIn − paid − fees; inventory sellers: maxShares − filled), and separate paid
 * and received sums (an order either pays or receives, never both: F_COLL holds whichever it is).
 */
const SLOT_BITS = 24;
export const SLOT_COUNT = 1 << SLOT_BITS; // 16.7 M live orders at most
const NIL = -1;

export const CHUNK_BITS = 12;
export const CHUNK_SLOTS = 1 << CHUNK_BITS;
export const CHUNK_MASK = CHUNK_SLOTS - 1;

/** numbers per slot in `f` / `i` */
export const F_STRIDE = 16;
export const I_STRIDE = 32;

export const F_QTY = 0;
export const F_FILLED = 1;
/** gross collateral paid (BUY, SELL_NO_INVENTORY) or received (SELL_INVENTORY), fees excluded */
export const F_COLL = 2;
export const F_FEES = 3;
export const F_MAX_FEE = 4;
export const F_MAX_SHARES = 5;
export const F_MIN_SHARES_OUT = 6;
export const F_MAX_COLL_IN = 7;
export const F_MIN_COLL_OUT = 8;
export const F_EXPIRY = 9;
export const F_CREATED = 10;
export const F_UPDATED = 11;
// f 12..15 overlap the ints below

export const I_GEN = 24;
export const I_MARKET = 25;
export const I_TRADER = 26;
/** limit price of the order's outcome */
export const I_PRICE = 27;
/** level index in the YES-terms book (YES price / tick) */
export const I_LEVEL = 28;
/** intrusive links of the per-price FIFO queues (see ./price-ladder.ts); NEXT also links the free list */
export const I_PREV = 29;
export const I_NEXT = 30;
/** packed small fields, see the FL_* shifts */
export const I_FLAGS = 31;

/** bits 0–1: 0 free, 1 live (being matched), 2 resting in the book */
export const FL_ALIVE_MASK = 3;
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

export class OrderPool {
  /** slots in the allocated chunks */
  capacity = 0;
  /** slots ever handed out (the high-water mark); live slots are below it */
  used = 0;
  live = 0;
  private freeHead = NIL;
  /** per chunk: its records as numbers and as ints (two views of one buffer) */
  readonly fc: Float64Array[] = [];
  readonly ic: Int32Array[] = [];

  /** chunks for `capacity` slots up front; more are added as slots are needed */
  constructor(capacity = 1024) {
    do this.addChunk();
    while (this.capacity < capacity && this.capacity < SLOT_COUNT);
  }

  /** A free slot, its generation bumped, flags set to "live", links cleared; the caller fills the rest. */
  alloc(): number {
    let slot = this.freeHead;
    if (slot !== NIL) {
      this.freeHead = this.ic[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) << 5) + I_NEXT]!;
    } else {
      if (this.used === this.capacity) {
        if (this.capacity >= SLOT_COUNT) throw new RangeError('order pool full (16.7 M live orders)');
        this.addChunk();
      }
      slot = this.used++;
    }
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) << 5;
    iv[b + I_GEN] = iv[b + I_GEN]! + 1;
    iv[b + I_FLAGS] = 1;
    iv[b + I_PREV] = NIL;
    iv[b + I_NEXT] = NIL;
    this.live++;
    return slot;
  }

  free(slot: number): void {
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) << 5;
    iv[b + I_FLAGS] = 0;
    iv[b + I_NEXT] = this.freeHead;
    this.freeHead = slot;
    this.live--;
  }

  /** 0 free, 1 live, 2 resting */
  alive(slot: number): number {
    return this.ic[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) << 5) + I_FLAGS]! & FL_ALIVE_MASK;
  }

  idOf(slot: number): number {
    return (this.ic[slot >>> CHUNK_BITS]![((slot & CHUNK_MASK) << 5) + I_GEN]! >>> 0) * SLOT_COUNT + slot;
  }

  /** The live slot of an id, or -1. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id <= 0) return NIL;
    // division by a power of two is exact; a float `%` would be a slow runtime call
    const g = Math.floor(id / SLOT_COUNT);
    const slot = id - g * SLOT_COUNT;
    if (slot >= this.used) return NIL;
    const iv = this.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) << 5;
    if ((iv[b + I_FLAGS]! & FL_ALIVE_MASK) === 0) return NIL;
    return iv[b + I_GEN]! >>> 0 === g ? slot : NIL;
  }

  private addChunk(): void {
    const buf = new ArrayBuffer(CHUNK_SLOTS * F_STRIDE * 8);
    this.fc.push(new Float64Array(buf));
    this.ic.push(new Int32Array(buf));
    this.capacity += CHUNK_SLOTS;
  }
}
