/**
 * One market's YES-terms book as per-tick FIFO queues: for each level index (price / tick) a head
 * and tail slot into the order pool (linked through the slots' I_PREV/I_NEXT link entries, never
 * their records), the aggregate resting shares and the order count, plus the best bid and ask
 * level. Level 0 (price 0) and level `top` (price 1e6) are never valid prices, so they double as
 * "side empty" markers for best bid / ask.
 *
 * Lazy cancels (tombstones): a cancel outside matching only marks its slot a tombstone (`bury`) and
 * takes it out of the level's size and count, instead of unlinking it. Unlinking reads and writes
 * both queue neighbours' link entries, two cache misses at a large book, for an order nobody will
 * look at again until a taker reaches it; the taker's walk reads each entry anyway, so it unlinks
 * and frees the tombstones it meets (`dropTomb`). Size, count and best bid/ask therefore only ever
 * see live orders, and every queue walker skips tombstones. Tombstones do hold slots, so they are
 * bounded: a level whose live count reaches 0 frees its whole chain at once (`bury`, and `push`
 * for a level a walk emptied), and a level whose tombstones outnumber its live orders is compacted
 * (one pass, amortised over the cancels that made them).
 */
import * as op from './order-pool.ts';

// module-local copies: an imported binding is a module-variable load on every use
const I_NEXT = op.I_NEXT;
const I_PREV = op.I_PREV;
const CHUNK_BITS = op.CHUNK_BITS;
const CHUNK_MASK = op.CHUNK_MASK;
const I_STRIDE = op.I_STRIDE;
const I_FLAGS = op.I_FLAGS;
const FL_ALIVE_MASK = op.FL_ALIVE_MASK;
const ALIVE_TOMB = op.ALIVE_TOMB;
type OrderPool = op.OrderPool;

const NIL = -1;
/** compact a level only past this many tombstones: each pass walks the whole queue */
const COMPACT_MIN = 64;

/** A ladder as plain data (see PriceLadder.exportData). */
export interface PriceLadderData {
  tick: number;
  head: [Int32Array, Int32Array];
  tail: [Int32Array, Int32Array];
  size: [Float64Array, Float64Array];
  count: [Int32Array, Int32Array];
  tombs: [Int32Array, Int32Array];
  bestBid: number;
  bestAsk: number;
}

export class PriceLadder {
  // The numbers are given a value of their kind where they are declared, the constructor's is assigned
  // over it: a class field declared without one is defined as undefined first (ES2022 class fields),
  // which gives the field V8's tagged representation, and a double held in a tagged field is a boxed
  // heap number each read unboxes (`--trace-generalization` lists tagged fields; test/engine/price-ladder-shape.test.ts).
  // tick, top and the best levels are small integers, invTick a double (NaN until assigned).
  readonly tick: number = 0;
  /** 1 / tick: an on-tick price times this, rounded, is its level without an integer division */
  readonly invTick: number = NaN;
  /** level index of price 1e6 */
  readonly top: number = 0;
  readonly head: [Int32Array, Int32Array];
  readonly tail: [Int32Array, Int32Array];
  readonly size: [Float64Array, Float64Array];
  /** live orders per level (tombstones excluded) */
  readonly count: [Int32Array, Int32Array];
  /** tombstones still linked per level */
  readonly tombs: [Int32Array, Int32Array];
  /** live orders per side, all levels together: a side that empties finds its best without a scan */
  private readonly live: [number, number] = [0, 0];
  /** best bid level (0 = no bids) */
  bestBid = 0;
  /** best ask level (top = no asks) */
  bestAsk = 0;

  constructor(tick: number) {
    this.tick = tick;
    this.invTick = 1 / tick;
    this.top = 1_000_000 / tick;
    const n = this.top + 1;
    this.head = [new Int32Array(n).fill(NIL), new Int32Array(n).fill(NIL)];
    this.tail = [new Int32Array(n).fill(NIL), new Int32Array(n).fill(NIL)];
    this.size = [new Float64Array(n), new Float64Array(n)];
    this.count = [new Int32Array(n), new Int32Array(n)];
    this.tombs = [new Int32Array(n), new Int32Array(n)];
    this.bestAsk = this.top;
  }

  /** Live orders on one side, every level together (the invariant checks compare it with the levels). */
  liveOrders(side: number): number {
    return this.live[side]!;
  }

  /** The ladder as plain data (its live arrays): serialise it before the next command. */
  exportData(): PriceLadderData {
    return {
      tick: this.tick,
      head: this.head,
      tail: this.tail,
      size: this.size,
      count: this.count,
      tombs: this.tombs,
      bestBid: this.bestBid,
      bestAsk: this.bestAsk,
    };
  }

  /** Copy `d` into this ladder (same tick). */
  restoreData(d: PriceLadderData): void {
    if (d.tick !== this.tick) throw new Error(`price ladder data: tick ${d.tick}, expected ${this.tick}`);
    for (const side of [0, 1] as const) {
      for (const [to, from] of [
        [this.head, d.head],
        [this.tail, d.tail],
        [this.size, d.size],
        [this.count, d.count],
        [this.tombs, d.tombs],
      ] as const) {
        if (from[side].length !== to[side].length) throw new Error('price ladder data: a level array has the wrong length');
        to[side].set(from[side] as never);
      }
    }
    this.bestBid = d.bestBid;
    this.bestAsk = d.bestAsk;
    for (const side of [0, 1] as const) {
      let n = 0;
      for (const c of this.count[side]) n += c;
      this.live[side] = n;
    }
  }

