/**
 * The order manager's book of its own orders, indexed by nonce and by market, so a per-market step
 * (diff, timeouts, resends) touches only that market's few orders even when the bot quotes
 * hundreds of markets.
 *
 * Entry point: `new TrackedOrders()`; keys are lower-case nonces.
 */
import type { Bytes32 } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';
import type { TrackedState } from './diff.ts';

export interface Entry {
  marketId: Bytes32;
  slot: string;
  planned: PlannedOrder;
  remaining: number;
  state: TrackedState;
  sentAt: number;
  attempts: number;
  /** a retryable create failure: resend the same planned order on the next sync */
  resend: boolean;
  /** shares the fills feed has reported for this order (OrderManager.applyFill) */
  filled?: number;
  /** cancels of this order that failed for now and were retried at once (see retryCancelSoon) */
  cancelRetries?: number;
}

const NONE: ReadonlyMap<string, Entry> = new Map<string, Entry>();

export class TrackedOrders {
  private readonly byNonce = new Map<string, Entry>();
  private readonly byMarket = new Map<string, Map<string, Entry>>();

  get size(): number {
    return this.byNonce.size;
  }

  get(nonceKey: string): Entry | undefined {
    return this.byNonce.get(nonceKey);
  }

  set(nonceKey: string, e: Entry): void {
    this.delete(nonceKey);
    this.byNonce.set(nonceKey, e);
    const mk = e.marketId;
    let m = this.byMarket.get(mk);
    if (!m) this.byMarket.set(mk, (m = new Map()));
    m.set(nonceKey, e);
  }

  delete(nonceKey: string): void {
    const e = this.byNonce.get(nonceKey);
    if (!e) return;
    this.byNonce.delete(nonceKey);
    const mk = e.marketId;
    const m = this.byMarket.get(mk);
    m?.delete(nonceKey);
    if (m && m.size === 0) this.byMarket.delete(mk);
  }

  clear(): void {
    this.byNonce.clear();
    this.byMarket.clear();
  }

  values(): IterableIterator<Entry> {
    return this.byNonce.values();
  }

  /** How many orders one market has. */
  countOf(marketKey: string): number {
    return this.byMarket.get(marketKey)?.size ?? 0;
  }

  /** The orders of one market (lower-case market id). */
  ofMarket(marketKey: string): Iterable<Entry> {
    return (this.byMarket.get(marketKey) ?? NONE).values();
  }
}
