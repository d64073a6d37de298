/**
 * A polling source as an Observable: call `read()` at once and then every `intervalMs` on the
 * clock's scheduler, one read at a time (a slow answer delays the next poll instead of piling up
 * requests). A failed read is logged (at most once per minute per source), counted in the health
 * record and skipped: the Observable never errors.
 */
import { catchError, defer, EMPTY, exhaustMap, from, map, mergeMap, timer, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import type { Bytes32 } from '../model/order.ts';
import { idsOf, perRound, PollRounds, pruneTo, type MarketIds } from './market-ids.ts';

/** What every polling feed takes besides its source: the clock, the interval, where health and logs go. */
export interface PollTiming {
  clock: Clock;
  intervalMs: number;
  health?: FeedHealth;
  logger?: Logger;
}

/** A per-market polling feed's markets, and its read budget. */
export interface MarketPollOptions extends PollTiming {
  /** a fixed list, or a getter read at every poll (markets start and retire while the feed runs) */
  marketIds: MarketIds;
  /**
   * markets read a second at most, on average (`feeds.marketReadsPerSecond`): with more markets than
   * a round of `intervalMs` may read, each round reads the next ones in turn (default: every market
   * every round)
   */
  readsPerSecond?: number;
}

export interface PollFeedOptions extends PollTiming {
  name: string;
  read: () => Promise<FeedEvent[]>;
  /** stale after this many ms without a good read (default 3 × interval) */
  staleAfterMs?: number;
}

/** The poll of a feed named `name` that calls `read` on the feed's timing (its own options). */
export function pollOf(name: string, timing: PollTiming, read: () => Promise<FeedEvent[]>): PollFeedOptions {
  return {
    name,
    clock: timing.clock,
    intervalMs: timing.intervalMs,
    read,
    ...(timing.health ? { health: timing.health } : {}),
    ...(timing.logger ? { logger: timing.logger } : {}),
  };
}

/**
 * A per-market poll that emits a market's event only when it changed: `readOne` reads one market and
 * returns its event with a signature of what matters in it (null: nothing to emit); each round reads
 * every market, or the next ones in turn under `readsPerSecond`.
 */
export function marketPollFeed(
  name: string,
  opts: MarketPollOptions,
  readOne: (id: Bytes32) => Promise<{ sig: string; event: FeedEvent } | null>,
): Observable<FeedEvent> {
  const last = new Map<string, string>();
  const rounds = opts.readsPerSecond === undefined ? null : new PollRounds(perRound(opts.readsPerSecond, opts.intervalMs));
  async function read(): Promise<FeedEvent[]> {
    const out: FeedEvent[] = [];
    const all = idsOf(opts.marketIds);
    pruneTo(last, all);
    const ids = rounds ? rounds.next(all) : all;
    for (const id of ids) {
      const r = await readOne(id);
      if (!r || last.get(id) === r.sig) continue;
      last.set(id, r.sig);
      out.push(r.event);
    }
    return out;
  }
  return pollFeed(pollOf(name, opts, read));
}

export function pollFeed(opts: PollFeedOptions): Observable<FeedEvent> {
  return pollBatches(opts).pipe(mergeMap((events) => from(events)));
}

/**
 * The same polling source, one array per good read (empty reads included): for a consumer that
 * applies a read as one batch (the balance poll's per-market syncs, src/runtime/phases/feeds.ts).
 */
export function pollBatches(opts: PollFeedOptions): Observable<readonly FeedEvent[]> {
  const log = (opts.logger ?? silentLogger).child({ feed: opts.name });
  opts.health?.register(opts.name, opts.staleAfterMs ?? opts.intervalMs * 3);
  let lastLogged = Number.NEGATIVE_INFINITY;
  return timer(0, opts.intervalMs, opts.clock.scheduler).pipe(
    exhaustMap(() =>
      defer(() => from(opts.read())).pipe(
        map((events) => {
          opts.health?.ok(opts.name, opts.clock.now());
          return events;
        }),
        catchError((err: unknown) => {
          const now = opts.clock.now();
          const message = err instanceof Error ? err.message : String(err);
          opts.health?.error(opts.name, now, message);
          if (now - lastLogged >= 60_000) {
            lastLogged = now;
            log.warn({ err: message }, 'poll failed; will retry');
          }
          return EMPTY;
        }),
      ),
    ),
  );
}
