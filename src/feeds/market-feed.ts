/**
 * Market metadata by polling `GET /markets/:id`: slug, status, deadline and, once resolved, the
 * payout of a YES share, as MarketMetadataUpdated (emitted when something changed). The risk gate
 * pauses quoting before the deadline and when the status is not active, so this is what stops a
 * market on time.
 */
import type { Observable } from 'rxjs';
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import type { Bytes32 } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import { marketPollFeed, type MarketPollOptions } from './poll-feed.ts';

export interface MarketSource {
  markets: { get(id: string): Promise<MarketInfo> };
}

export interface MarketFeedOptions extends MarketPollOptions {
  client: MarketSource;
}

const SOURCE = 'markets';

export function marketEvent(marketId: Bytes32, m: MarketInfo, now: number): FeedEvent {
  const deadline = m.deadline === null ? null : venueMs(m.deadline) || null;
  const payoutYes = m.status === 'resolved' && m.outcome !== null ? (m.outcome === 1 ? ONE : 0) : null;
  return feedEvent(
    SOURCE,
    { type: 'MarketMetadataUpdated', marketId, ...(m.slug ? { slug: m.slug } : {}), status: m.status, deadline, payoutYes, ts: now },
    0,
    now,
  );
}

export function marketFeed(opts: MarketFeedOptions): Observable<FeedEvent> {
  return marketPollFeed(SOURCE, opts, async (id) => {
    const m = await opts.client.markets.get(id);
    return { sig: `${m.slug}|${m.status}|${m.deadline}|${m.outcome}`, event: marketEvent(id, m, opts.clock.now()) };
  });
}
