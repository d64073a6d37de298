/**
 * The bot: the one place where live, paper and the embedded demo are wired (docs/architecture.md#folders runtime).
 * Everything between the feeds and the venue is the shared QuotingKernel.
 *
 *   const bot = await startBot({ config, logger, baseUrl?, paper?, apiKey?, keyFile?, metricsPort? });
 *   bot.exit            // resolves with an exit code when the bot stops by itself (kill switch, halt)
 *   await bot.stop()    // SIGINT/SIGTERM/--duration: stop quoting, cancel all, flush → exit code 0
 *
 * Start-up order (nothing is quoted before the venue has been reconciled):
 *   1. venue: `--base-url` wins over the config; a `local` venue without one starts the embedded local
 *      exchange in-process (with counterparties) and uses a throwaway key and a demo API key;
 *   2. keys: private key from --key-file / config wallet.keyFile / BOOKMAKER_PRIVATE_KEY, API key from
 *      --api-key / BOOKMAKER_API_KEY / wallet.apiKeyFile (paper mode needs neither);
 *   3. markets resolved from the selectors; 4. start-up migration (live only);
 *   5. feeds subscribed into the store; wait (bounded) for a first book of every market;
 *   6. reconcile with the venue, adopting what matches the strategies' first quotes; 7. quote.
 * Then: reconcile periodically and after each stream reconnect; metrics on 127.0.0.1.
 * Stopping: the kill switch or an order-manager halt cancel everything and exit non-zero (3 / 4);
 * stop() cancels everything and exits 0 only when the venue reports no open order of ours (else 1).
 */
import type { Subscription } from 'rxjs';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { registerSecret } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import { createSigner, type Signer } from '../exchange/signing/signer.ts';
import { venueSnapshotFetcher } from '../exchange/stream/venue-snapshot-fetcher.ts';
import { createVenueClient, type VenueClient } from '../exchange/venue-client.ts';
import { bindStoreMetrics } from '../metrics/bind-store-metrics.ts';
import { createBotMetrics, type BotMetrics } from '../metrics/bot-metrics.ts';
import { registerHealthMetrics } from '../metrics/health-metrics.ts';
import { respond, startMetricsEndpoint, type MetricsEndpoint } from '../metrics/metrics-server.ts';
import { botReadiness } from '../metrics/readiness.ts';
import { runStartupMigration } from '../migration/startup-migration.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';
import { NONCE_MEMORY, NonceSource } from '../orders/nonces.ts';
import type { CancelAllResult, OrderManager } from '../orders/order-manager.ts';
import { VenueRefusedError } from '../orders/refusal.ts';
import { schedulePeriodicReconcile } from '../orders/periodic-reconcile.ts';
import type { Counterparties } from '../sim/counterparties.ts';
import type { LocalExchange } from '../sim/local-exchange.ts';
import type { StateEvent } from '../state/events.ts';
import { selectMarketView } from '../state/market-view.ts';
import { tradingDay } from '../account/trading-day.ts';
import type { StateStore } from '../state/store.ts';
import { filePositionStore, memoryPositionStore } from '../feeds/activity-cursor.ts';
import { activityFeed } from '../feeds/activity-feed.ts';
import { createBookFeed } from '../feeds/book-feed.ts';
import type { FeedEvent } from '../feeds/feed-event.ts';
import { FeedHealth } from '../feeds/feed-health.ts';
import { marketEvent, marketFeed } from '../feeds/market-feed.ts';
import { oracleFeed } from '../feeds/oracle-feed.ts';
import { tradingFeed } from '../feeds/trading-feed.ts';
import { endedOrderNonce } from './ended-order.ts';
import { createLiveVenue, type LiveVenue } from './live-venue.ts';
import { HealthModel } from '../health/health-model.ts';
import { RefusalLog } from '../health/refusal-log.ts';
import { PaperVenue } from './paper-venue.ts';
import { RunLedger } from './run-ledger.ts';
import { buildRunReport, type RunReport } from './run-report.ts';
import { marketAttribution } from '../state/edge-view.ts';
import type { KernelMarket, QuotingKernel } from '../kernel/quoting-kernel.ts';
import { createTradingCore } from '../kernel/trading-core.ts';
import { selectMarkets } from '../selection/select-markets.ts';
import { registerRankMetrics } from '../metrics/rank-metrics.ts';
import { rankReports, rankScores } from '../selection/ranker.ts';
import { rankLeftBecause } from '../selection/ranker.ts';
import { MarketRotation } from './rotation/market-rotation.ts';
import { Lifecycle } from './lifecycle.ts';
import { closeVenueSetup, setupVenue, type VenueSetup } from './venue-setup.ts';
import { keepRetiredRows, RETIRED_ROWS_MAX, rotationReport, type EarlierRetired, type RetiredRow } from './retired-rows.ts';
import { deferred, waitForBooks, waitForPosition } from './startup-waits.ts';
import { registerRotationMetrics } from './rotation/rotation-metrics.ts';
import { BotMarkets, retireReasonOf } from './rotation/bot-markets.ts';
import { eventMarket } from '../kernel/quoting-kernel.ts';
import { shardOwns, shardText, withShard, withShardScope } from '../selection/shard.ts';
import { ClaimsTracker } from './claims/claims-tracker.ts';
// ---- ledger, limits across restarts, operator control ----
import { BotLedger, configHash, ledgerPath } from '../ledger/bot-ledger.ts';
import { registerLedgerMetrics } from '../ledger/ledger-metrics.ts';
import { LedgerWatch } from '../ledger/ledger-watch.ts';
import { schedulePrune } from '../ledger/retention.ts';
import { BotControl } from '../control/bot-control.ts';
import { ADMIN_TOKEN_ENV, checkAdminToken, DeferredControls, startAdminEndpoint, type AdminEndpoint, type ControlResult } from '../control/admin-server.ts';
import { canonicalPath, type BotIdentity } from '../control/identity.ts';
import { writeAdminState } from '../control/admin-state.ts';
import { registerControlMetrics } from '../control/control-metrics.ts';
import { RISK_REASONS, type RiskReason } from '../risk/types.ts';
import { loadConfig } from '../config/load-config.ts';
import { PAPER_TRADER } from './paper-venue.ts';
import { TickToWireMeter } from '../kernel/tick-to-wire.ts';
import { retryStartupStep, StartupAbortedError, untilAborted } from './startup-retry.ts';
import { MetricsPortError, type Watchdog } from './watchdog.ts';

