/**
 * Own fills and account balances in ONE poll, in that order: the own-orders read (fills) first,
 * then the balance read (PositionSynced). The store rescales its cost basis when a position sync
 * disagrees with the fills it has seen, so a sync that arrives before the fill explaining it would
 * distort the average price; reading orders first keeps that window to one round trip.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { accountReader, type BalanceSource } from './account-feed.ts';
import type { FeedHealth } from './feed-health.ts';
import type { FeedEvent } from './feed-event.ts';
import { ownOrdersReader, type OrdersSource } from './own-orders-feed.ts';
import { pollFeed } from './poll-feed.ts';

export interface TradingFeedOptions {
  client: OrdersSource & BalanceSource;
  trader: Address;
  marketIds: readonly Bytes32[];
  clock: Clock;
  intervalMs: number;
  health?: FeedHealth;
  logger?: Logger;
  /** see OwnOrdersFeedOptions.isTracked */
  isTracked?: (nonce: Bytes32) => boolean;
}

export function tradingFeed(opts: TradingFeedOptions): Observable<FeedEvent> {
  const orders = ownOrdersReader(opts);
  const account = accountReader(opts);
  return pollFeed({
    name: 'account',
    clock: opts.clock,
    intervalMs: opts.intervalMs,
    read: async () => [...(await orders()), ...(await account())],
    ...(opts.health ? { health: opts.health } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}
