/**
 * Own fills and account balances in ONE poll, in that order: the own-orders read (fills) first,
 * then the balance read (PositionSynced). Reading orders first keeps the window in which a read holds
 * a fill not yet reported to one round trip; the store keeps the fills' cost through such a read
 * (src/state/held-read.ts). A failed balance read does not lose the fills read before it (see
 * tradingReader).
 */
import type { Observable } from 'rxjs';
import type { Bytes32 } from '../model/order.ts';
import { accountReader, type AccountFeedOptions, type BalanceSource } from './account-feed.ts';
import type { FeedEvent } from './feed-event.ts';
import { ownOrdersReader, type OrdersSource, type OwnOrdersReadStats } from './own-orders-feed.ts';
import { pollBatches, pollFeed, pollOf } from './poll-feed.ts';
import type { FeeSpec } from '../engine/fill-fee.ts';
import type { BookTouches, RestingAt } from './book-touches.ts';

export interface TradingFeedOptions extends Omit<AccountFeedOptions, 'client'> {
  client: OrdersSource & BalanceSource;
  /** see OwnOrdersFeedOptions.isTracked */
  isTracked?: (nonce: Bytes32, marketId?: Bytes32) => boolean;
  /** see OwnOrdersFeedOptions.seed (the ledger's catch-up) */
  seed?: readonly { nonce: Bytes32; filled: number; ref: number | string }[];
  /** see OwnOrdersFeedOptions.fees and isOwn */
  fees?: FeeSpec;
  isOwn?: (nonce: Bytes32) => boolean;
  /** see OwnOrdersFeedOptions.touches, ordersOf and sweepPolls (reading by market) */
  touches?: BookTouches;
  ordersOf?: (marketId: Bytes32) => Iterable<RestingAt>;
  sweepPolls?: number;
  /** see OwnOrdersFeedOptions.arrival */
  arrival?: (nonce: Bytes32) => number | undefined;
  /** see OwnOrdersFeedOptions.stats */
  stats?: OwnOrdersReadStats;
}

/**
 * One poll: own orders (fills) first, then the balance read. The orders read moves the fill tracker
 * on, so its events exist once: if the balance read after it fails, they wait here and lead the
 * next good poll instead of going down with the failed read.
 */
export function tradingReader(opts: Omit<TradingFeedOptions, 'intervalMs' | 'health' | 'logger'>): () => Promise<FeedEvent[]> {
  const orders = ownOrdersReader(opts);
  const account = accountReader(opts);
  let carried: FeedEvent[] = [];
  return async () => {
    const fills = await orders();
    const pending = carried.length === 0 ? fills : [...carried, ...fills];
    carried = pending;
    const balances = await account();
    carried = [];
    return pending.length === 0 ? balances : [...pending, ...balances];
  };
}

export function tradingFeed(opts: TradingFeedOptions): Observable<FeedEvent> {
  return pollFeed(pollOf('account', opts, tradingReader(opts)));
}

/** The same poll, one array per read (fills first, then the balance read): see pollBatches. */
export function tradingBatches(opts: TradingFeedOptions): Observable<readonly FeedEvent[]> {
  return pollBatches(pollOf('account', opts, tradingReader(opts)));
}
