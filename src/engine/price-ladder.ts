/**
 * One market's YES-terms book as per-tick FIFO queues: for each level index (price / tick) a head
 * and tail slot into the order pool (linked through the slots' L_PREV/L_NEXT link entries, never
 * their records), the aggregate resting shares
 * and the order count, plus the best bid and ask level. Level 0 (price 0) and level `top`
 * (price 1e6) are never valid prices, so they double as "side empty" markers for best bid / ask.
 */
import * as op from './order-pool.ts';

// module-local copies: an imported binding is a module-variable load on every use
const L_NEXT = op.L_NEXT;
const L_PREV = op.L_PREV;
const CHUNK_BITS = op.CHUNK_BITS;
const CHUNK_MASK = op.CHUNK_MASK;
const L_STRIDE = op.L_STRIDE;
type OrderPool = op.OrderPool;

const NIL = -1;

export class PriceLadder {
  readonly tick: number;
  /** level index of price 1e6 */
  readonly top: number;
  readonly head: [Int32Array, Int32Array];
  readonly tail: [Int32Array, Int32Array];
  readonly size: [Float64Array, Float64Array];
  readonly count: [Int32Array, Int32Array];
  /** best bid level (0 = no bids) */
  bestBid = 0;
  /** best ask level (top = no asks) */
  bestAsk: number;

  constructor(tick: number) {
    this.tick = tick;
    this.top = 1_000_000 / tick;
    const n = this.top + 1;
    this.head = [new Int32Array(n).fill(NIL), new Int32Array(n).fill(NIL)];
    this.tail = [new Int32Array(n).fill(NIL), new Int32Array(n).fill(NIL)];
    this.size = [new Float64Array(n), new Float64Array(n)];
    this.count = [new Int32Array(n), new Int32Array(n)];
    this.bestAsk = this.top;
  }

  /** Append at the back of its level's queue (time priority). */
  push(pool: OrderPool, slot: number, side: number, level: number, shares: number): void {
    const lc = pool.lc;
    const t = this.tail[side][level]!;
    const lv = lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * L_STRIDE;
    lv[b + L_PREV] = t;
    lv[b + L_NEXT] = NIL;
    if (t === NIL) this.head[side][level] = slot;
    else lc[t >>> CHUNK_BITS]![((t & CHUNK_MASK) * L_STRIDE) + L_NEXT] = slot;
    this.tail[side][level] = slot;
    this.size[side][level] = this.size[side][level]! + shares;
    this.count[side][level] = this.count[side][level]! + 1;
    if (side === 0) {
      if (level > this.bestBid) this.bestBid = level;
    } else if (level < this.bestAsk) this.bestAsk = level;
  }

  /** Unlink a resting order whose remaining shares are `shares`. */
  remove(pool: OrderPool, slot: number, side: number, level: number, shares: number): void {
    const lc = pool.lc;
    const lv = lc[slot >>> CHUNK_BITS]!;
    const b = (slot & CHUNK_MASK) * L_STRIDE;
    const p = lv[b + L_PREV]!;
    const nx = lv[b + L_NEXT]!;
    if (p === NIL) this.head[side][level] = nx;
    else lc[p >>> CHUNK_BITS]![((p & CHUNK_MASK) * L_STRIDE) + L_NEXT] = nx;
    if (nx === NIL) this.tail[side][level] = p;
    else lc[nx >>> CHUNK_BITS]![((nx & CHUNK_MASK) * L_STRIDE) + L_PREV] = p;
    lv[b + L_PREV] = NIL;
    lv[b + L_NEXT] = NIL;
    const c = this.count[side][level]! - 1;
    this.count[side][level] = c;
    this.size[side][level] = c === 0 ? 0 : this.size[side][level]! - shares;
    if (c === 0) this.refreshBest(side, level);
  }

  /** A resting order traded `shares`: shrink its level's aggregate. */
  reduce(side: number, level: number, shares: number): void {
    this.size[side][level] = this.size[side][level]! - shares;
  }

  /** After `level` emptied, move the best pointer of `side` to the next non-empty level. */
  private refreshBest(side: number, level: number): void {
    if (side === 0) {
      if (level !== this.bestBid) return;
      const c = this.count[0];
      let l = level - 1;
      while (l > 0 && c[l] === 0) l--;
      this.bestBid = l;
    } else {
      if (level !== this.bestAsk) return;
      const c = this.count[1];
      let l = level + 1;
      while (l < this.top && c[l] === 0) l++;
      this.bestAsk = l;
    }
  }
}
