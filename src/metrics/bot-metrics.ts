/**
 * The bot's Prometheus metrics on a private prom-client Registry (never the global one, so several
 * bots or tests in one process do not collide).
 *
 * Entry points:
 *   const metrics = createBotMetrics({ prefix: 'bookmaker_' });
 *   metrics.setStateSource(() => store.state, clock)  // gauges computed at scrape time
 *   bindStoreMetrics(metrics, store)                  // counters from events (bind-store-metrics.ts)
 *   metrics.apiLatency.observe({ method, endpoint, status }, seconds)   // the venue transport (every attempt)
 *   metrics.tickToWire.observe(seconds)                          // the runtime (src/kernel/tick-to-wire.ts)
 *   metrics.tickToWireCancel.observe(seconds)                    // the same, for cancel-only sends
 *   metrics.requoteThrottle.observe(seconds)                     // the runtime: throttle wait, apart
 *   metrics.rateBudgetPressure.set(0..1)                         // the risk gate's token bucket
 *   metrics.loopStalls.inc({ cause }) / loopStalledSeconds.inc({ cause }, s)   // the watchdog's stall reports
 *   await metrics.registry.metrics()                            // exposition text
 * Labels carry only public values (market ids or slugs, endpoint names, reason codes); never keys.
 *
 * Units follow Prometheus conventions: seconds, and USDC / shares as floats (converted from the
 * integer units only here, at the edge).
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { declareOn } from './declare.ts';
import type { Clock } from '../core/clock.ts';
import type { StoreState } from '../state/market-state.ts';
import { marketPnl, reservedCollateral } from '../state/market-view.ts';
import type { Account } from '../account/account.ts';
import { booksClaimable } from '../account/books-claimable.ts';
import { toYesTerms } from '../strategy/to-orders.ts';
import { OWN_ORDERS_READ_KINDS } from '../feeds/own-orders-feed.ts';
import { registerEdgeMetrics } from './edge-metrics.ts';
import { FastHistogram } from './fast-histogram.ts';

export interface BotMetricsOptions {
  prefix?: string;
  /** label markets by slug when known (more readable dashboards) instead of id */
  labelBySlug?: boolean;
  /**
   * prom-client's default process and Node.js metrics (process_*, nodejs_*, unprefixed so standard
   * dashboards and alerts find them; default true). Off for registries built many times per process
   * (backtest sweeps, tests) where one set per process is enough.
   */
  defaultMetrics?: boolean;
}

/** Latency buckets from 50 µs to 10 s: the hot path sits in the first few, a stalled venue in the last. */
export const LATENCY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const MICRO = 1e6;

