/**
 * Book feed: one streaming connection per market (src/exchange/stream, SSE with ETag-poll fallback)
 * turned into BookEventReceived state events.
 *
 * Which view: only the YES view (outcomeIndex 1). The venue keeps one book per market in YES terms
 * and serves the NO view as its mirror (docs/local-exchange.md), so a second stream would double the traffic
 * and the parse cost for no information; the store builds its YES-terms view from the YES book.
 *
 * Reconnects: a stream that goes live again after a break calls `onReconnect(marketId)` so the
 * runtime reconciles that market's orders (events may have been missed while it was away).
 * Staleness: health source `book:<marketId>` is touched on every event, heartbeat-driven statuses
 * included; the risk gate's own stale-book guard is what pulls quotes.
 *
 * Market status: the stream's `event: status` (a market closed or resolved) comes out as
 * MarketMetadataUpdated {status, payoutYes}, the market poll's own event, so the runtime retires the
 * market at once rather than at the next poll.
 *
 * A changing set of markets (rotation): `add(marketId)` opens a market's stream while the feed runs,
 * `remove(marketId)` closes it (the connection ends, its health source is dropped). The streams run
 * while `events$` has a subscriber; a market added before that starts with the subscription.
 */
import { catchError, EMPTY, map, Observable, Subject, tap, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { createBookStream, type BookStream, type BookStreamOptions } from '../exchange/stream/book-stream.ts';
import type { SnapshotFetcher } from '../exchange/stream/snapshot-fetcher.ts';
import type { Bytes32 } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import { feedEvent, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';

export interface BookFeedOptions {
  baseUrl: string;
  apiKey?: string;
  marketIds: readonly Bytes32[];
  /** per-market JSON snapshot fetcher (resync and the polling fallback) */
  fetchSnapshot: (marketId: Bytes32) => SnapshotFetcher;
  clock: Clock;
  depth?: number;
  idleTimeoutMs?: number;
  pollIntervalMs?: number;
  health?: FeedHealth;
  /** a stale stream counts as stale after this long without an event (default 15 000) */
  staleAfterMs?: number;
  onReconnect?: (marketId: Bytes32) => void;
  /** a stream event dropped as malformed (logged by the stream, sampled): for a metric */
  onMalformed?: (marketId: Bytes32) => void;
  /**
   * A market's stream sent a heartbeat stamped with the venue's clock (ms): called in stream order with
   * that market's events, while its stream is live and in sequence (src/exchange/stream/book-stream.ts).
   */
  onHeartbeat?: (marketId: Bytes32, venueTs: number) => void;
  /** a read's consecutive deltas as one event (src/exchange/stream/book-stream.ts; the live bot: true) */
  coalesceDeltas?: boolean;
  logger?: Logger;
  /** extra stream options (tests: backoff, fetch) */
  stream?: Partial<BookStreamOptions>;
}

export interface BookFeed {
  readonly events$: Observable<FeedEvent>;
  /** the per-market stream objects, for their counters (metrics) */
  readonly streams: ReadonlyMap<string, BookStream>;
  /** open a market's stream (no-op when it is already covered); false when it was already there */
  add(marketId: Bytes32): boolean;
  /** close a market's stream and forget it; false when it was not covered */
  remove(marketId: Bytes32): boolean;
}

function venueTsOf(e: Exclude<BookEvent, { type: 'market-status' }>): number {
  if (e.type === 'snapshot') return e.book.venueTs;
  return e.type === 'status' ? 0 : e.venueTs;
}

export function createBookFeed(opts: BookFeedOptions): BookFeed {
  const log = opts.logger ?? silentLogger;
  const streams = new Map<string, BookStream>();
  const parts = new Map<string, Observable<FeedEvent>>();
  /** the live subscriptions of each market's stream, while events$ is subscribed */
  const running = new Map<string, Subscription>();
  let out: Subject<FeedEvent> | null = null;
  const part = (marketId: Bytes32): Observable<FeedEvent> => {
    const source = `book:${marketId}`;
    opts.health?.register(source, opts.staleAfterMs ?? 15_000);
    const bs = createBookStream({
      baseUrl: opts.baseUrl,
      marketId,
      outcomeIndex: 1,
      depth: opts.depth ?? 20,
      ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      fetchSnapshot: opts.fetchSnapshot(marketId),
      clock: opts.clock,
      logger: log,
      ...(opts.idleTimeoutMs ? { idleTimeoutMs: opts.idleTimeoutMs } : {}),
      ...(opts.pollIntervalMs ? { pollIntervalMs: opts.pollIntervalMs } : {}),
      ...(opts.onMalformed ? { onMalformed: () => opts.onMalformed!(marketId) } : {}),
      ...(opts.onHeartbeat ? { onHeartbeat: (ts: number) => opts.onHeartbeat!(marketId, ts) } : {}),
      ...(opts.coalesceDeltas ? { coalesceDeltas: true } : {}),
      ...opts.stream,
    });
    streams.set(marketId, bs);
    let wentAway = false;
    return bs.events$.pipe(
      tap((e) => {
        if (e.type === 'status') {
          if (e.state === 'reconnecting' || e.state === 'stale' || e.state === 'closed') wentAway = true;
          else if ((e.state === 'live' || e.state === 'polling') && wentAway) {
            wentAway = false;
            opts.onReconnect?.(marketId);
          }
        }
        if (e.type !== 'status' || e.state === 'live' || e.state === 'polling') opts.health?.ok(source, opts.clock.now());
      }),
      map((e) =>
        e.type === 'market-status'
          ? // a venue fact, not book data: the same event as the market poll's, so it takes the same path
            // (store status, risk gate, claims, rotation retirement) without waiting for that poll
            feedEvent(source, { type: 'MarketMetadataUpdated', marketId, status: e.status, payoutYes: e.payoutYes, ts: opts.clock.now() }, e.venueTs, e.localTs)
          : feedEvent(source, { type: 'BookEventReceived', event: e, ts: opts.clock.now() }, venueTsOf(e), e.localTs),
      ),
      catchError((err: unknown) => {
        // the stream client does not error by contract; if it ever does, this market goes quiet and
        // the stale-book guard pulls its quotes rather than the whole pipeline stopping
        log.error({ marketId, err: (err as Error).message }, 'book stream failed');
        return EMPTY;
      }),
    );
  };
  const run = (k: string, p: Observable<FeedEvent>): void => {
    const o = out;
    if (!o) return;
    running.set(k, p.subscribe({ next: (e) => o.next(e) }));
  };
  const add = (marketId: Bytes32): boolean => {
    const k = marketId;
    if (parts.has(k)) return false;
    const p = part(marketId);
    parts.set(k, p);
    run(k, p);
    return true;
  };
  const remove = (marketId: Bytes32): boolean => {
    const k = marketId;
    if (!parts.has(k)) return false;
    parts.delete(k);
    streams.delete(k);
    running.get(k)?.unsubscribe(); // closes the connection (BookStream's teardown)
    running.delete(k);
    opts.health?.unregister(`book:${k}`);
    return true;
  };
  for (const id of opts.marketIds) add(id);
  // one subscriber at a time (the runtime's sink): every market's stream runs while it listens
  const events$ = new Observable<FeedEvent>((subscriber) => {
    const o = new Subject<FeedEvent>();
    out = o;
    const sub = o.subscribe(subscriber);
    for (const [k, p] of parts) run(k, p);
    return () => {
      if (out === o) out = null;
      for (const s of running.values()) s.unsubscribe();
      running.clear();
      sub.unsubscribe();
    };
  });
  return { events$, streams, add, remove };
}
