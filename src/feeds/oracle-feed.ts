/**
 * Oracle data by polling: per market the latest completed oracle quote (probability, confidence)
 * as OracleUpdated, emitted only when it changed. The summary endpoint is text for humans (decision,
 * summaries) and is not needed for quoting; strategies read probability and confidence.
 * Markets are polled one after another in each round, so N markets cost N calls per interval.
 */
import type { Observable } from 'rxjs';
import { VenueError } from '../exchange/client/errors.ts';
import type { OracleQuote } from '../exchange/client/oracle.ts';
import type { Bytes32 } from '../model/order.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import { marketPollFeed, type MarketPollOptions } from './poll-feed.ts';

export interface OracleSource {
  markets: { latestOracleQuote(marketId: string): Promise<OracleQuote | null> };
}

export interface OracleFeedOptions extends MarketPollOptions {
  client: OracleSource;
}

const SOURCE = 'oracle';
/** The venue's confidence words as numbers for the strategies' model maths. */
const CONFIDENCE: Record<string, number> = { low: 0.25, medium: 0.6, high: 0.9 };

export function oracleEvent(marketId: Bytes32, q: OracleQuote | null, now: number): FeedEvent | null {
  if (!q || q.status !== 'completed' || q.probability === null || !Number.isFinite(q.probability)) return null;
  const probability = Math.min(1, Math.max(0, q.probability));
  const updatedAt = venueMs(q.completedAt ?? q.createdAt) || now;
  const confidence = q.confidence === null ? 0.5 : (CONFIDENCE[q.confidence] ?? 0.5);
  return feedEvent(SOURCE, { type: 'OracleUpdated', marketId, probability, confidence, updatedAt, ts: now }, updatedAt, now);
}

export function oracleFeed(opts: OracleFeedOptions): Observable<FeedEvent> {
  // a market nobody has asked the oracle about answers 404: no quote yet, not a failure
  const latest = (id: Bytes32): Promise<OracleQuote | null> =>
    opts.client.markets.latestOracleQuote(id).catch((e: unknown) => {
      if (e instanceof VenueError && e.status === 404) return null;
      throw e;
    });
  return marketPollFeed(SOURCE, opts, async (id) => {
    const e = oracleEvent(id, await latest(id), opts.clock.now());
    if (!e || e.event.type !== 'OracleUpdated') return null;
    return { sig: `${e.event.probability}|${e.event.confidence}|${e.event.updatedAt}`, event: e };
  });
}