export function createBotMetrics(opts: BotMetricsOptions = {}) {
  const p = opts.prefix ?? 'bookmaker_';
  const registry = new Registry();
  const r = [registry];
  const d = declareOn(registry, p);
  let source: { state: () => StoreState; clock: Clock } | null = null;
  let books: Account | null = null;
  const marketLabel = (id: string, slug?: string): string => (opts.labelBySlug && slug ? slug : id);

  const m = {
    registry,
    ordersSent: d.counter(
      'orders_sent_total',
      'Orders sent to the venue by action (create, resend of the same signed order, cancel; ' +
        "cancel-stranger: a cancel of an order reconciliation found that is not this run's)",
      ['market', 'action'],
    ),
    ordersAccepted: d.counter(
      'orders_accepted_total',
      'Creates the venue accepted; duplicate="true" when a 409 duplicate showed an earlier send had placed it',
      ['market', 'duplicate'],
    ),
    ordersCancelled: d.counter(
      'orders_cancelled_total',
      'Orders cancelled at the venue by a cancel of the bot (not one the venue had already ended when the cancel came: filled, expired)',
      ['market'],
    ),
    ordersRejected: d.counter(
      'orders_rejected_total',
      "Creates the venue refused, by the venue's code (a bounded set; unknown codes are 'other'; network, timeout, server-error when no answer had a code)",
      ['market', 'reason'],
    ),
    strangersCancelled: d.counter(
      'strangers_cancelled_total',
      "Strangers cancelled at the venue by reconciliation: open orders in the bot's markets this run neither placed " +
        'nor adopted (not in orders_cancelled_total)',
      ['market'],
    ),
    cancelsFailed: d.counter('cancels_failed_total', 'Cancels that failed, by reason code', ['market', 'reason']),
    ordersAdopted: d.counter('orders_adopted_total', 'Orders found at the venue and adopted into a quote slot by reconciliation', ['market']),
    reconciles: d.counter('reconciles_total', 'Reconciliations with the venue'),
    fills: d.counter('fills_total', 'Own fills', ['market', 'side']),
    fillShares: d.counter('fill_volume_shares_total', 'Shares filled', ['market']),
    fillNotional: d.counter('fill_volume_usdc_total', 'Notional filled, USDC', ['market']),
    fees: d.counter('fees_usdc_total', 'Fees paid, USDC', ['market']),
    riskDenials: d.counter('risk_denials_total', 'Quotes trimmed or denied by the risk layer, by reason', ['market', 'reason']),
    requotesShed: d.counter('requotes_shed_total', 'Requotes not sent because of a venue back-off (429)'),
    backoffs: d.counter('venue_backoffs_total', 'Back-offs started after the venue rate-limited us'),
    venueCalls: d.counter('venue_calls_total', 'Order-manager venue calls by kind and result', ['call', 'ok']),
    marketsBlocked: d.counter('market_blocks_total', 'Markets where quoting stopped (409 migration, halt)', ['market', 'reason']),
    streamReconnects: d.counter('stream_reconnects_total', 'Book stream reconnects', ['market']),
    ownOrdersReads: d.counter(
      'own_orders_reads_total',
      'Requests of the own-orders poll by kind: market (one market: its trades reached our orders, or an order of ours there ended and its stream could not release it), sweep (a page of the sweep of the whole open list), full (a page of the whole list), ' +
        'ended (a page of the ended orders, read instead of lookups when many orders are owed one at once)',
      ['kind'],
    ),
    ownOrdersSweepSeconds: d.gauge(
      'own_orders_sweep_seconds',
      'How long the last finished sweep of the whole open-orders list took, first page to last (a fill no stream showed is found within it)',
    ),
    ownOrdersSweepPages: d.gauge('own_orders_sweep_pages', 'Pages of open orders the last finished sweep read'),
    ownOrdersReleasedUnread: d.counter(
      'own_orders_released_unread_total',
      "Orders the bot cancelled that the own-orders poll released without a read: their market's stream passed the cancel and no trade reached their price",
    ),
    bookEventsDropped: d.counter(
      'book_events_dropped_total',
      'Book stream events dropped as malformed (bad JSON or fields, an unknown market status), each logged (sampled)',
    ),
    // the three histograms on the hot path (every request, every caused send, every tick): ./fast-histogram.ts
    apiLatency: new FastHistogram({
      name: `${p}api_latency_seconds`,
      help: 'Venue API latency per attempt, from request written to answer read, by method, endpoint template and HTTP status (or network/timeout)',
      labelNames: ['method', 'endpoint', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: r,
    }),
    tickToWire: new FastHistogram({
      name: `${p}tick_to_wire_seconds`,
      help: 'From the book event that caused a send to the signed request written, excluding the requote throttle wait',
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    tickToWireCancel: new FastHistogram({
      name: `${p}tick_to_wire_cancel_seconds`,
      help: 'As tick_to_wire_seconds, for a book event whose first request carried only cancels (a requote that only pulls quotes)',
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    requoteThrottle: new FastHistogram({
      name: `${p}requote_throttle_seconds`,
      help: 'How long the requote throttle held a book event before the tick that handled it ran (0 when it ran at once)',
      buckets: [0, ...LATENCY_BUCKETS],
      registers: r,
    }),
    booksDrift: d.counter(
      'books_drift_total',
      'Balance reads whose tokens differed from the books (a read ahead of its fills, or fills the books never got), by market and outcome',
      ['market', 'outcome'],
    ),
    rateBudgetPressure: d.gauge('rate_budget_pressure', 'Fraction of the order-rate budget in use (0 = idle, 1 = exhausted)'),
    loopStalls: d.counter(
      'event_loop_stalls_total',
      'Turns of the event loop of 1 s or more, by what the main thread did meanwhile: busy (ran), cpu-starved (waited for a CPU), off-cpu, unknown',
      ['cause'],
    ),
    loopStalledSeconds: d.counter('event_loop_stalled_seconds_total', 'Seconds the event loop spent in those turns, by the same cause', ['cause']),
    setStateSource(state: () => StoreState, clock: Clock): void {
      source = { state, clock };
    },
    /** The account's books: the PnL gauges read them (one PnL function for every consumer). */
    setAccount(account: Account): void {
      books = account;
    },
    /** The live venue's order-call queue (src/runtime/live-venue.ts), read at scrape time. */
    setOrderCalls(read: () => { waiting: number; inFlight: number }): void {
      orderCalls = read;
    },
    /** The same checks /readyz answers with (see readiness.ts); `notHalted` feeds the halted gauge. */
    setReadiness(fn: () => Record<string, boolean>): void {
      readiness = fn;
    },
  };
  // every kind's series from the first scrape (a series born at its first event breaks rate() over it)
  for (const kind of OWN_ORDERS_READ_KINDS) m.ownOrdersReads.inc({ kind }, 0);
  let readiness: (() => Record<string, boolean>) | null = null;
  let orderCalls: (() => { waiting: number; inFlight: number }) | null = null;
  d.readGauge(
    'order_calls_waiting',
    'Order calls (bulk, cancel-replace, create) waiting, unsent, for a free in-flight slot of the live venue',
    () => orderCalls?.().waiting,
  );
  d.readGauge(
    'order_calls_in_flight',
    "Order calls sent to the venue and not yet answered (at most the live venue's in-flight limit)",
    () => orderCalls?.().inFlight,
  );
  if (opts.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry });
    // gauges named like counters fail `promtool check metrics`; their labelled forms
    // (nodejs_active_handles{type}, nodejs_active_requests{type}, nodejs_active_resources{type}) stay
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  }
  d.readGauge('ready', '1 when feeds are live, orders reconciled and the bot not halted', () =>
    readiness ? (Object.values(readiness()).every(Boolean) ? 1 : 0) : undefined,
  );
  d.readGauge('halted', '1 after the kill switch or a broken invariant stopped quoting', () => {
    const checks = readiness?.();
    return checks && 'notHalted' in checks ? (checks.notHalted ? 0 : 1) : undefined;
  });

  // Per-market gauges are read from the latest store snapshot at scrape time: nothing on the hot path.
  const perMarket = (
    name: string,
    help: string,
    read: (s: StoreState, now: number, set: (labels: Record<string, string>, v: number) => void) => void,
    labelNames: string[] = ['market'],
  ) =>
    new Gauge({
      name: `${p}${name}`,
      help,
      labelNames,
      registers: r,
      collect() {
        this.reset();
        if (!source) return;
        read(source.state(), source.clock.now(), (labels, v) => this.set(labels, v));
      },
    });

  perMarket('position_shares', 'Net YES position (YES − NO), shares', (s, _n, set) => {
    // the books' position when the account is set (what the limits use), else the store's
    for (const mk of s.markets.values()) set({ market: marketLabel(mk.marketId, mk.slug) }, (books ? books.holdingsOf(mk.marketId) : mk.position).net / MICRO);
  });
  perMarket(
    'pnl_usdc',
    'PnL per market, USDC: realised (average cost, net of fees) and unrealised (marked to mid)',
    (s, _n, set) => {
      for (const mk of s.markets.values()) {
        const pnl = books ? books.marketPnl(mk.marketId) : marketPnl(mk);
        const market = marketLabel(mk.marketId, mk.slug);
        set({ market, kind: 'realised' }, Number(pnl.realised) / MICRO);
        set({ market, kind: 'unrealised' }, Number(pnl.unrealised) / MICRO);
      }
    },
    ['market', 'kind'],
  );
  perMarket('quoted_spread_usdc', 'Own best ask − own best bid in YES terms, USDC per share (absent when one side is missing)', (s, _n, set) => {
    for (const mk of s.markets.values()) {
      let bid = -Infinity;
      let ask = Infinity;
      for (const o of mk.orders.values()) {
        const y = toYesTerms(o.order.outcomeIndex, o.order.side, o.order.price);
        if (y.side === 'bid') bid = Math.max(bid, y.price);
        else ask = Math.min(ask, y.price);
      }
      if (Number.isFinite(bid) && Number.isFinite(ask)) set({ market: marketLabel(mk.marketId, mk.slug) }, (ask - bid) / MICRO);
    }
  });
  perMarket('open_orders', 'Own orders working or in flight', (s, _n, set) => {
    for (const mk of s.markets.values()) set({ market: marketLabel(mk.marketId, mk.slug) }, mk.orders.size);
  });
  perMarket('reserved_collateral_usdc', 'Collateral locked by own open orders, USDC', (s, _n, set) => {
    for (const mk of s.markets.values()) set({ market: marketLabel(mk.marketId, mk.slug) }, Number(reservedCollateral(mk)) / MICRO);
  });
  perMarket('stream_staleness_seconds', 'Time since the last book stream event of any kind', (s, now, set) => {
    for (const mk of s.markets.values())
      if (mk.streamLastEventAt !== null) set({ market: marketLabel(mk.marketId, mk.slug) }, Math.max(0, now - mk.streamLastEventAt) / 1000);
  });
  new Gauge({
    name: `${p}account_pnl_usdc`,
    help: 'Account PnL from the books, USDC (every market since inception, released ones included): total, realised (net of fees, resolutions included), unrealised (at the marks), fees',
    labelNames: ['kind'],
    registers: r,
    collect() {
      this.reset();
      if (!books) return;
      const f = books.figures();
      this.set({ kind: 'total' }, Number(f.total) / MICRO);
      this.set({ kind: 'realised' }, Number(f.realised) / MICRO);
      this.set({ kind: 'unrealised' }, Number(f.unrealised) / MICRO);
      this.set({ kind: 'fees' }, Number(f.fees) / MICRO);
    },
  });
  // the account's trading since inception from the books, released markets included: the figures
  // `ledger summary` rebuilds (fills, volume); the per-market counters above go with a released market
  d.readGauge('account_fills', 'Fills in the books since inception, every market (released ones included): `ledger summary` fills', () =>
    books ? books.figures().fills : undefined,
  );
  d.readGauge(
    'account_volume_usdc',
    'Traded notional in the books since inception, USDC, every market (released ones included): `ledger summary` volume',
    () => (books ? Number(books.figures().volume) / MICRO : undefined),
  );
  // the books' word beside the venue's claimable list (bookmaker_claimable_total_usdc): the run report's
  // and `ledger summary`'s figure, one function (src/account/books-claimable.ts)
  d.readGauge(
    'books_claimable_usdc',
    'USDC the books hold resolved and unclaimed (the payout of the tokens held): the run report and `ledger summary` claimable',
    () => (books ? Number(booksClaimable(books).total) / MICRO : undefined),
  );
  d.readGauge('books_late_fills', "Fills older than a market's kept history (beyond the re-ordering window) applied out of venue order", () => books?.late);
  d.readGauge('books_drift_markets', 'Markets whose last balance read differs from the books (tokens held per market and outcome)', () =>
    books ? (books.drifts().length === 0 ? 0 : new Set(books.drifts().map((d) => d.marketId)).size) : undefined,
  );
  d.readGauge('collateral_usdc', 'Free collateral reported by the venue, USDC', () => {
    const c = source?.state().collateral;
    return c !== undefined && c !== null ? Number(c) / MICRO : undefined;
  });

  // markouts, toxicity, flow, regime and PnL attribution: ./edge-metrics.ts
  registerEdgeMetrics(
    registry,
    p,
    (mk) => marketLabel(mk.marketId, mk.slug),
    () => (source ? { state: source.state(), clock: source.clock, books: books ?? undefined } : null),
  );

  return m;
}

export type BotMetrics = ReturnType<typeof createBotMetrics>;