export const EXIT_OK = 0;
export const EXIT_ORDERS_LEFT = 1;
export const EXIT_KILL_SWITCH = 3;
export const EXIT_HALT = 4;

export interface BotOptions {
  config: BotConfig;
  logger: Logger;
  /** overrides the config's venue, including the embedded local exchange */
  baseUrl?: string;
  paper?: boolean;
  apiKey?: string;
  keyFile?: string;
  /** overrides config metrics.port; 0 = off */
  metricsPort?: number;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** where the activity poller keeps its position across restarts (default: in memory) */
  activityStateFile?: string;
  /** wait at most this long for first books before reconciling (default 5 000 ms) */
  warmupMs?: number;
  /** overrides config admin.port (0 = off); the endpoint needs BOOKMAKER_ADMIN_TOKEN in `env` */
  adminPort?: number;
  /**
   * A stop request during start-up (SIGINT/SIGTERM, --duration): every start-up wait and retry
   * pause ends at once, anything placed is cancelled, and startBot rejects with StartupAbortedError.
   */
  signal?: AbortSignal;
  /**
   * The event-loop watchdog (watchdog.ts): when given, it owns the metrics socket (the bot answers
   * its forwarded /metrics and /readyz) and is armed with the venue's keys to cancel from its thread.
   */
  watchdog?: Watchdog;
  /** `run --new-ledger`: a new or empty ledger on a wallet with venue history adopts the holdings as its baseline (src/ledger/baseline.ts) instead of refusing the start */
  newLedger?: boolean;
}

export interface Bot {
  readonly baseUrl: string;
  readonly trader: Address;
  readonly markets: readonly Bytes32[];
  readonly metricsUrl: string | null;
  readonly store: StateStore;
  readonly kernel: QuotingKernel;
  readonly orderManager: OrderManager;
  readonly health: FeedHealth;
  /** per-market quoting state and the process state: the one source /readyz, metrics, logs and the summary read */
  readonly healthModel: HealthModel;
  /** the end-of-run report (call after the bot stopped; see run-report.ts) */
  report(stopReason: string, exitCode: number): RunReport;
  /** what /readyz answers now (also after the endpoint closed): 200 or 503 and its JSON body */
  readyz(): { status: number; body: Record<string, unknown> };
  readonly metrics: BotMetrics;
  /** the embedded local exchange, when one was started */
  readonly localExchange: LocalExchange | null;
  /** its simulated counterparties (venue.local.agents), when it was started */
  readonly localAgents: Counterparties | null;
  readonly paper: boolean;
  /** own fills per market (lower-case id), for the summary */
  readonly fills: ReadonlyMap<string, number>;
  /** resolves with the exit code once the bot has stopped (by itself or through stop()) */
  readonly exit: Promise<number>;
  /** the persistent ledger (src/ledger) */
  readonly ledger: BotLedger;
  /** operator control (also behind the admin endpoint): clear-kill, pause, resume, halt, reload */
  readonly control: BotControl;
  /** the admin endpoint's URL, when it runs */
  readonly adminUrl: string | null;
  /** market rotation: starts and retirements while the bot runs */
  readonly rotation: MarketRotation;
  /** reload the config file (SIGHUP, `bookmaker ctl reload`) */
  reload(reason?: string): Promise<ControlResult>;
  stop(reason?: string): Promise<number>;
}

/** The admin endpoint bound before start-up, and the controls it answers with once attached. */
interface EarlyAdmin {
  readonly endpoint: AdminEndpoint;
  readonly controls: DeferredControls;
}

