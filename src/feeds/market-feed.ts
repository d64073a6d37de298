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

/**
 * What one YES share pays (1e-6 USDC) for a market's venue status and winning outcome (1 = YES,
 * 0 = NO): null unless resolved with one of them (a split payout or an unknown outcome has none here).
 * The live market poll and a replayed recording's metadata read it with this one function.
 */
export function payoutOfOutcome(status: unknown, outcome: unknown): number | null {
  if (status !== 'resolved') return null;
  return outcome === 1 ? ONE : outcome === 0 ? 0 : null;
}

export function marketEvent(marketId: Bytes32, m: MarketInfo, now: number): FeedEvent {
  const deadline = m.deadline === null ? null : venueMs(m.deadline) || null;
  const payoutYes = payoutOfOutcome(m.status, m.outcome);
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
