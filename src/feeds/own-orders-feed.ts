/**
 * Own orders and fills, reconciled from order status: each poll reads the trader's open orders (all
 * pages) and its recently inserted orders, and compares each order's filled shares with what was
 * seen before. An increase is an OrderFilled at the order's own limit price (we rest as maker, so
 * that is the fill price) with fill id `<nonce>:<filled shares>`, which the store de-duplicates; an
 * order that left the open list without being seen in a final state is looked up by id, so a fill
 * that completed it is not lost.
 *
 * The venue's activity items carry no trader, so this, not the activity feed, is the source of our
 * fills. The first poll only records a baseline: fills from before the start are history, and the
 * positions come from the balance poll anyway.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ListOrdersParams, RecentOrdersParams } from '../exchange/client/orders-read.ts';
import type { Address, VenueOrder } from '../model/order.ts';
import { remainingShares } from '../orders/venue-order-shares.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { pollFeed } from './poll-feed.ts';

export interface OrdersSource {
  orders: {
    iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder>;
    recent(p: RecentOrdersParams): Promise<VenueOrder[]>;
    get(id: number | string): Promise<VenueOrder>;
  };
}

export interface OwnOrdersFeedOptions {
  client: OrdersSource;
  trader: Address;
  clock: Clock;
  intervalMs: number;
  health?: FeedHealth;
  logger?: Logger;
  /** lookups of vanished orders per poll at most (default 20) */
  maxLookups?: number;
}

const SOURCE = 'own-orders';

/** Shares an order was for: sells carry shares; V2 buys carry a collateral budget and minSharesOut. */
export function totalShares(o: VenueOrder): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null) return Number(o.sv2MinSharesOut);
  return o.size;
}

/**
 * Shares filled so far. A V2 buy reports `filledSize` as collateral spent (its budget also covers
 * the fee, so scaling the budget would under-count); we rest as maker at our own price, so the
 * shares are the collateral over that price.
 */
export function filledShares(o: VenueOrder): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null && o.price > 0) {
    return Math.min(totalShares(o), Math.round((o.filledSize * 1_000_000) / o.price));
  }
  return Math.max(0, totalShares(o) - remainingShares(o));
}

interface Known {
  filled: number;
  /** for the vanished-order lookup */
  ref: number | string;
}

/** The fill tracker, apart from I/O so it can be tested on plain lists. */
export class FillTracker {
  private readonly known = new Map<string, Known>();
  private baseline = true;

  /** Orders seen this poll → fill events; `now` is the local clock. */
  observe(orders: readonly VenueOrder[], now: number): FeedEvent[] {
    const out: FeedEvent[] = [];
    for (const o of orders) {
      const k = o.nonce.toLowerCase();
      const filled = filledShares(o);
      const before = this.known.get(k)?.filled ?? 0;
      if (filled > before && !this.baseline) {
        out.push(
          feedEvent(
            SOURCE,
            { type: 'OrderFilled', marketId: o.marketId, nonce: o.nonce, outcomeIndex: o.outcomeIndex, side: o.side, price: o.price, size: filled - before, fee: 0, fillId: `${k}:${filled}`, ts: now },
            venueMs(o.insertedAt),
            now,
          ),
        );
      }
      if (o.status === 'open') this.known.set(k, { filled: Math.max(filled, before), ref: o.hash ?? o.id ?? o.nonce });
      else this.known.delete(k);
    }
    this.baseline = false;
    return out;
  }

  /** Orders we tracked as open that this poll did not mention (to look up). */
  vanished(seen: ReadonlySet<string>): (number | string)[] {
    const out: (number | string)[] = [];
    for (const [k, v] of this.known) if (!seen.has(k)) out.push(v.ref);
    return out;
  }

  forget(ref: number | string): void {
    for (const [k, v] of this.known) if (v.ref === ref) this.known.delete(k);
  }

  get size(): number {
    return this.known.size;
  }
}

/** One poll of own orders → fill events (kept apart so the runtime can chain it before a balance read). */
export function ownOrdersReader(opts: Omit<OwnOrdersFeedOptions, 'intervalMs' | 'health' | 'logger'>): () => Promise<FeedEvent[]> {
  const tracker = new FillTracker();
  const maxLookups = opts.maxLookups ?? 20;
  async function read(): Promise<FeedEvent[]> {
    const byNonce = new Map<string, VenueOrder>();
    for (const o of await opts.client.orders.recent({ trader: opts.trader, windowSeconds: 600, limit: 500 })) byNonce.set(o.nonce.toLowerCase(), o);
    for await (const o of opts.client.orders.iterate({ trader: opts.trader, status: ['open'], limit: 100 })) byNonce.set(o.nonce.toLowerCase(), o);
    const gone = tracker.vanished(new Set(byNonce.keys())).slice(0, maxLookups);
    for (const ref of gone) {
      try {
        const o = await opts.client.orders.get(ref);
        byNonce.set(o.nonce.toLowerCase(), o);
      } catch {
        tracker.forget(ref); // unknown to the venue: nothing more to learn
      }
    }
    return tracker.observe([...byNonce.values()], opts.clock.now());
  }
  return read;
}

export function ownOrdersFeed(opts: OwnOrdersFeedOptions): Observable<FeedEvent> {
  const read = ownOrdersReader(opts);
  return pollFeed({ name: SOURCE, clock: opts.clock, intervalMs: opts.intervalMs, read, ...(opts.health ? { health: opts.health } : {}), ...(opts.logger ? { logger: opts.logger } : {}) });
}
