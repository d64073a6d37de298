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

export interface PollFeedOptions {
  name: string;
  clock: Clock;
  intervalMs: number;
  read: () => Promise<FeedEvent[]>;
  health?: FeedHealth;
  /** stale after this many ms without a good read (default 3 × interval) */
  staleAfterMs?: number;
  logger?: Logger;
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
