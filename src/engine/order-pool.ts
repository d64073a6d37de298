/**
 * Struct-of-arrays storage for live orders: one typed array per field, a free list of slots and
 * per-slot generations. An order id encodes (generation, slot) as gen·2^24 + slot, so ids are never
 * reused and id → slot is O(1) without a map. The prev/next arrays are the intrusive links of the
 * per-price FIFO queues (see ./price-ladder.ts).
 */
const SLOT_BITS = 24;
export const SLOT_COUNT = 1 << SLOT_BITS; // 16.7 M live orders at most
const NIL = -1;

export class OrderPool {
  capacity: number;
  /** slots ever handed out (the high-water mark); live slots are below it */
  used = 0;
  live = 0;
  private freeHead = NIL;

  gen!: Uint32Array;
  /** 0 free, 1 live (being matched), 2 resting in the book */
  alive!: Uint8Array;
  market!: Int32Array;
  trader!: Int32Array;
  outcome!: Uint8Array;
  kind!: Uint8Array;
  /** 0 bid, 1 ask in the YES-terms book */
  side!: Uint8Array;
  tif!: Uint8Array;
  makerRole!: Uint8Array;
  marketOrder!: Uint8Array;
  /** limit price of the order's outcome */
  price!: Int32Array;
  /** level index in the YES-terms book (YES price / tick) */
  level!: Int32Array;
  prev!: Int32Array;
  next!: Int32Array;
  qty!: Float64Array;
  filled!: Float64Array;
  paid!: Float64Array;
  received!: Float64Array;
  fees!: Float64Array;
  maxFee!: Float64Array;
  maxShares!: Float64Array;
  minSharesOut!: Float64Array;
  maxCollateralIn!: Float64Array;
  minCollateralOut!: Float64Array;
  /** collateral (payers) or tokens (inventory sellers) still reserved by the order */
  reserved!: Float64Array;
  expiry!: Float64Array;
  createdMs!: Float64Array;
  updatedMs!: Float64Array;

  constructor(capacity = 1024) {
    this.capacity = 0;
    this.grow(Math.max(16, capacity));
  }

  /** A free slot, its generation bumped; the caller fills every field. */
  alloc(): number {
    let slot = this.freeHead;
    if (slot !== NIL) {
      this.freeHead = this.next[slot]!;
    } else {
      if (this.used === this.capacity) {
        if (this.capacity >= SLOT_COUNT) throw new RangeError('order pool full (16.7 M live orders)');
        this.grow(Math.min(SLOT_COUNT, this.capacity * 2));
      }
      slot = this.used++;
    }
    this.gen[slot] = this.gen[slot]! + 1;
    this.alive[slot] = 1;
    this.prev[slot] = NIL;
    this.next[slot] = NIL;
    this.live++;
    return slot;
  }

  free(slot: number): void {
    this.alive[slot] = 0;
    this.next[slot] = this.freeHead;
    this.freeHead = slot;
    this.live--;
  }

  idOf(slot: number): number {
    return this.gen[slot]! * SLOT_COUNT + slot;
  }

  /** The live slot of an id, or -1. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id <= 0) return NIL;
    const slot = id % SLOT_COUNT;
    if (slot >= this.used || this.alive[slot] === 0) return NIL;
    return this.gen[slot]! === (id - slot) / SLOT_COUNT ? slot : NIL;
  }

  private grow(cap: number): void {
    const old = this.capacity;
    const g = <T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(prev: T | undefined, make: (n: number) => T): T => {
      const a = make(cap);
      if (prev && old > 0) a.set(prev);
      return a;
    };
    this.gen = g(this.gen, (n) => new Uint32Array(n));
    this.alive = g(this.alive, (n) => new Uint8Array(n));
    this.market = g(this.market, (n) => new Int32Array(n));
    this.trader = g(this.trader, (n) => new Int32Array(n));
    this.outcome = g(this.outcome, (n) => new Uint8Array(n));
    this.kind = g(this.kind, (n) => new Uint8Array(n));
    this.side = g(this.side, (n) => new Uint8Array(n));
    this.tif = g(this.tif, (n) => new Uint8Array(n));
    this.makerRole = g(this.makerRole, (n) => new Uint8Array(n));
    this.marketOrder = g(this.marketOrder, (n) => new Uint8Array(n));
    this.price = g(this.price, (n) => new Int32Array(n));
    this.level = g(this.level, (n) => new Int32Array(n));
    this.prev = g(this.prev, (n) => new Int32Array(n));
    this.next = g(this.next, (n) => new Int32Array(n));
    this.qty = g(this.qty, (n) => new Float64Array(n));
    this.filled = g(this.filled, (n) => new Float64Array(n));
    this.paid = g(this.paid, (n) => new Float64Array(n));
    this.received = g(this.received, (n) => new Float64Array(n));
    this.fees = g(this.fees, (n) => new Float64Array(n));
    this.maxFee = g(this.maxFee, (n) => new Float64Array(n));
    this.maxShares = g(this.maxShares, (n) => new Float64Array(n));
    this.minSharesOut = g(this.minSharesOut, (n) => new Float64Array(n));
    this.maxCollateralIn = g(this.maxCollateralIn, (n) => new Float64Array(n));
    this.minCollateralOut = g(this.minCollateralOut, (n) => new Float64Array(n));
    this.reserved = g(this.reserved, (n) => new Float64Array(n));
    this.expiry = g(this.expiry, (n) => new Float64Array(n));
    this.createdMs = g(this.createdMs, (n) => new Float64Array(n));
    this.updatedMs = g(this.updatedMs, (n) => new Float64Array(n));
    this.capacity = cap;
  }
}
