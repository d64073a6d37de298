/**
 * Oracle data by polling: per market the latest completed oracle quote (probability, confidence)
 * as OracleUpdated, emitted only when it changed. The summary endpoint is text for humans (decision,
 * summaries) and is not needed for quoting; strategies read probability and confidence.
 * Markets are polled one after another in each round, so N markets cost N calls per interval.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { VenueError } from '../exchange/client/errors.ts';
import type { OracleQuote } from '../exchange/client/oracle.ts';
import type { Bytes32 } from '../model/order.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { idsOf, perRound, PollRounds, pruneTo, type MarketIds } from './market-ids.ts';
import { pollFeed } from './poll-feed.ts';

export interface OracleSource {
  markets: { latestOracleQuote(marketId: string): Promise<OracleQuote | null> };
}

export interface OracleFeedOptions {
  client: OracleSource;
  /** a fixed list, or a getter read at every poll (markets start and retire while the feed runs) */
  marketIds: MarketIds;
  clock: Clock;
  intervalMs: number;
  /**
   * markets read a second at most, on average (`feeds.marketReadsPerSecond`): with more markets than
   * a round of `intervalMs` may read, each round reads the next ones in turn (default: every market
   * every round)
   */
  readsPerSecond?: number;
  health?: FeedHealth;
  logger?: Logger;
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
  const last = new Map<string, string>();
  const rounds = opts.readsPerSecond === undefined ? null : new PollRounds(perRound(opts.readsPerSecond, opts.intervalMs));
  // a market nobody has asked the oracle about answers 404: no quote yet, not a failure
  const latest = (id: Bytes32): Promise<OracleQuote | null> =>
    opts.client.markets.latestOracleQuote(id).catch((e: unknown) => {
      if (e instanceof VenueError && e.status === 404) return null;
      throw e;
    });
  async function read(): Promise<FeedEvent[]> {
    const out: FeedEvent[] = [];
    const all = idsOf(opts.marketIds);
    pruneTo(last, all);
    const ids = rounds ? rounds.next(all) : all;
    for (const id of ids) {
      const e = oracleEvent(id, await latest(id), opts.clock.now());
      if (!e || e.event.type !== 'OracleUpdated') continue;
      const sig = `${e.event.probability}|${e.event.confidence}|${e.event.updatedAt}`;
      if (last.get(id) === sig) continue;
      last.set(id, sig);
      out.push(e);
    }
    return out;
  }
  return pollFeed({
    name: SOURCE,
    clock: opts.clock,
    intervalMs: opts.intervalMs,
    read,
    ...(opts.health ? { health: opts.health } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}
