/**
 * Paper trading: a VenuePort that keeps our orders in memory and fills them from the LIVE market
 * data, so `--paper` quotes on real books without sending an order anywhere.
 *
 *   const paper = new PaperVenue({ clock, onFill: (e) => kernel.onEvent(e) });
 *   paper.onBookEvent(ev, bestBid, bestAsk)   // after each book event (YES-terms best prices)
 *
 * Fill model (deliberately conservative, we rest as maker at our own price):
 * - a public trade at p fills our YES-terms asks priced ≤ p when the taker bought, our bids priced ≥ p
 *   when the taker sold, best price first, up to the trade's size;
 * - a book that moves through a resting order (best ask ≤ our bid, best bid ≥ our ask) fills it in full.
 * Nothing is signed and no collateral is checked; positions and PnL come from the fills.
 */
import type { Clock } from '../core/clock.ts';
import type { Address, Bytes32, VenueOrder } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../model/venue.ts';
import type { OrderClosed, OrderFilled } from '../state/events.ts';
import { toYesTerms } from '../strategy/to-orders.ts';
import { kindOf } from '../feeds/own-orders-feed.ts';

export interface PaperVenueOptions {
  clock: Clock;
  onFill: (e: OrderFilled) => void;
  /**
   * an order filled in full: its end (after its last fill), as the venue's feeds tell it, so the (paper) ledger
   * ends it 'filled' rather than leaving it unended (no catch-up reads a paper order's end)
   */
  onClosed?: (e: OrderClosed) => void;
  trader?: Address;
  batchLimit?: number;
}

export const PAPER_TRADER = '0x0000000000000000000000000000000000000bad' as Address;

export class PaperVenue implements VenuePort {
  readonly trader: Address;
  readonly batchLimit: number;
  private readonly open = new Map<string, VenueOrder>();
  private readonly opts: PaperVenueOptions;

  constructor(opts: PaperVenueOptions) {
    this.opts = opts;
    this.trader = opts.trader ?? PAPER_TRADER;
    this.batchLimit = opts.batchLimit ?? 50;
  }

  get openCount(): number {
    return this.open.size;
  }

  batch(creates: PlannedOrder[], cancels: Bytes32[]): Promise<BatchResult> {
    return Promise.resolve({ cancels: cancels.map((n) => this.cancel(n)), creates: creates.map((p) => this.create(p)) });
  }

  cancelReplace(cancelNonce: Bytes32, create: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }> {
    return Promise.resolve({ cancel: this.cancel(cancelNonce), create: this.create(create) });
  }

  openOrders(marketId?: Bytes32): Promise<VenueOrder[]> {
    const all = [...this.open.values()];
    return Promise.resolve(marketId ? all.filter((o) => o.marketId === marketId) : all);
  }

  /** Match resting orders against a public trade, or against a book that moved through them. */
  onBookEvent(ev: BookEvent, bestBid: number | null, bestAsk: number | null): void {
    if (ev.type === 'status') return;
    const marketId = ev.type === 'snapshot' ? ev.book.marketId : ev.marketId;
    const mine = [...this.open.values()].filter((o) => o.marketId === marketId);
    if (mine.length === 0) return;
    if (ev.type === 'trade') {
      const t = toYesTerms(ev.outcomeIndex, ev.takerSide === 'buy' ? 0 : 1, ev.price);
      // in YES terms a taker buying YES (or selling NO) lifts asks; one selling YES hits bids
      const hitsAsks = t.side === 'bid';
      let left = ev.size;
      const eligible = mine
        .map((o) => ({ o, y: toYesTerms(o.outcomeIndex, o.side, o.price) }))
        .filter(({ y }) => (hitsAsks ? y.side === 'ask' && y.price <= t.price : y.side === 'bid' && y.price >= t.price))
        .sort((a, b) => (hitsAsks ? a.y.price - b.y.price : b.y.price - a.y.price));
      for (const { o } of eligible) {
        if (left <= 0) break;
        const n = Math.min(left, o.remainingSize);
        left -= n;
        this.fill(o, n);
      }
      return;
    }
    for (const o of mine) {
      const y = toYesTerms(o.outcomeIndex, o.side, o.price);
      if ((y.side === 'bid' && bestAsk !== null && bestAsk <= y.price) || (y.side === 'ask' && bestBid !== null && bestBid >= y.price))
        this.fill(o, o.remainingSize);
    }
  }

  private fill(o: VenueOrder, size: number): void {
    if (size <= 0) return;
    o.filledSize += size;
    o.remainingSize -= size;
    if (o.remainingSize <= 0) {
      o.status = 'filled';
      this.open.delete(o.nonce);
    }
    this.opts.onFill({
      type: 'OrderFilled',
      marketId: o.marketId,
      nonce: o.nonce,
      outcomeIndex: o.outcomeIndex,
      side: o.side,
      price: o.price,
      size,
      fee: 0,
      fillId: `paper:${o.nonce}:${o.filledSize}`,
      ts: this.opts.clock.now(),
      ...kindOf(o),
    });
    if (o.status === 'filled') this.opts.onClosed?.({ type: 'OrderClosed', marketId: o.marketId, nonce: o.nonce, status: 'filled', ts: this.opts.clock.now() });
  }

  private create(p: PlannedOrder): CreateOutcome {
    if (this.open.has(p.nonce)) return { ok: true, nonce: p.nonce, order: null, duplicate: true };
    if (!Number.isInteger(p.price) || p.price <= 0 || p.price >= 1_000_000 || !Number.isInteger(p.size) || p.size <= 0) {
      return { ok: false, nonce: p.nonce, code: 'bad-request', message: 'price must be inside (0, 1) and size positive', retryable: false };
    }
    const o: VenueOrder = {
      marketId: p.marketId,
      trader: this.trader,
      nonce: p.nonce,
      side: p.side,
      outcomeIndex: p.outcomeIndex,
      price: p.price,
      size: p.size,
      filledSize: 0,
      remainingSize: p.size,
      percentFilled: 0,
      type: 'limit',
      status: 'open',
      voidReason: null,
      insertedAt: new Date(this.opts.clock.now()).toISOString(),
      expiry: p.expiry ?? 0,
      settlementVersion: 2,
      sv2OrderKind: p.side === 0 ? 0 : p.inventoryMode === 2 ? 2 : 1,
      sv2TimeInForce: 0,
      // null: remaining stays in shares for buys too (no collateral budget on paper)
      sv2MinSharesOut: null,
      sv2MaxCollateralIn: null,
      sv2MinCollateralOut: null,
    };
    this.open.set(p.nonce, o);
    return { ok: true, nonce: p.nonce, order: { ...o }, duplicate: false };
  }

  private cancel(nonce: Bytes32): CancelOutcome {
    const had = this.open.delete(nonce);
    return { ok: true, nonce, alreadyCancelled: !had };
  }
}
