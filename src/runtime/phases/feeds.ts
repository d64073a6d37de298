/**
 * The feeds phase of the live start-up (src/runtime/bot.ts): books, market status, oracle, activity and
 * (live) fills and balances, each into the trading core through one sink that drops market data of
 * markets the bot no longer follows; then the bounded waits for a first book of every market and
 * (live) a first balance read, so nothing is quoted on positions the bot does not know yet.
 */
import type { Subscription } from 'rxjs';
import type { MarketConfig } from '../../config/types.ts';
import { KEEPALIVE_STATUS_MS } from '../../exchange/stream/book-stream.ts';
import { venueSnapshotFetcher } from '../../exchange/stream/venue-snapshot-fetcher.ts';
import { filePositionStore, memoryPositionStore } from '../../feeds/activity-cursor.ts';
import { activityFeed } from '../../feeds/activity-feed.ts';
import { BookTouches, type RestingAt } from '../../feeds/book-touches.ts';
import { ParkedCancels } from '../../feeds/parked-cancels.ts';
import { createBookFeed, type BookFeed } from '../../feeds/book-feed.ts';
import type { FeedEvent } from '../../feeds/feed-event.ts';
import { FeedHealth } from '../../feeds/feed-health.ts';
import { marketFeed } from '../../feeds/market-feed.ts';
import { oracleFeed } from '../../feeds/oracle-feed.ts';
import { tradingBatches } from '../../feeds/trading-feed.ts';
import { eventMarket } from '../../kernel/quoting-kernel.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { EventBus } from '../../kernel/event-bus.ts';
import type { OrderManagerEvent, StateEvent } from '../../state/events.ts';
import type { StateStore } from '../../state/store.ts';
import { untilAborted } from '../startup-retry.ts';
import { waitForBooks } from '../startup-waits.ts';
import { fillsPollMs, type CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { MarketLists } from './market-lists.ts';
import type { SelectPhase } from './select.ts';
import type { StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

export interface FeedsPhase {
  readonly health: FeedHealth;
  /** the book feed: rotation subscribes the markets it adds and drops the ones it releases */
  readonly books: BookFeed;
}

type SinkLists = Pick<MarketLists, 'known' | 'retain'>;

/**
 * What the sink does with one event: 'drop' market data of a market the bot no longer follows (a
 * balance read of a market that left flat says nothing new either), 'stranger' anything else of such
 * a market (a late fill: it goes in, and the market is followed again), 'in' the rest.
 */
function admit(lists: SinkLists, e: StateEvent): 'in' | 'drop' | 'stranger' {
  const t = e.type;
  const eventId = t === 'BalanceUpdated' ? null : eventMarket(e);
  if (!eventId || lists.known(eventId)) return 'in';
  if (t === 'BookEventReceived' || t === 'OracleUpdated' || t === 'MarketMetadataUpdated') return 'drop';
  if (t === 'PositionSynced' && e.yes === 0 && e.no === 0) return 'drop';
  return 'stranger';
}

/**
 * Where every feed event goes: into the core, unless admit() drops it. A stranger's market is
 * retained after the state has the event.
 */
export function feedSink(lists: SinkLists, receive: (e: StateEvent) => void, onError: (err: Error, source: string) => void) {
  return (fe: FeedEvent): void => {
    try {
      const a = admit(lists, fe.event);
      if (a === 'drop') return;
      receive(fe.event);
      if (a === 'stranger') lists.retain(eventMarket(fe.event)!);
    } catch (err) {
      // a bug downstream must not kill the feed; the invariant checks catch real damage
      onError(err as Error, fe.source);
    }
  };
}

/** A balance read's events: applied together as one batch. */
const isBalanceRead = (e: StateEvent): boolean => e.type === 'PositionSynced' || e.type === 'BalanceUpdated';

/**
 * The sink of a poll that arrives as one read (the trading poll: fills, then the balance read of
 * every followed market). Each run of balance-read events goes into the core as one batch (one
 * reduce, one store notification, one scheduling pass) instead of thousands of single events a
 * second; anything else (fills, order updates) goes in one by one, in order, through `one`, so the
 * fills are in the books before the read that follows them is compared with the books.
 */
export function feedBatchSink(
  lists: SinkLists,
  one: (fe: FeedEvent) => void,
  receiveAll: (es: readonly StateEvent[]) => void,
  onError: (err: Error, source: string) => void,
) {
  return (fes: readonly FeedEvent[]): void => {
    let run: StateEvent[] = [];
    let strangers: Bytes32[] = [];
    let source = '';
    const flush = (): void => {
      if (run.length === 0) return;
      const es = run;
      const gone = strangers;
      run = [];
      strangers = [];
      try {
        receiveAll(es);
        for (const id of gone) lists.retain(id);
      } catch (err) {
        onError(err as Error, source);
      }
    };
    for (const fe of fes) {
      if (!isBalanceRead(fe.event)) {
        flush();
        one(fe);
        continue;
      }
      let a: ReturnType<typeof admit>;
      try {
        a = admit(lists, fe.event);
      } catch (err) {
        onError(err as Error, fe.source);
        continue;
      }
      if (a === 'drop') continue;
      source = fe.source;
      run.push(fe.event);
      if (a === 'stranger') strangers.push(eventMarket(fe.event)!);
    }
    flush();
  };
}

/** Whether an order (lower-case or not) is one the store tracks: in its market when the venue names it. */
export function trackedOrder(store: StateStore): (nonce: Bytes32, marketId?: Bytes32) => boolean {
  return (nonce, marketId) => {
    const k = nonce;
    // the order's market when the venue names it: one lookup instead of a scan of every market
    if (marketId !== undefined) return store.state.markets.get(marketId)?.orders.has(k) ?? false;
    for (const m of store.state.markets.values()) if (m.orders.has(k)) return true;
    return false;
  };
}

/**
 * How often a quiet market's live stream repeats its status (the keep-alive the stream-silence and
 * stale-book guards count as the stream heard alive; docs/operating.md): half the tightest of those
 * two limits over the config's market entries, and never more than the stream's default. A period
 * above a limit would pull every quiet market's quotes each time the limit ran out while heartbeats
 * still arrive, and requote on the book event of the own cancels: adopted and working orders churn.
 */
export function keepaliveStatusMsFor(markets: readonly Pick<MarketConfig, 'risk'>[]): number {
  let ms = KEEPALIVE_STATUS_MS;
  for (const m of markets) ms = Math.min(ms, Math.floor(Math.min(m.risk.maxStreamSilenceMs, m.risk.maxBookAgeMs) / 2));
  return Math.max(1, ms); // 0 would turn the keep-alives off
}

/** seconds one sweep of the wallet's whole open-order list is spread over (docs/performance.md) */
export const ORDERS_SWEEP_SECONDS = 30;

/** What the trading poll learns between polls: the streams' marks and the orders the bot cancelled. */
export interface TradingMarks {
  readonly touches: BookTouches;
  readonly cancels: ParkedCancels;
}

/**
 * The trading poll's marks (see BookTouches): the book feed shows them each book event (touchingSink).
 * An order the bot ended is counted until its last fills are known (the cancel's answer states none:
 * docs/books-and-pnl.md). One whose cancel the venue answered waits in ParkedCancels, with the creates
 * sent after it (their insertion times order the market's stream against the cancel), and is released
 * without a read once its market's stream has passed the cancel with no trade at its price; one found
 * gone (a reconcile, a refused cancel) marks its market, read at the next poll as before.
 */
export function tradingTouches(orderEvents: Pick<EventBus<OrderManagerEvent>, 'on'>): TradingMarks {
  const touches = new BookTouches();
  const cancels = new ParkedCancels();
  orderEvents.on('react', (e) => {
    switch (e.type) {
      case 'OrderParked':
        if (e.cancelled) cancels.parked(e.nonce, e.marketId);
        else touches.markAll(e.marketId);
        return;
      case 'OrderSubmitted':
        cancels.submitted(e.nonce, e.retry);
        return;
      case 'OrderAccepted':
        cancels.accepted(e.nonce, e.insertedAt);
        return;
      case 'OrderRejected':
        cancels.rejected(e.nonce);
        return;
      case 'OrderCancelled':
      case 'OrderGone':
        cancels.ended(e.nonce);
        return;
      default:
        return;
    }
  });
  return { touches, cancels };
}

/** The book feed's sink, each book event first shown to the own-orders poll's marks. */
export function touchingSink(marks: TradingMarks, sink: (fe: FeedEvent) => void): (fe: FeedEvent) => void {
  const { touches, cancels } = marks;
  return (fe) => {
    if (fe.event.type === 'BookEventReceived') {
      touches.see(fe.event.event);
      cancels.see(fe.event.event);
    }
    sink(fe);
  };
}

/** The store's own orders of a market, in flight and cancelling included: where they rest. */
export function storeOrdersOf(store: StateStore): (marketId: Bytes32) => Iterable<RestingAt> {
  return function* (marketId) {
    const m = store.state.markets.get(marketId);
    if (m) for (const o of m.orders.values()) yield o.order;
  };
}

export async function feedsPhase(
  c: StartContext,
  { client }: VenuePhase,
  { marketIds, lists }: SelectPhase,
  { bookLedger }: LedgerPhase,
  cp: CorePhase,
): Promise<FeedsPhase> {
  const { cfg, clock, log, metrics, v, paper, signal } = c;
  const { core, shutdown, venue } = cp;
  const { store, orderManager: om } = core;
  const health = new FeedHealth();
  const subs: Subscription[] = [];
  const unsubscribe = (): void => subs.forEach((s) => s.unsubscribe());
  c.life.add(unsubscribe);
  shutdown.onStop(unsubscribe);
  const sink = feedSink(
    lists,
    (e) => core.receive(e),
    (err, source) => log.error({ err: err.message, source }, 'event handling failed'),
  );
  const batchSink = feedBatchSink(
    lists,
    sink,
    (es) => core.receiveAll(es),
    (err, source) => log.error({ err: err.message, source }, 'event handling failed'),
  );
  const reconnected = (marketId: Bytes32): void => {
    metrics.streamReconnects.inc({ market: marketId });
    if (!shutdown.stopping) void om.reconcile(marketId);
  };
  // the trading poll reads by market: the markets whose trades reached our orders (see BookTouches)
  const marks = paper ? null : tradingTouches(core.orderEvents);
  const books = createBookFeed({
    baseUrl: v.baseUrl,
    ...(v.apiKey ? { apiKey: v.apiKey } : {}),
    marketIds,
    fetchSnapshot: (id) => venueSnapshotFetcher(client, id, 1, cfg.feeds.bookDepth),
    clock,
    depth: cfg.feeds.bookDepth,
    idleTimeoutMs: cfg.feeds.streamIdleTimeoutMs,
    pollIntervalMs: cfg.feeds.bookPollMs,
    health,
    onReconnect: reconnected,
    onMalformed: () => metrics.bookEventsDropped.inc(),
    // a quiet market's heartbeats pass its cancelled orders' witness (see ParkedCancels)
    ...(marks ? { onHeartbeat: (id: Bytes32, ts: number) => marks.cancels.heard(id, ts) } : {}),
    // a backlog read at once (after a stall) is one store update and one tick per market, on the caught-up book
    coalesceDeltas: true,
    stream: { keepaliveStatusMs: keepaliveStatusMsFor(cfg.markets) },
    logger: c.o.logger,
  });
  subs.push(books.events$.subscribe(marks ? touchingSink(marks, sink) : sink));
  subs.push(
    marketFeed({
      client,
      marketIds: lists.tracked,
      clock,
      intervalMs: Math.max(5_000, cfg.feeds.balancePollMs * 2),
      readsPerSecond: cfg.feeds.marketReadsPerSecond,
      health,
      logger: c.o.logger,
    }).subscribe(sink),
  );
  subs.push(
    oracleFeed({
      client,
      marketIds: lists.live,
      clock,
      intervalMs: cfg.feeds.oraclePollMs,
      readsPerSecond: cfg.feeds.marketReadsPerSecond,
      health,
      logger: c.o.logger,
    }).subscribe(sink),
  );
  subs.push(
    activityFeed({
      client,
      clock,
      intervalMs: cfg.feeds.activityPollMs,
      store: c.o.activityStateFile ? filePositionStore(c.o.activityStateFile) : memoryPositionStore(),
      marketIds: lists.tracked,
      // only a resolution becomes an event: the venue's other items (every market's oracle updates
      // and trades) are not read at all
      types: ['resolution'],
      health,
      logger: c.o.logger,
    }).subscribe(sink),
  );
  if (paper) {
    store.dispatch({ type: 'BalanceUpdated', collateral: cfg.venue.kind === 'local' ? cfg.venue.local.startingCollateral : 10_000_000_000n, ts: clock.now() });
  } else {
    // fills matter for quoting within a second; balances ride along in the same poll, applied as one batch
    subs.push(
      tradingBatches({
        client,
        trader: venue.trader,
        marketIds: lists.tracked,
        clock,
        intervalMs: fillsPollMs(cfg),
        health,
        logger: c.o.logger,
        isTracked: trackedOrder(store),
        seed: bookLedger.catchUp.openOrders,
        fees: bookLedger.fees,
        isOwn: bookLedger.isOwn,
        ...(marks ? { touches: marks.touches, cancels: marks.cancels, ordersOf: storeOrdersOf(store) } : {}),
        sweepPolls: Math.max(1, Math.round((ORDERS_SWEEP_SECONDS * 1000) / fillsPollMs(cfg))),
        arrival: bookLedger.arrival,
        stats: {
          read: (kind, n) => metrics.ownOrdersReads.inc({ kind }, n),
          released: (n) => metrics.ownOrdersReleasedUnread.inc(n),
          sweepDone: (ms, pages) => {
            metrics.ownOrdersSweepSeconds.set(ms / 1000);
            metrics.ownOrdersSweepPages.set(pages);
          },
        },
      }).subscribe(batchSink),
    );
  }

  c.early?.controls.phase('books and balances');
  await untilAborted(waitForBooks(store, marketIds, clock, c.o.warmupMs ?? 5_000), signal);
  if (!paper) {
    // A restarted bot that quoted before its first positions read would count its position as 0 and
    // could quote straight past its limits (the venue holds what the last run bought); the read is
    // retried by the feed, so this waits through venue trouble, bounded so a venue that never
    // answers the balance read still gets the start-up reconcile and the dead-man cleanup.
    let cancelWait: () => void = () => undefined;
    const waited = await untilAborted(
      Promise.race([cp.accountRead.then(() => true), new Promise<boolean>((r) => (cancelWait = clock.setTimeout(() => r(false), 60_000)))]),
      signal,
    ).finally(() => cancelWait());
    if (!waited) log.warn('no balance/positions read within 60 s; quoting with positions unknown until one lands');
  }
  return { health, books };
}