export async function startBot(o: BotOptions): Promise<Bot> {
  const clock = o.clock ?? systemClock;
  const log = o.logger.child({ component: 'bot' });
  const paper = o.paper ?? false;
  // the admin endpoint binds before anything else starts: a guessable token is a config
  // error, and a port held by another process stops the start-up at once (AdminPortError, exit 2),
  // before a feed, an order or a ledger write; until the bot is wired, status names the start-up phase and a halt is held (DeferredControls)
  const adminToken = (o.env ?? process.env)[ADMIN_TOKEN_ENV];
  const adminPort = o.adminPort ?? o.config.admin.port;
  let admin: EarlyAdmin | null = null;
  if (adminPort > 0 && adminToken) {
    checkAdminToken(adminToken);
    registerSecret(adminToken);
    const controls = new DeferredControls();
    // while starting, `ctl status` names the phase and `ctl halt` is held until quoting would begin
    controls.phase('venue');
    admin = { endpoint: await startAdminEndpoint({ port: adminPort, token: adminToken, controls, logger: o.logger }), controls };
    controls.identity(startingIdentity(o, admin.endpoint.port, paper));
  } else if (adminPort > 0) log.info(`admin endpoint off: set ${ADMIN_TOKEN_ENV} to enable bookmaker ctl`);
  // keys and config are checked even when a stop came first: a bad key is reported (exit 2), not hidden
  let v: VenueSetup;
  try {
    v = await setupVenue(o);
  } catch (e) {
    await admin?.endpoint.close();
    throw e;
  }
  if (o.signal?.aborted) {
    await closeVenueSetup(v);
    await admin?.endpoint.close();
    throw new StartupAbortedError(String(o.signal.reason ?? 'stop'));
  }
  if (o.watchdog) {
    if (paper) o.watchdog.arm({ kind: 'paper' });
    else if (v.local) o.watchdog.arm({ kind: 'embedded' });
    else if (v.privateKey && v.apiKey)
      o.watchdog.arm({ kind: 'live', baseUrl: v.baseUrl, chain: v.chain, apiKey: v.apiKey, privateKey: v.privateKey, batchLimit: o.config.orders.batchLimit });
  }
  // one lifecycle: each phase below adds what undoes it; a stop or a failed start-up undoes in reverse
  const life = new Lifecycle();
  if (admin) life.add(() => admin.endpoint.close());
  life.enter('venue');
  life.add(() => closeVenueSetup(v));
  try {
    return await wire(o, v, clock, log, paper, life, admin);
  } catch (e) {
    log.debug({ phase: life.phase, err: (e as Error).message }, 'start-up failed; undoing the phases started');
    const undo = life.teardown();
    // a stop request must end start-up within a second: a connection attempt still hanging (no
    // network) is not waited for; the process exits with its sockets
    if (e instanceof StartupAbortedError) await Promise.race([undo.catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    else await undo;
    throw e;
  }
}

/** Who this bot is while it starts (the account and chain are known once the venue is set up). */
function startingIdentity(o: BotOptions, adminPort: number, paper: boolean): Record<string, unknown> {
  const cfg = o.config;
  return {
    pid: process.pid,
    account: '',
    chain: '',
    configFile: cfg.file ? canonicalPath(cfg.file) : '',
    configHash: configHash(cfg),
    ledger: canonicalPath(ledgerPath(cfg, cfg.venue.kind === 'local', paper)),
    adminPort,
    startedAt: new Date().toISOString(),
  };
}

async function wire(o: BotOptions, v: VenueSetup, clock: Clock, log: Logger, paper: boolean, life: Lifecycle, early: EarlyAdmin | null): Promise<Bot> {
  // a shard owns only its markets: reconcileScope markets whatever the file says (src/selection/shard.ts)
  const cfg = withShardScope(o.config);
  const metrics = createBotMetrics();
  const client: VenueClient = createVenueClient({
    baseUrl: v.baseUrl,
    chain: v.chain,
    ...(v.apiKey ? { apiKey: v.apiKey } : {}),
    logger: o.logger,
    onResponse: (r) => metrics.apiLatency.observe({ method: r.method, endpoint: r.endpoint, status: r.status }, r.seconds),
  });
  life.add(() => client.close());
  const signer: Signer | null = v.privateKey ? createSigner({ privateKey: v.privateKey, chain: v.chain }) : null;

  const signal = o.signal;
  /**
   * The selectors at the venue. `previous` (lower-case ids quoted now, for the rank entries'
   * hysteresis) is given after start-up; on a refresh an empty selection is an answer (every market
   * left), and at start-up too while refreshes are on (see below); on a reload, or at start-up with
   * refreshes off, it is a config error.
   */
  life.enter('select');
  // rank entries: each selected market's score and terms on /metrics after every selection
  const rankMetrics = registerRankMetrics(metrics.registry);
  const select = async (c: BotConfig, previous?: ReadonlySet<string>, allowEmpty = false): Promise<KernelMarket[]> => {
    const chosen = await selectMarkets(client, c.markets, {
      maxMarkets: c.selection.maxMarkets,
      shard: cfg.selection.shard,
      log: o.logger,
      allowEmpty,
      ...(previous ? { previous } : {}),
    });
    rankMetrics.update(rankScores(), rankReports());
    return chosen;
  };
  // with refreshes on, a start-up that selects nothing (a shard whose markets do not exist yet, a
  // category not yet listed) waits for the refreshes instead of exiting: a fleet pod would crash-loop
  const waitForMarkets = cfg.selection.refreshMs > 0;
  early?.controls.phase('select markets');
  const markets: KernelMarket[] = await retryStartupStep('select markets', () => select(cfg, undefined, waitForMarkets), {
    clock,
    log,
    ...(signal ? { signal } : {}),
  });
  if (markets.length === 0)
    log.warn(
      { refreshSeconds: cfg.selection.refreshMs / 1000, shard: cfg.selection.shard ? shardText(cfg.selection.shard) : null },
      'no market at the venue matches the selectors yet; quoting nothing until a refresh selects one',
    );
  const marketIds = markets.map((m) => m.marketId);
  /** the live market lists once rotation is wired (src/runtime/rotation/bot-markets.ts); the start-up set before */
  let lists: BotMarkets | null = null;
  /** quoted and retiring markets (the feeds read this at every poll) */
  const liveIds = (): readonly Bytes32[] => lists?.ids ?? marketIds;
  /** quoted, retiring and retained markets: whose positions, fills and resolution the feeds follow */
  const trackedIds = (): readonly Bytes32[] => lists?.tracked() ?? marketIds;
  /** a market the bot follows now (quoted, retiring, or a released one still holding a position) */
  // a set, not a scan of the list: every feed event asks (2,000 markets × 2,000 deltas/s made the scan a fifth of a core)
  const startIds = new Set(marketIds.map((m) => m.toLowerCase()));
  const known = (id: string): boolean => (lists ? lists.known(id) : startIds.has(id.toLowerCase()));
  // a wallet shared with a person or another instance: the watchdog's cancel-all keeps to our markets too
  if (o.watchdog && cfg.orders.reconcileScope === 'markets') o.watchdog.scope(marketIds);
  log.info({ venue: v.baseUrl, markets: marketIds.length, paper, embedded: v.local !== null }, 'markets selected');
  const shard = cfg.selection.shard;
  if (shard)
    log.info(
      { shard: shardText(shard), markets: marketIds.length, reconcileScope: 'markets', configured: o.config.orders.reconcileScope },
      `shard ${shardText(shard)}: quoting this shard's markets only; start-up reconcile and every cancel-all touch only them (reconcileScope markets)`,
    );

  life.enter('migration');
  if (signer && !paper) {
    // safe to re-run from the start (docs/venue.md#migration-to-settlement-v2): a transient failure midway retries the whole flow
    early?.controls.phase('migration');
    const report = await retryStartupStep(
      'start-up migration',
      () => runStartupMigration({ api: client.migration, signer, clock, logger: o.logger, restore: 'restore' }),
      { clock, log, ...(signal ? { signal } : {}) },
    );
    log.info({ outcome: report.outcome, steps: report.steps }, 'start-up migration');
  }

  life.enter('ledger');
  // ---- ledger: books and the kill-switch latch carried across restarts ----
  early?.controls.phase('ledger and catch-up');
  const bookLedger = await BotLedger.open({
    config: cfg,
    clock,
    logger: o.logger,
    trader: signer && !paper ? signer.address : PAPER_TRADER,
    venue: v.baseUrl,
    chain: v.chain.name,
    client,
    embedded: v.local !== null,
    markets: marketIds.length,
    paper,
    newLedger: o.newLedger === true,
    // a shared wallet (reconcileScope markets, shards): other markets' orders are not this ledger's
    ...(cfg.orders.reconcileScope === 'markets' ? { owns: (id: string) => (cfg.selection.shard ? shardOwns(id, cfg.selection.shard) : known(id)) } : {}),
  });
  life.add(() => bookLedger.close());
  // a halt sent while starting is written to the ledger now (durable), and read back with
  // the operator's holds below, before anything can tick
  early?.controls.bindLedger((reason) => {
    try {
      bookLedger.operatorAction('halt', null, reason, 'every quote pulled until resume (sent during start-up)');
      return true;
    } catch (e) {
      log.error({ err: (e as Error).message }, 'a halt sent during start-up could not be written to the ledger: it holds this run only');
      return false;
    }
  });
  // the account's books, rebuilt from the ledger: every PnL figure and the kill switch read them
  const accountBooks = bookLedger.books();
  /** holds the bot while the ledger cannot be written (wired once the kernel exists) */
  let ledgerWatch: LedgerWatch | null = null;
  registerLedgerMetrics(metrics.registry, bookLedger, 'bookmaker_', () => ledgerWatch);
  const health = new FeedHealth();
  const refusals = new RefusalLog(o.logger, cfg.health.logIntervalMs);
  const startedAt = clock.now();
  const wireMeter = new TickToWireMeter({
    tickToWire: (sec) => metrics.tickToWire.observe(sec),
    tickToCancel: (sec) => metrics.tickToWireCancel.observe(sec),
    throttle: (sec) => metrics.requoteThrottle.observe(sec),
  });

  life.enter('core');
  let paperVenue: PaperVenue | null = null;
  let liveVenue: LiveVenue | null = null;
  let venue: VenuePort;
  if (paper) {
    // paper fills go through the inbound bus like the venue's: the (paper account's) ledger records them too
    paperVenue = new PaperVenue({ clock, onFill: (e) => core.receive(e) });
    venue = paperVenue;
  } else {
    venue = liveVenue = createLiveVenue({
      client,
      signer: signer!,
      batchLimit: cfg.orders.batchLimit,
      // tick-to-wire: from the book event that caused the send (see tick-to-wire.ts)
      onWrite: (marketId, cancelOnly) => wireMeter.write(marketId, cancelOnly),
    });
  }

  const exitCode = deferred<number>();
  let stopping = false;
  /** an operator's pause held in the ledger; the control answers once it is wired */
  let heldPause: (marketId: Bytes32) => boolean = () => false;
  // the trading core as paper, backtest and chaos build it (src/kernel/trading-core.ts); it ticks
  // once the first books and balance read are in (k.start below): until then events only fill the state
  const core = createTradingCore({
    config: cfg,
    clock,
    venue,
    // nonces carry the ledger's tag: orders a crash left unrecorded are still known as ours (src/orders/nonces.ts)
    nonces: new NonceSource(NONCE_MEMORY, undefined, bookLedger.ledger.nonceTag()),
    markets,
    logger: o.logger,
    initialState: bookLedger.initialState(marketIds),
    account: accountBooks,
    ...(cfg.orders.reconcileScope === 'markets' ? { ownMarkets: marketIds } : {}),
    // an order gone without its fills seen keeps counting until the fills poll (below) reports it
    // closed, its fills first; failing that, until a balance read begun this long after its end has
    // landed (however many reads fail meanwhile), which leaves the venue that long to settle the
    // fill into the balance. The paper venue reports fills itself, before an order's end.
    settleMs: paper ? 0 : Math.max(30_000, 10 * fillsPollMs(cfg)),
    onHalt: (err, result) => {
      bookLedger.riskEvent('halt', 'INVARIANT', err.message);
      const refused = err.cause instanceof VenueRefusedError ? err.cause : null;
      healthModel.halt('halted', refused ? `${refused.refusal}; fix: ${refused.fix}` : err.message, refused ? 'orders-refused' : 'halted');
      if (refused)
        log.fatal(
          { cause: refused.refusal, fix: refused.fix, remaining: result.remaining },
          `venue refuses every order: ${refused.refusal}; fix: ${refused.fix}; exiting (4)`,
        );
      else log.fatal({ err: err.message, remaining: result.remaining }, 'order manager halted; exiting');
      void shutdown('halt', result).then(() => exitCode.resolve(EXIT_HALT));
    },
    kernel: {
      deferStart: true,
      // a latched start holds with the original reason (KILL_DRAWDOWN …), not a generic one
      ...(bookLedger.latch ? { latched: latchedReason(bookLedger.latch.reason) } : {}),
      // a market paused by an operator (held in the ledger) starts paused when rotation brings it back
      heldPause: (id) => heldPause(id),
      initialRisk: bookLedger.initialRisk(tradingDay(cfg.account.dayStartsAt)),
      onDrift: (_marketId, drifts) => {
        for (const x of drifts) metrics.booksDrift.inc({ market: x.marketId, outcome: x.outcomeIndex === 1 ? 'yes' : 'no' });
      },
      onKillLatched: bookLedger.latchKill,
      onTickStart: (marketId, cause) => wireMeter.tickStart(marketId, cause),
      onTick: (marketId) => wireMeter.tickEnd(marketId, k.lastSync(marketId)),
      timer: () => performance.now(),
      strategyBudgetMs: cfg.health.strategyBudgetMs,
      faultLogIntervalMs: cfg.health.logIntervalMs,
      onStrategyFault: (marketId, kind) => (kind === 'error' ? healthMetrics.strategyErrors : healthMetrics.strategySlow).inc({ market: marketId }),
      onKill: (reason, detail, result) => {
        healthModel.halt('kill-switch', `kill switch ${reason}: ${detail}`);
        log.fatal({ reason, detail, remaining: result.remaining }, 'kill switch: everything cancelled; exiting');
        void shutdown('kill-switch', result).then(() => exitCode.resolve(EXIT_KILL_SWITCH));
      },
    },
  });
  const { store, kernel: k, orderManager: om } = core;
  // a start-up failure from here on must not leave the kernel's timers ticking (shutdown stops it too)
  life.add(() => k.stop());
  metrics.setStateSource(() => store.state, clock);
  metrics.setAccount(accountBooks);
  if (liveVenue) metrics.setOrderCalls(() => ({ waiting: liveVenue!.waitingCalls, inFlight: liveVenue!.inFlightCalls }));
  life.add(bindStoreMetrics(metrics, store));
  let kernelStarted = false;
  const healthModel = new HealthModel({
    markets: marketIds,
    state: () => store.state,
    lastTick: (id) => (kernelStarted ? k.lastTick(id) : null),
    killed: () => (kernelStarted ? k.killed : null),
    drifts: () => accountBooks.drifts(),
    ledgerDown: () => ledgerWatch?.down ?? null,
    clock,
    graceMs: cfg.health.notQuotingGraceMs,
    logIntervalMs: cfg.health.logIntervalMs,
    logger: o.logger,
  });
  const healthMetrics = registerHealthMetrics(metrics.registry, () => healthModel);
  // fills, volume and fees of this run, paper fills included, each fill once (summary, report)
  const ledger = new RunLedger();
  ledger.bind(store);
  const fills = ledger.fills;

  // ---- event routes: the order manager's events once the store has them, in this order ----
  /** per-order memory of the venue edge goes when the order is over (see ended-order.ts) */
  const orderEnded = (e: StateEvent): void => {
    const nonce = liveVenue ? endedOrderNonce(e) : null;
    if (nonce) liveVenue!.forget(nonce);
  };
  core.orderEvents.on('react', orderEnded);
  core.orderEvents.on('react', (e) => bookLedger.onEvent(e));
  core.orderEvents.on('react', (e) => {
    // 'not-applied': an all-or-nothing bulk call refused for another item (which is reported itself)
    if (e.type === 'OrderRejected' && e.reason !== 'not-applied') {
      refusals.note(e, clock.now());
      healthModel.refused(e.marketId, e.ts, `${e.status ?? '-'} ${e.venueCode ?? e.reason}: ${e.message ?? ''}`);
    } else if (e.type === 'OrderAccepted') healthModel.accepted(e.marketId, e.ts);
  });

  // after resolution (src/runtime/claims): claimable positions of this instance's markets, read from
  // the venue at start-up and when a market resolves; logged, counted and in the run report
  const claims = paper
    ? null
    : new ClaimsTracker({
        read: () => client.portfolio.claimable(venue.trader),
        owns: (id) => shardOwns(id, cfg.selection.shard),
        clock,
        logger: o.logger,
        registry: metrics.registry,
        onClaimed: (id, payoutYes) => {
          // the payout first (a market resolved while the bot was down has none in the books yet)
          const payout = payoutYes !== null && payoutYes >= 0n && payoutYes <= 1_000_000n ? Number(payoutYes) : null;
          if (payout !== null) accountBooks.resolve(id, payout, clock.now());
          accountBooks.claimed(id);
          // in the ledger too: a restart's books keep the resolution PnL and the claimed payout
          bookLedger.claimed(id, payout, clock.now());
        },
      });
  if (claims) life.add(() => claims.stop());

  // ---- event routes: what the venue reports, around the kernel's state step, in this order ----
  /** the first balance and positions read: no quote before the bot knows what it holds */
  const accountRead = deferred<void>();
  let rotation: MarketRotation | null = null;
  core.inbound.on('record', (e) => {
    // tick-to-wire starts at the book event (the kernel may tick on it at once)
    if (e.type === 'BookEventReceived' && e.event.type !== 'status' && e.event.type !== 'trade')
      wireMeter.bookEvent(e.event.type === 'snapshot' ? e.event.book.marketId : e.event.marketId);
    else if (e.type === 'BalanceUpdated') accountRead.resolve();
  });
  core.inbound.on('record', (e) => bookLedger.onEvent(e));
  if (claims) {
    core.inbound.on('react', (e) => {
      if (e.type !== 'MarketMetadataUpdated' || e.status !== 'resolved') return;
      const pos = store.state.markets.get(e.marketId.toLowerCase())?.position;
      claims.marketResolved(e.marketId, e.payoutYes ?? null, !!pos && (pos.yes !== 0 || pos.no !== 0));
    });
  }
  core.inbound.on('react', orderEnded);
  core.inbound.on('react', (e) => {
    if (e.type === 'MarketMetadataUpdated' && rotation) venueFact(e.marketId, e.status);
  });
  if (paperVenue) {
    const pv = paperVenue;
    core.inbound.on('react', (e) => {
      if (e.type !== 'BookEventReceived') return;
      const ev = e.event;
      const view = selectMarketView(store.state, ev.type === 'snapshot' ? ev.book.marketId : ev.marketId, clock.now());
      pv.onBookEvent(ev, view?.book?.bestBid ?? null, view?.book?.bestAsk ?? null);
    });
  }

  life.enter('feeds');
  // ---- feeds ----
  const subs: Subscription[] = [];
  life.add(() => subs.forEach((s) => s.unsubscribe()));
  const sink = (fe: FeedEvent): void => {
    try {
      const t = fe.event.type;
      const eventId = t === 'BalanceUpdated' ? null : eventMarket(fe.event);
      let stranger = false;
      if (eventId && !known(eventId)) {
        // market data of a released market is not wanted; a balance read says nothing new of a market
        // that left flat; anything else (a late fill) is real and keeps the market tracked (below)
        if (t === 'BookEventReceived' || t === 'OracleUpdated' || t === 'MarketMetadataUpdated') return;
        if (t === 'PositionSynced' && fe.event.yes === 0 && fe.event.no === 0) return;
        stranger = true;
      }
      core.receive(fe.event);
      if (stranger && eventId) lists?.retain(eventId);
    } catch (err) {
      // a bug downstream must not kill the feed; the invariant checks catch real damage
      log.error({ err: (err as Error).message, source: fe.source }, 'event handling failed');
    }
  };
  /** the market feed saw a market resolved, closed or paused: it retires between refreshes */
  function venueFact(marketId: Bytes32, status: string | undefined): void {
    const reason = retireReasonOf(status, cfg.selection.refreshMs > 0);
    if (reason && rotation?.isActive(marketId)) rotation.retire(marketId, reason);
  }
  const reconnected = (marketId: Bytes32): void => {
    metrics.streamReconnects.inc({ market: marketId });
    if (!stopping) void om.reconcile(marketId);
  };
  // the book feed of some markets: those selected at start-up, and those a reload adds
  const bookFeedOf = (ids: readonly Bytes32[]) =>
    createBookFeed({
      baseUrl: v.baseUrl,
      ...(v.apiKey ? { apiKey: v.apiKey } : {}),
      marketIds: ids,
      fetchSnapshot: (id) => venueSnapshotFetcher(client, id, 1, cfg.feeds.bookDepth),
      clock,
      depth: cfg.feeds.bookDepth,
      idleTimeoutMs: cfg.feeds.streamIdleTimeoutMs,
      pollIntervalMs: cfg.feeds.bookPollMs,
      health,
      onReconnect: reconnected,
      onMalformed: () => metrics.bookEventsDropped.inc(),
      logger: o.logger,
    });
  const books = bookFeedOf(marketIds);
  subs.push(books.events$.subscribe(sink));
  subs.push(
    marketFeed({
      client,
      marketIds: trackedIds,
      clock,
      intervalMs: Math.max(5_000, cfg.feeds.balancePollMs * 2),
      readsPerSecond: cfg.feeds.marketReadsPerSecond,
      health,
      logger: o.logger,
    }).subscribe(sink),
  );
  subs.push(
    oracleFeed({
      client,
      marketIds: liveIds,
      clock,
      intervalMs: cfg.feeds.oraclePollMs,
      readsPerSecond: cfg.feeds.marketReadsPerSecond,
      health,
      logger: o.logger,
    }).subscribe(sink),
  );
  subs.push(
    activityFeed({
      client,
      clock,
      intervalMs: cfg.feeds.activityPollMs,
      store: o.activityStateFile ? filePositionStore(o.activityStateFile) : memoryPositionStore(),
      marketIds: trackedIds,
      health,
      logger: o.logger,
    }).subscribe(sink),
  );
  if (paper) {
    store.dispatch({ type: 'BalanceUpdated', collateral: cfg.venue.kind === 'local' ? cfg.venue.local.startingCollateral : 10_000_000_000n, ts: clock.now() });
  } else {
    // fills matter for quoting within a second; balances ride along in the same poll
    const isTracked = (nonce: Bytes32, marketId?: Bytes32): boolean => {
      const k = nonce.toLowerCase();
      // the order's market when the venue names it: one lookup instead of a scan of every market
      if (marketId !== undefined) return store.state.markets.get(marketId.toLowerCase())?.orders.has(k) ?? false;
      for (const m of store.state.markets.values()) if (m.orders.has(k)) return true;
      return false;
    };
    subs.push(
      tradingFeed({
        client,
        trader: venue.trader,
        marketIds: trackedIds,
        clock,
        intervalMs: fillsPollMs(cfg),
        health,
        logger: o.logger,
        isTracked,
        seed: bookLedger.catchUp.openOrders,
        fees: bookLedger.fees,
        isOwn: bookLedger.isOwn,
      }).subscribe(sink),
    );
  }

  early?.controls.phase('books and balances');
  await untilAborted(waitForBooks(store, marketIds, clock, o.warmupMs ?? 5_000), signal);
  if (!paper) {
    // A restarted bot that quoted before its first positions read would count its position as 0 and
    // could quote straight past its limits (the venue holds what the last run bought); the read is
    // retried by the feed, so this waits through venue trouble, bounded so a venue that never
    // answers the balance read still gets the start-up reconcile and the dead-man cleanup.
    let cancelWait: () => void = () => undefined;
    const waited = await untilAborted(
      Promise.race([accountRead.promise.then(() => true), new Promise<boolean>((r) => (cancelWait = clock.setTimeout(() => r(false), 60_000)))]),
      signal,
    ).finally(() => cancelWait());
    if (!waited) log.warn('no balance/positions read within 60 s; quoting with positions unknown until one lands');
  }

  life.enter('holds');
  // ---- reconcile, then quote: the kernel ticks from here on ----
  kernelStarted = true;
  k.start();
  // an operator's halt and pauses from an earlier run hold before anything can tick
  const holds = bookLedger.operatorHolds();
  if (holds.halt) k.pause(null);
  for (const id of holds.pauses.keys()) {
    const m = marketIds.find((x) => x.toLowerCase() === id);
    if (m) k.pause(m);
  }
  heldPause = (id) => holds.pauses.has(id.toLowerCase());
  /** the operator's holds as /readyz names them (the control is wired further down) */
  let operatorReasons: () => string[] = () => (k.halted ? ['halted by the operator (bookmaker ctl resume lifts it)'] : []);
  // fail closed: a ledger that cannot be written (disk full, file gone, I/O error) past the
  // grace pulls every quote until writes succeed again
  const watch = (ledgerWatch = new LedgerWatch({
    ledger: bookLedger.ledger,
    clock,
    graceMs: cfg.ledger.unwritableGraceMs,
    logger: o.logger,
    onDown: (why) => k.hold('ledger', why),
    onUp: () => k.unhold('ledger'),
  }));
  watch.start();
  life.add(() => watch.stop());
  // orders, cancels and marks older than ledger.retainDays go, in small batches
  life.add(schedulePrune({ ledger: bookLedger.ledger, clock, retainDays: cfg.ledger.retainDays, logger: o.logger }));
  life.enter('endpoints');
  // ---- metrics ----
  const readiness = botReadiness({
    orderManager: om,
    state: () => store.state,
    clock,
    markets: liveIds,
    staleMs: cfg.feeds.streamIdleTimeoutMs * 2,
    halted: () => k.killed !== null,
    killSwitchLatched: () => bookLedger.latch !== null,
  });
  // /readyz and bookmaker_ready: reconciled, not halted, and no market that should quote without a
  // live quote past the grace (health model); a stale feed is a named reason there, after the grace
  const ready = (): Record<string, boolean> => {
    const r = readiness();
    healthModel.evaluateOncePerTurn();
    const h = healthModel.readiness();
    // an operator's halt or pause is a deliberate stop, but not ready: the bot does not quote what it should
    return {
      reconciled: r.reconciled,
      notHalted: r.notHalted && h.process !== 'halted' && !k.halted,
      running: h.process === 'running' || h.process === 'halted',
      marketsQuoting: !h.reasons.some((x) => x.startsWith('market ')),
      notPaused: k.pausedList().length === 0,
      // the books and the venue's balance reads agree (within the grace)
      booksAgree: !h.reasons.some((x) => x.startsWith('books-drift')),
      ledgerWritable: ledgerWatch?.down == null,
    };
  };
  metrics.setReadiness(ready);
  const readyDetails = (): Record<string, unknown> => {
    const h = healthModel.readiness();
    return { process: h.process, reasons: [...operatorReasons(), ...h.reasons], markets: h.markets };
  };
  const port = o.metricsPort ?? cfg.metrics.port;
  let endpoint: MetricsEndpoint | null = null;
  if (o.watchdog) {
    // the watchdog thread owns the socket (so /healthz fails while this loop is blocked) and
    // forwards everything else here
    o.watchdog.serve((method, path) => respond({ registry: metrics.registry, readiness: ready, readyDetails }, method, path));
    endpoint = o.watchdog.metricsUrl ? { url: o.watchdog.metricsUrl, close: async () => undefined } : null;
  } else {
    try {
      endpoint = await startMetricsEndpoint({ registry: metrics.registry, port, host: cfg.metrics.host, readiness: ready, readyDetails });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (!cfg.metrics.optional) throw new MetricsPortError(port, cfg.metrics.host, err.code ?? 'ERROR', err.message);
      log.warn({ port, err: err.message }, 'metrics endpoint could not start; continuing without it (metrics.optional: true)');
    }
  }
  if (endpoint) life.add(() => endpoint!.close());

  life.enter('rotation');
  // ---- market rotation: markets start and retire while the bot runs ----
  /** end-of-run rows of released markets (bounded: the newest RETIRED_ROWS_MAX; older ones folded into `earlier`) */
  const retiredRows: RetiredRow[] = [];
  const earlier: EarlierRetired = { count: 0, row: null };
  const bm = new BotMarkets({
    initial: marketIds,
    kernel: k,
    orderManager: om,
    venue,
    store,
    health: healthModel,
    books,
    clock,
    firstBook: (id) => waitForBooks(store, [id], clock, o.warmupMs ?? 5_000),
    // the paper venue starts flat; live, the fills/balance poll covers the market from its next round
    ...(paper ? {} : { firstPosition: (id: Bytes32) => waitForPosition(store, id, clock, 10_000, log) }),
    marketStatus: async (id) => (await client.markets.get(id)).status,
    marketInfo: async (id) => {
      const m = await client.markets.get(id);
      return { status: m.status, event: marketEvent(id, m, clock.now()).event };
    },
    // the selection knows some reasons itself: another shard's market, or one the rank let go for a better one
    leftBecause: (id) => (cfg.selection.shard && !shardOwns(id, cfg.selection.shard) ? 'shard' : rankLeftBecause(id) === 'ranked-out' ? 'ranked-out' : null),
    ...(cfg.orders.reconcileScope === 'markets'
      ? {
          ownMarkets: (ids: readonly Bytes32[]) => {
            om.setOwnMarkets(ids);
            o.watchdog?.scope(ids);
          },
        }
      : {}),
    forgetMeter: (id) => wireMeter.forget(id),
    registry: metrics.registry,
    onReleased: (id, reason, time, m) => {
      if (!time) return;
      const pnl = accountBooks.marketPnl(id);
      // the ledger's figures object: late fills of a kept position still add to it until the market is gone
      retiredRows.push({
        time,
        ledger: ledger.market(id),
        realised: pnl.realised,
        unrealised: pnl.unrealised,
        net: accountBooks.holdingsOf(id).net,
        retired: reason,
        ...(m ? { attribution: marketAttribution(m, accountBooks) } : {}),
      });
      // beyond the bound, the oldest rows fold into one line (the report's totals stay exact); a
      // market still holding a position keeps its row (its PnL is read again at the report)
      keepRetiredRows(retiredRows, earlier, RETIRED_ROWS_MAX, (marketId) => store.state.markets.has(marketId.toLowerCase()));
    },
    onGone: (id) => void ledger.forget(id),
  });
  lists = bm;
  const rotationMetrics = registerRotationMetrics(metrics.registry, () => rotation);
  const rot: MarketRotation = new MarketRotation({
    clock,
    refreshMs: cfg.selection.refreshMs,
    logger: o.logger,
    metrics: rotationMetrics,
    // the running config (a reload replaces it)
    ports: bm.ports((previous): Promise<KernelMarket[]> => select(control.currentConfig, previous, true)),
  });
  rotation = rot;
  life.add(() => rot.stop());

  life.enter('control');
  // ---- marks, operator control, admin endpoint ----
  life.add(bookLedger.startMarks(accountBooks, () => k.riskFigures(), cfg.ledger.markMs));
  const control: BotControl = new BotControl({
    kernel: k,
    ledger: bookLedger,
    logger: o.logger,
    config: cfg,
    // the running shard (flag, environment or file) and its reconcile scope stay across reloads
    loadConfig: async (file) => withShardScope(withShard(await loadConfig(file, { env: o.env ?? process.env }), cfg.selection.shard)),
    selectMarkets: (next) => select(next, new Set(rot.activeIds().map((id) => id.toLowerCase()))),
    // a reload's markets go through the rotation: added ones start, removed ones retire (books closed)
    applyMarkets: (next) => rot.apply(next, 'reload'),
    rotation: () => {
      const r = rot.summary();
      return {
        active: r.active,
        retiring: rot.retiringDetails(),
        started: r.started,
        retired: r.retired,
        refreshes: r.refreshes,
        refreshFailures: r.refreshFailures,
        lastRefreshError: r.lastRefreshError,
      };
    },
    onKillCleared: () => healthModel.resumeAfterHalt(),
    identity: () => identity,
    onReloaded: (next) => (identity = { ...identity, configHash: configHash(next) }),
  });
  control.restore(holds);
  heldPause = (id) => control.isHeldPause(id);
  operatorReasons = () => control.readinessReasons();
  registerControlMetrics(metrics.registry, k, control);
  const admin: AdminEndpoint | null = early?.endpoint ?? null;
  // who this bot is, for `ctl` to check before it acts (GET /admin/status)
  let identity: BotIdentity = {
    pid: process.pid,
    account: venue.trader.toLowerCase(),
    chain: v.chain.name,
    configFile: cfg.file ? canonicalPath(cfg.file) : '',
    configHash: configHash(cfg),
    ledger: canonicalPath(bookLedger.ledger.path),
    adminPort: 0,
    startedAt: new Date(startedAt).toISOString(),
  };
  if (admin && early) {
    // bound at the start of startBot (a port held by another process stopped the start-up there)
    identity = { ...identity, adminPort: admin.port };
    early.controls.attach(control);
    // a halt sent while starting that the ledger's holds above did not carry yet: before the first quote
    const h = early.controls.startupHalt;
    if (h && !k.halted) control.halt(h.reason);
    // the bound port beside the config, for `ctl -c` after a reload changed admin.port (admin-state.ts)
    if (cfg.file) {
      try {
        life.add(writeAdminState(cfg.file, { pid: process.pid, port: admin.port, configFile: identity.configFile, startedAt: identity.startedAt }));
      } catch (e) {
        log.info({ err: (e as Error).message }, 'the admin port could not be noted beside the config; ctl -c reads admin.port from the file');
      }
    }
  }
  // runs first among the cleanups, after the last cancel and before the client closes (and before
  // the last mark: its fills go into the running books too)
  life.add(async () => void (await bookLedger.finalSweep(client, venue.trader, accountBooks)));
  // from here on this run may hold orders at the venue: a stop request during the rest of start-up
  // cancels them before startBot gives up (the kill switch and halts do the same through shutdown)
  let started = false;
  life.add(async () => {
    if (started || !signal?.aborted) return;
    k.stop();
    const r = await om.cancelAll();
    log.info({ cancelled: r.cancelled, remaining: r.remaining }, 'stopped during start-up: orders cancelled');
  });
  life.enter('reconcile');
  early?.controls.phase('reconcile');
  const ok = await untilAborted(om.reconcile(undefined, k.desired()), signal);
  if (!ok) log.warn('start-up reconcile could not read the venue; it is retried periodically');
  if (signal?.aborted) throw new StartupAbortedError(String(signal.reason ?? 'stop'));
  for (const id of marketIds) k.tick(id);
  life.add(schedulePeriodicReconcile(om, clock, cfg.orders.reconcileIntervalMs));
  rot.begin(markets);
  // a market whose status came in before rotation existed (resolved, closed at start-up) retires now
  for (const m of markets) venueFact(m.marketId, store.state.markets.get(m.marketId.toLowerCase())?.status);
  rot.schedule();

  log.info(
    {
      metrics: endpoint?.url ?? 'off',
      trader: venue.trader,
      ...(bookLedger.latch ? { reason: bookLedger.latch.reason, detail: bookLedger.latch.detail, since: new Date(bookLedger.latch.at).toISOString() } : {}),
    },
    k.killed
      ? `kill switch latched: not quoting (${bookLedger.latch?.reason ?? k.killed})`
      : k.halted
        ? 'halted by the operator: not quoting until bookmaker ctl resume'
        : 'quoting',
  );
  life.enter('running');
  started = true;
  void claims?.start(); // positions held from earlier runs that are claimable now
  healthModel.setProcess('running');
  // a latch from an earlier run holds the bot; the health model names it
  if (bookLedger.latch)
    healthModel.halt(
      'kill-switch',
      `kill switch latched in an earlier run (${bookLedger.latch.reason}: ${bookLedger.latch.detail}, since ${new Date(bookLedger.latch.at).toISOString()}); clear with bookmaker ctl clear-kill --reason TEXT`,
    );
  // the health model's clock: transitions and time per state even when nobody scrapes
  let cancelHealthTimer: () => void = () => undefined;
  const healthLoop = (): void => {
    healthModel.evaluate();
    refusals.flush(clock.now());
    bm.sweep();
    cancelHealthTimer = clock.setTimeout(healthLoop, 1_000);
  };
  cancelHealthTimer = clock.setTimeout(healthLoop, 1_000);
  life.add(() => cancelHealthTimer());

  // ---- stopping ----
  let stopped: Promise<CancelAllResult> | null = null;
  async function shutdown(reason: string, already?: CancelAllResult): Promise<CancelAllResult> {
    if (stopped) return stopped;
    stopping = true;
    stopped = (async () => {
      log.info({ reason }, 'stopping: cancelling every order');
      healthModel.setProcess('stopping');
      rot.stop();
      k.stop();
      for (const s of subs) s.unsubscribe();
      await k.flush();
      const result = already && already.ok ? already : await om.cancelAll();
      await life.teardown(log);
      refusals.drain(clock.now());
      healthModel.setProcess('stopped');
      log.info({ reason, cancelled: result.cancelled, remaining: result.remaining, ok: result.ok }, 'stopped');
      return result;
    })();
    return stopped;
  }

  return {
    baseUrl: v.baseUrl,
    trader: venue.trader,
    get markets() {
      return rot.activeIds();
    },
    metricsUrl: endpoint?.url ?? null,
    store,
    kernel: k,
    orderManager: om,
    health,
    healthModel,
    report(stopReason, exitCode) {
      healthModel.evaluate();
      const times = healthModel.report();
      return buildRunReport({
        startedAt,
        stoppedAt: clock.now(),
        paper,
        stopReason,
        exitCode,
        process: healthModel.process,
        haltedBecause: healthModel.haltedBecause,
        markets: [
          ...(earlier.row ? [earlier.row] : []),
          // a retired market still holding a position: its PnL as of now, not as of its release
          ...retiredRows.map((r) => {
            // (a market started again since has its own row below)
            const m = rot.isActive(r.time.marketId) ? undefined : store.state.markets.get(r.time.marketId.toLowerCase());
            if (!m) return r;
            const pnl = accountBooks.marketPnl(r.time.marketId);
            return { ...r, realised: pnl.realised, unrealised: pnl.unrealised, net: accountBooks.holdingsOf(r.time.marketId).net };
          }),
          ...times.map((time) => {
            const m = store.state.markets.get(time.marketId.toLowerCase());
            const pnl = accountBooks.marketPnl(time.marketId);
            return {
              time,
              ledger: ledger.market(time.marketId),
              realised: pnl.realised,
              unrealised: pnl.unrealised,
              net: accountBooks.holdingsOf(time.marketId).net,
              ...(m ? { attribution: marketAttribution(m, accountBooks) } : {}),
            };
          }),
        ],
        rotation: rotationReport(rot),
        account: accountBooks.figures(),
        ...(claims ? { claims: claims.report() } : {}),
      });
    },
    readyz() {
      const checks = ready();
      const ok = Object.values(checks).every(Boolean);
      return { status: ok ? 200 : 503, body: { ready: ok, checks, ...readyDetails() } };
    },
    metrics,
    localExchange: v.local,
    localAgents: v.agents,
    paper,
    fills,
    exit: exitCode.promise,
    ledger: bookLedger,
    control,
    adminUrl: admin?.url ?? null,
    rotation: rot,
    reload: (reason) => control.reload(reason ?? 'SIGHUP'),
    async stop(reason = 'stop') {
      // a bot held by a latched kill switch stops with the kill-switch code
      const latched = k.killed !== null;
      const r = await shutdown(reason);
      const code = r.ok ? (latched ? EXIT_KILL_SWITCH : EXIT_OK) : EXIT_ORDERS_LEFT;
      exitCode.resolve(code);
      return exitCode.promise;
    },
  };
}

/** Fills matter for quoting within a second; balances ride along in the same poll. */
function fillsPollMs(cfg: BotConfig): number {
  return Math.min(1_000, cfg.feeds.balancePollMs);
}

/** The kill reason a latched start holds with: the latch's own when it is one, else KILL_LATCHED. */
function latchedReason(reason: string): RiskReason {
  return (RISK_REASONS as readonly string[]).includes(reason) ? (reason as RiskReason) : 'KILL_LATCHED';
}
