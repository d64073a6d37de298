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

/** One market's orders: by nonce, and as a list made on first read after a change (see entriesOf). */
interface MarketOrders {
  readonly byNonce: Map<string, Entry>;
  list: readonly Entry[] | null;
}

const NO_ENTRIES: readonly Entry[] = Object.freeze([]);

export class TrackedOrders {
  private readonly byNonce = new Map<string, Entry>();
  private readonly byMarket = new Map<string, MarketOrders>();

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
    if (!m) this.byMarket.set(mk, (m = { byNonce: new Map(), list: null }));
    m.byNonce.set(nonceKey, e);
    m.list = null;
  }

  delete(nonceKey: string): void {
    const e = this.byNonce.get(nonceKey);
    if (!e) return;
    this.byNonce.delete(nonceKey);
    const mk = e.marketId;
    const m = this.byMarket.get(mk);
    if (!m) return;
    m.byNonce.delete(nonceKey);
    m.list = null;
    if (m.byNonce.size === 0) this.byMarket.delete(mk);
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
    return this.byMarket.get(marketKey)?.byNonce.size ?? 0;
  }

  /** The orders of one market (lower-case market id). */
  ofMarket(marketKey: string): Iterable<Entry> {
    return this.entriesOf(marketKey);
  }

  /**
   * The orders of one market as a list, in the order they were set: the same list, not a copy, until
   * the market's orders change (a set or delete makes the next read a new list; a list handed out is
   * never changed, so a caller may hold it across a change). The entries are the live ones. Every
   * sync reads it (most ticks of a market find the same orders as the tick before).
   */
  entriesOf(marketKey: string): readonly Entry[] {
    const m = this.byMarket.get(marketKey);
    if (m === undefined) return NO_ENTRIES;
    if (m.list !== null) return m.list;
    const list = new Array<Entry>(m.byNonce.size);
    let i = 0;
    for (const e of m.byNonce.values()) list[i++] = e;
    m.list = list;
    return list;
  }
}
