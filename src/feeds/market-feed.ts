/**
 * Market metadata by polling `GET /markets/:id`: slug, status, deadline and, once resolved, the
 * payout of a YES share, as MarketMetadataUpdated (emitted when something changed). The risk gate
 * pauses quoting before the deadline and when the status is not active, so this is what stops a
 * market on time.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import type { Bytes32 } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { idsOf, perRound, PollRounds, pruneTo, type MarketIds } from './market-ids.ts';
import { pollFeed } from './poll-feed.ts';

export interface MarketSource {
  markets: { get(id: string): Promise<MarketInfo> };
}

export interface MarketFeedOptions {
  client: MarketSource;
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
  const last = new Map<string, string>();
  const rounds = opts.readsPerSecond === undefined ? null : new PollRounds(perRound(opts.readsPerSecond, opts.intervalMs));
  async function read(): Promise<FeedEvent[]> {
    const out: FeedEvent[] = [];
    const all = idsOf(opts.marketIds);
    pruneTo(last, all);
    const ids = rounds ? rounds.next(all) : all;
    for (const id of ids) {
      const m = await opts.client.markets.get(id);
      const sig = `${m.slug}|${m.status}|${m.deadline}|${m.outcome}`;
      if (last.get(id) === sig) continue;
      last.set(id, sig);
      out.push(marketEvent(id, m, opts.clock.now()));
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
