/**
 * The exchange side of a backtest: the recorded book of every market (YES terms) and the bot's own
 * orders resting in it, matched by the rules of the queue model (./queue-model.ts). Pure state
 * machine driven in exchange time by the replay loop: recorded rows come in through `applyRow`,
 * orders through `place` / `cancel` (already delayed by the entry latency), fills go out through the
 * `onFill` callback, each with the recorded row that explains it.
 *
 * When an order fills:
 * - 'trade'  a recorded trade on our side reached it (at our price past the queue in front, or
 *            through our price: the taker swept our level). Bounded by the trade's size.
 * - 'cross'  the recorded book crossed our price: new liquidity on the other side at or through our
 *            price (the increase of that level) trades with us at our price, as maker.
 * - 'take'   our order crossed the recorded book when it arrived: it takes the recorded levels at
 *            their prices, as taker; the taken size is removed from the recorded level until the
 *            recording next sets that level (simple market impact).
 * Own orders are never added to the recorded book, and the recorded flow does not react to them.
 * Snapshots (a CLEAR row then levels at the same timestamp) re-state the book: they neither cross
 * nor advance queues, they only cap the queue in front at the new level size.
 */
import { L2Book } from '../core/l2-book.ts';
import type { Bytes32, OutcomeIndex, SideValue, VenueOrder } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';
import { notionalFloor, ONE } from '../model/units.ts';
import { KIND_CLEAR, KIND_LEVEL, KIND_TRADE, type Columns } from './recording/columns.ts';
import { fillFee, type FeeSpec } from './fee-model.ts';
import type { QueueModel, QueueState } from './queue-model.ts';

export type FillCause = 'trade' | 'cross' | 'take';

export interface SimFill {
  readonly at: number;
  readonly market: number;
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the order's own terms */
  readonly outcomeIndex: OutcomeIndex;
  readonly side: SideValue;
  readonly price: number;
  /** YES terms: 'bid' bought YES exposure */
  readonly yesSide: 'bid' | 'ask';
  readonly yesPrice: number;
  readonly size: number;
  readonly fee: number;
  readonly maker: boolean;
  readonly cause: FillCause;
  /** the recorded row that explains it (trade or crossing level), -1 for 'take' */
  readonly row: number;
  readonly seq: number;
}

export interface SimOrder {
  readonly key: string;
  readonly planned: PlannedOrder;
  readonly market: number;
  /** 0 = bid, 1 = ask in the YES book */
  readonly yesSide: 0 | 1;
  readonly yesPrice: number;
  remaining: number;
  filled: number;
  feeLeft: number;
  q: QueueState;
  state: 'open' | 'filled' | 'cancelled';
  readonly placedAt: number;
}

export type PlaceResult = { ok: true; order: SimOrder } | { ok: false; code: string; message: string };