  /** Append at the back of its level's queue (time priority). */
  push(pool: OrderPool, slot: number, side: number, level: number, shares: number): void {
    const lc = pool.ic;
    // a level a taker's walk emptied may still hold tombstones behind its last live order
    if (this.count[side][level] === 0 && this.tombs[side][level] !== 0) this.dropChain(pool, side, level);
    const t = this.tail[side][level]!;
    const lv = lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    lv[b + I_PREV] = t;
    lv[b + I_NEXT] = NIL;
    if (t === NIL) this.head[side][level] = slot;
    else lc[t >>> CHUNK_BITS]![(t & CHUNK_MASK) * I_STRIDE + I_NEXT] = slot;
    this.tail[side][level] = slot;
    this.size[side][level] = this.size[side][level]! + shares;
    this.count[side][level] = this.count[side][level]! + 1;
    this.live[side]++;
    if (side === 0) {
      if (level > this.bestBid) this.bestBid = level;
    } else if (level < this.bestAsk) this.bestAsk = level;
  }

  /**
   * Unlink a resting order whose remaining shares are `shares` (the caller frees its slot). Safe
   * inside a queue walk: it touches no other slot's state than its neighbours' links, so tombstones
   * left behind at an emptied level wait for the next push or walk there.
   */
  remove(pool: OrderPool, slot: number, side: number, level: number, shares: number): void {
    this.unlink(pool, slot, side, level);
    const c = this.count[side][level]! - 1;
    this.count[side][level] = c;
    this.live[side]--;
    this.size[side][level] = c === 0 ? 0 : this.size[side][level]! - shares;
    if (c === 0) this.refreshBest(side, level);
  }

  /**
   * Cancel a resting order whose remaining shares are `shares` lazily: it stays linked as a
   * tombstone (its slot is freed later by whoever unlinks it). Never call inside a queue walk: it may
   * free other slots of the level (the whole chain when the last live order goes, or a compaction).
   */
  bury(pool: OrderPool, slot: number, side: number, level: number, shares: number): void {
    const lv = pool.ic[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE + I_FLAGS;
    lv[b] = lv[b]! | ALIVE_TOMB;
    const c = this.count[side][level]! - 1;
    const d = this.tombs[side][level]! + 1;
    this.count[side][level] = c;
    this.tombs[side][level] = d;
    this.live[side]--;
    if (c === 0) {
      this.size[side][level] = 0;
      this.dropChain(pool, side, level);
      this.refreshBest(side, level);
    } else {
      this.size[side][level] = this.size[side][level]! - shares;
      if (d > c && d >= COMPACT_MIN) this.compact(pool, side, level);
    }
  }

  /** A queue walker met tombstone `slot`: unlink and free it. */
  dropTomb(pool: OrderPool, slot: number, side: number, level: number): void {
    this.unlink(pool, slot, side, level);
    this.tombs[side][level] = this.tombs[side][level]! - 1;
    pool.free(slot);
  }

  /** Free every slot of a level that holds only tombstones. */
  private dropChain(pool: OrderPool, side: number, level: number): void {
    const lc = pool.ic;
    let s = this.head[side][level]!;
    while (s !== NIL) {
      const nx = lc[s >>> CHUNK_BITS]![(s & CHUNK_MASK) * I_STRIDE + I_NEXT]!;
      pool.free(s);
      s = nx;
    }
    this.head[side][level] = NIL;
    this.tail[side][level] = NIL;
    this.tombs[side][level] = 0;
  }

  /** Unlink and free every tombstone of a level (its live orders keep their order). */
  private compact(pool: OrderPool, side: number, level: number): void {
    const lc = pool.ic;
    let s = this.head[side][level]!;
    while (s !== NIL) {
      const lv = lc[s >>> CHUNK_BITS]!;
      const b = (s & CHUNK_MASK) * I_STRIDE;
      const nx = lv[b + I_NEXT]!;
      if ((lv[b + I_FLAGS]! & FL_ALIVE_MASK) === ALIVE_TOMB) {
        this.unlink(pool, s, side, level);
        pool.free(s);
      }
      s = nx;
    }
    this.tombs[side][level] = 0;
  }

  private unlink(pool: OrderPool, slot: number, side: number, level: number): void {
    const lc = pool.ic;
    const lv = lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * I_STRIDE;
    const p = lv[b + I_PREV]!;
    const nx = lv[b + I_NEXT]!;
    if (p === NIL) this.head[side][level] = nx;
    else lc[p >>> CHUNK_BITS]![(p & CHUNK_MASK) * I_STRIDE + I_NEXT] = nx;
    if (nx === NIL) this.tail[side][level] = p;
    else lc[nx >>> CHUNK_BITS]![(nx & CHUNK_MASK) * I_STRIDE + I_PREV] = p;
    lv[b + I_PREV] = NIL;
    lv[b + I_NEXT] = NIL;
  }

  /** A resting order traded `shares`: shrink its level's aggregate. */
  reduce(side: number, level: number, shares: number): void {
    this.size[side][level] = this.size[side][level]! - shares;
  }

  /** After `level` emptied, move the best pointer of `side` to the next non-empty level. */
  private refreshBest(side: number, level: number): void {
    if (side === 0) {
      if (level !== this.bestBid) return;
      // the side's last live order went: empty, without walking every level below (a bot's own
      // single quote on a 0.1¢ ladder was a walk of ~500 levels per cancel)
      if (this.live[0] === 0) {
        this.bestBid = 0;
        return;
      }
      const c = this.count[0];
      let l = level - 1;
      while (l > 0 && c[l] === 0) l--;
      this.bestBid = l;
    } else {
      if (level !== this.bestAsk) return;
      if (this.live[1] === 0) {
        this.bestAsk = this.top;
        return;
      }
      const c = this.count[1];
      let l = level + 1;
      while (l < this.top && c[l] === 0) l++;
      this.bestAsk = l;
    }
  }
}