export interface SimExchangeOptions {
  readonly cols: Columns;
  /** price tick per market (1e-6 USDC) */
  readonly ticks: readonly number[];
  readonly queue: QueueModel;
  readonly fees: FeeSpec;
  readonly trader: Bytes32 | `0x${string}`;
  readonly onFill: (f: SimFill) => void;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export class SimExchange {
  readonly books: L2Book[];
  private readonly marketIndex = new Map<string, number>();
  private readonly own: SimOrder[][];
  private readonly byKey = new Map<string, SimOrder>();
  private readonly snapshotAt: Float64Array;
  private fillSeq = 0;
  /** orders placed, cancelled, rejected (for the order-to-fill ratio) */
  placed = 0;
  cancelled = 0;
  rejected = 0;

  constructor(private readonly opts: SimExchangeOptions) {
    const n = opts.cols.markets.length;
    // A book grid fine enough for every recorded price: the tick's gcd with 0.1¢.
    this.books = opts.cols.markets.map((_, i) => new L2Book({ tick: gcd(opts.ticks[i] ?? 1_000, 1_000) }));
    opts.cols.markets.forEach((m, i) => this.marketIndex.set(m.toLowerCase(), i));
    this.own = Array.from({ length: n }, () => []);
    this.snapshotAt = new Float64Array(n).fill(-1);
  }

  marketOf(marketId: string): number {
    return this.marketIndex.get(marketId.toLowerCase()) ?? -1;
  }

  openOrders(market?: number): SimOrder[] {
    const out: SimOrder[] = [];
    for (let m = 0; m < this.own.length; m++) if (market === undefined || market === m) out.push(...this.own[m]!);
    return out;
  }

  get(nonce: string): SimOrder | undefined {
    return this.byKey.get(nonce.toLowerCase());
  }

  /** Best own bid / ask resting in a market (YES terms), -1 when none. */
  ownTop(market: number): { bid: number; ask: number } {
    let bid = -1;
    let ask = -1;
    for (const o of this.own[market]!) {
      if (o.yesSide === 0) bid = Math.max(bid, o.yesPrice);
      else ask = ask < 0 ? o.yesPrice : Math.min(ask, o.yesPrice);
    }
    return { bid, ask };
  }

  /** Apply recorded row i at exchange time `at`. */
  applyRow(i: number, at: number): void {
    const c = this.opts.cols;
    const m = c.market[i]!;
    const k = c.kind[i]!;
    const book = this.books[m]!;
    const orders = this.own[m]!;
    if (k === KIND_LEVEL) {
      const side = c.side[i]!;
      const price = c.price[i]!;
      const size = c.size[i]!;
      const prev = orders.length > 0 ? book.sizeAt(side === 0 ? 'bid' : 'ask', price) : 0;
      try {
        if (side === 0) book.applyBid(price, size);
        else book.applyAsk(price, size);
      } catch {
        return; // off-grid or out-of-range level: the book refuses it, so do we
      }
      if (orders.length === 0) return;
      const inSnapshot = this.snapshotAt[m] === c.lts[i];
      this.onLevel(orders, side, price, prev, size, inSnapshot, i, at);
    } else if (k === KIND_TRADE) {
      if (orders.length > 0) this.onTrade(orders, c.side[i]!, c.price[i]!, c.size[i]!, i, at);
    } else if (k === KIND_CLEAR) {
      book.clear();
      this.snapshotAt[m] = c.lts[i]!;
    }
  }

  private onLevel(orders: SimOrder[], side: number, price: number, prev: number, size: number, inSnapshot: boolean, row: number, at: number): void {
    const q = this.opts.queue;
    for (let j = 0; j < orders.length; j++) {
      const o = orders[j]!;
      if (o.yesSide === side) {
        if (o.yesPrice === price) {
          if (inSnapshot) o.q.ahead = Math.min(o.q.ahead, size);
          else q.onLevel(o.q, prev, size);
        }
      } else if (!inSnapshot && size > prev) {
        // the other side gained liquidity at or through our price: it trades with us
        const crosses = o.yesSide === 0 ? price <= o.yesPrice : price >= o.yesPrice;
        if (crosses) this.fill(o, Math.min(o.remaining, size - prev), o.planned.price, true, 'cross', row, at);
      }
    }
    this.sweep(orders);
  }

  private onTrade(orders: SimOrder[], takerSide: number, price: number, size: number, row: number, at: number): void {
    // a taker sell (1) reaches our bids (0), a taker buy (0) our asks (1)
    const ourSide = takerSide === 1 ? 0 : 1;
    let left = size;
    // best-priced own orders first: they stand in front of worse-priced ones
    const hit = orders.filter((o) => o.yesSide === ourSide).sort((a, b) => (ourSide === 0 ? b.yesPrice - a.yesPrice : a.yesPrice - b.yesPrice) || a.placedAt - b.placedAt);
    for (const o of hit) {
      if (left <= 0) break;
      const through = ourSide === 0 ? price < o.yesPrice : price > o.yesPrice;
      let reach: number;
      if (through) reach = left;
      else if (price === o.yesPrice) reach = this.opts.queue.onTrade(o.q, left);
      else continue;
      const n = Math.min(o.remaining, reach);
      if (n > 0) {
        this.fill(o, n, o.planned.price, true, 'trade', row, at);
        left -= n;
      }
    }
    this.sweep(orders);
  }

  private sweep(orders: SimOrder[]): void {
    for (let j = orders.length - 1; j >= 0; j--) if (orders[j]!.state !== 'open') orders.splice(j, 1);
  }

  private fill(o: SimOrder, size: number, price: number, maker: boolean, cause: FillCause, row: number, at: number): void {
    if (size <= 0) return;
    const fee = fillFee(price, size, maker ? this.opts.fees.makerBps : this.opts.fees.takerBps, o.feeLeft);
    o.feeLeft -= fee;
    o.remaining -= size;
    o.filled += size;
    if (o.remaining <= 0) o.state = 'filled';
    const yesPrice = o.planned.outcomeIndex === 1 ? price : ONE - price;
    this.opts.onFill({
      at,
      market: o.market,
      marketId: o.planned.marketId,
      nonce: o.planned.nonce,
      outcomeIndex: o.planned.outcomeIndex,
      side: o.planned.side,
      price,
      yesSide: o.yesSide === 0 ? 'bid' : 'ask',
      yesPrice,
      size,
      fee,
      maker,
      cause,
      row,
      seq: this.fillSeq++,
    });
  }

  /** An order reaches the venue. Unsigned by design: the sim venue never verifies signatures. */
  place(p: PlannedOrder, at: number): PlaceResult {
    const key = p.nonce.toLowerCase();
    if (this.byKey.has(key)) return { ok: false, code: 'duplicate', message: 'duplicate nonce' };
    const market = this.marketOf(p.marketId);
    if (market < 0) return reject(this, 'market-not-found', `market ${p.marketId} is not in the recording`);
    if (!(Number.isSafeInteger(p.price) && p.price > 0 && p.price < ONE)) return reject(this, 'invalid-price', `price ${p.price}`);
    if (!(Number.isSafeInteger(p.size) && p.size > 0)) return reject(this, 'invalid-size', `size ${p.size}`);
    const tick = this.opts.ticks[market] ?? 1;
    if (p.price % tick !== 0) return reject(this, 'invalid-price', `price ${p.price} is off the ${tick} tick`);
    // buy YES / sell NO rest as bids; sell YES / buy NO as asks (design.md §3)
    const yesSide: 0 | 1 = (p.outcomeIndex === 1) === (p.side === 0) ? 0 : 1;
    const yesPrice = p.outcomeIndex === 1 ? p.price : ONE - p.price;
    const maxFee = p.maxFee ?? Math.max(1, Math.floor(notionalFloor(p.price, p.size) / 100));
    const o: SimOrder = { key, planned: p, market, yesSide, yesPrice, remaining: p.size, filled: 0, feeLeft: maxFee, q: { ahead: 0, credit: 0 }, state: 'open', placedAt: at };
    this.byKey.set(key, o);
    this.placed++;
    const tif = p.timeInForce ?? 0;
    const book = this.books[market]!;
    if (tif === 2 && this.takeable(book, yesSide, yesPrice) < o.remaining) {
      o.state = 'cancelled';
      return { ok: true, order: o };
    }
    this.take(o, book, at);
    if (o.state === 'open' && tif !== 0) o.state = 'cancelled';
    if (o.state === 'open') {
      o.q = this.opts.queue.join(book.sizeAt(yesSide === 0 ? 'bid' : 'ask', yesPrice));
      this.own[market]!.push(o);
    }
    return { ok: true, order: o };
  }

  /** Recorded size our order could take now. */
  private takeable(book: L2Book, yesSide: 0 | 1, yesPrice: number): number {
    let total = 0;
    for (const l of book.levels(yesSide === 0 ? 'ask' : 'bid')) {
      if (yesSide === 0 ? l.price > yesPrice : l.price < yesPrice) break;
      total += l.size;
    }
    return total;
  }

  private take(o: SimOrder, book: L2Book, at: number): void {
    const other = o.yesSide === 0 ? 'ask' : 'bid';
    while (o.remaining > 0) {
      const best = other === 'ask' ? book.bestAsk() : book.bestBid();
      if (best < 0 || (o.yesSide === 0 ? best > o.yesPrice : best < o.yesPrice)) break;
      const avail = book.sizeAt(other, best);
      const n = Math.min(o.remaining, avail);
      const orderPrice = o.planned.outcomeIndex === 1 ? best : ONE - best;
      this.fill(o, n, orderPrice, false, 'take', -1, at);
      book.applyLevel(other, best, avail - n);
    }
  }

  /** A cancel reaches the venue. */
  cancel(nonce: string, _at: number): { ok: true; alreadyCancelled: boolean } | { ok: false; code: string; message: string } {
    const o = this.byKey.get(nonce.toLowerCase());
    if (!o) return { ok: false, code: 'not-found', message: 'unknown order' };
    if (o.state !== 'open') return { ok: true, alreadyCancelled: true };
    o.state = 'cancelled';
    this.cancelled++;
    this.sweep(this.own[o.market]!);
    return { ok: true, alreadyCancelled: false };
  }

  /** The venue's view of an order (GET /orders shape, integer units). */
  toVenueOrder(o: SimOrder, trader: `0x${string}`): VenueOrder {
    const p = o.planned;
    return {
      marketId: p.marketId,
      trader,
      nonce: p.nonce,
      side: p.side,
      outcomeIndex: p.outcomeIndex,
      price: p.price,
      size: p.size,
      filledSize: o.filled,
      remainingSize: o.remaining,
      percentFilled: Math.floor((o.filled * 100) / p.size),
      type: 'limit',
      status: o.state,
      voidReason: null,
      insertedAt: new Date(o.placedAt).toISOString(),
      expiry: p.expiry ?? 0,
      settlementVersion: 2,
      sv2OrderKind: p.side === 0 ? 0 : p.inventoryMode === 2 ? 2 : 1,
      sv2TimeInForce: p.timeInForce ?? 0,
      sv2MinSharesOut: null,
      sv2MaxCollateralIn: null,
      sv2MinCollateralOut: null,
    };
  }
}

function reject(x: SimExchange, code: string, message: string): PlaceResult {
  x.rejected++;
  return { ok: false, code, message };
}
