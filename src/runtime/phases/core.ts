/**
 * The core phase of the live start-up (src/runtime/bot.ts): the venue port (live or paper), the trading
 * core as paper, backtest and chaos build it (src/kernel/trading-core.ts), the health model, the run's
 * fills, claims after resolution, and the routes of the events around the state step. The kernel ticks
 * only once the start-up reconcile and its checks have passed (`startTicking`, reconcile phase), after
 * the first books and balance read: until then events only fill the state, and nothing is placed. A
 * kill switch or an order-manager halt stops the bot through `shutdown`.
 */
import { fillOrigin } from '../../account/account-fill.ts';
import { tradingDay } from '../../account/trading-day.ts';
import type { BotConfig } from '../../config/types.ts';
import { HealthModel } from '../../health/health-model.ts';
import { RefusalLog } from '../../health/refusal-log.ts';
import { STILL_TICK_MS } from '../../kernel/quoting-kernel.ts';
import { TickToWireMeter } from '../../kernel/tick-to-wire.ts';
import { createTradingCore, type TradingCore } from '../../kernel/trading-core.ts';
import { registerLedgerMetrics } from '../../ledger/ledger-metrics.ts';
import { registerOutputMetrics } from '../output-metrics.ts';
import { latchText } from '../../ledger/held-state.ts';
import { LedgerWatch } from '../../ledger/ledger-watch.ts';
import { bindStoreMetrics } from '../../metrics/bind-store-metrics.ts';
import { registerHealthMetrics } from '../../metrics/health-metrics.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { VenuePort } from '../../model/venue.ts';
import { NONCE_MEMORY, NonceSource } from '../../orders/nonces.ts';
import { VenueRefusedError } from '../../orders/refusal.ts';
import { RISK_REASONS, type RiskReason } from '../../risk/types.ts';
import { shardOwns } from '../../selection/shard.ts';
import type { StateEvent } from '../../state/events.ts';
import { selectMarketView } from '../../state/market-view.ts';
import { ClaimsTracker } from '../claims/claims-tracker.ts';
import { payoutOfOutcome } from '../../feeds/market-feed.ts';
import { claimableSinceStore } from '../../ledger/claimable-since.ts';
import { endedOrderNonce } from '../ended-order.ts';
import { EXIT_HALT, EXIT_KILL_SWITCH } from '../exit-codes.ts';
import { createLiveVenue, type LiveVenue } from '../live-venue.ts';
import { PaperVenue } from '../paper-venue.ts';
import { describeStall } from '../loop-stall.ts';
import { SlowTickJudge } from '../slow-tick-judge.ts';
import type { RunFigures } from '../../account/run-figures.ts';
import { deferred } from '../startup-waits.ts';
import type { LedgerPhase } from './ledger.ts';
import { OperatorView } from './operator-view.ts';
import { walletWatchFor, type WalletWatchHandle } from './wallet.ts';
import { watchedVenue } from '../wallet-watch.ts';
import type { SelectPhase } from './select.ts';
import { Shutdown } from './shutdown.ts';
import type { StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

export interface CorePhase {
  readonly core: TradingCore;
  readonly venue: VenuePort;
  readonly healthModel: HealthModel;
  readonly refusals: RefusalLog;
  readonly wireMeter: TickToWireMeter;
  /** holds the bot while the ledger cannot be written (started in the holds phase) */
  readonly ledgerWatch: LedgerWatch;
  /** fills, volume, fees and realised PnL of this run, from the books (summary, report; src/account/run-figures.ts) */
  readonly runFigures: RunFigures;
  readonly claims: ClaimsTracker | null;
  readonly operator: OperatorView;
  /** another trader on this wallet (null on paper): checked after the start-up reconcile, then watched */
  readonly wallet: WalletWatchHandle | null;
  readonly shutdown: Shutdown;
  /** the first balance and positions read: no quote before the bot knows what it holds */
  readonly accountRead: Promise<void>;
  readonly startedAt: number;
  /** the kernel begins to tick; the health model reads its ticks from here on */
  startTicking(): void;
  /**
   * Another trader's fills the feeds reported before the start-up checks passed are held from the ledger
   * (with every fill after the first held, so the ledger keeps the order they came in): written (in order)
   * once the checks pass (startTicking) or at a stop; the other trader's dropped when the start was refused
   * for them (exit 7: their fills are not this ledger's; docs/control.md).
   */
  releaseHeldFills(write: boolean): void;
}

export function corePhase(
  c: StartContext,
  { client, signer }: VenuePhase,
  { markets, marketIds }: SelectPhase,
  l: LedgerPhase,
  /** orders the start-up migration restored: this wallet's own, whatever their nonce */
  restored: ReadonlySet<Bytes32> = new Set(),
): CorePhase {
  const { cfg, clock, log, metrics, paper, life } = c;
  const { bookLedger, accountBooks } = l;
  const refusals = new RefusalLog(c.o.logger, cfg.health.logIntervalMs);
  const startedAt = clock.now();
  /** the claims tracker, once made (below): the books-drift hook tells it of a balance read below the books */
  let claimsLate: ClaimsTracker | null = null;
  const wireMeter = new TickToWireMeter({
    tickToWire: (sec) => metrics.tickToWire.observe(sec),
    tickToCancel: (sec) => metrics.tickToWireCancel.observe(sec),
    throttle: (sec) => metrics.requoteThrottle.observe(sec),
  });

  // why a strategy call ran over its budget: the strategy, or a host that starves the bot of CPU
  const slowTicks = new SlowTickJudge();
  life.add(slowTicks.start());
  const { venue, paperVenue, liveVenue } = venuePort(c, client, signer, wireMeter, (e) => core.receive(e));
  const operator = new OperatorView();
  // another trader on this wallet: every open-orders listing of the order manager passes the watch first
  // nonces carry the ledger's tag: orders a crash left unrecorded are still known as ours (src/orders/nonces.ts)
  const nonces = new NonceSource(NONCE_MEMORY, undefined, bookLedger.ledger.nonceTag());
  const wallet = walletWatchFor(
    c,
    bookLedger,
    () => core.orderManager.ownMarkets(),
    restored,
    (n) => nonces.has(n),
    // a shard knows the other shards of its wallet by their tags (src/runtime/shard-tags.ts)
    l.siblings,
  );
  const core = createTradingCore({
    config: cfg,
    clock,
    venue: wallet ? watchedVenue(venue, wallet.watch) : venue,
    nonces,
    markets,
    logger: c.o.logger,
    initialState: bookLedger.initialState(marketIds),
    account: accountBooks,
    ...(cfg.orders.reconcileScope === 'markets' ? { ownMarkets: marketIds } : {}),
    // the reconcile warning says whose a found order is: an earlier run's, a crash's (tagged, no record), or another trader's
    orderRecord: (nonce) => (bookLedger.ledger.hasOrder(nonce) ? 'recorded' : bookLedger.ledger.isTagged(nonce) ? 'tagged' : 'unknown'),
    // the fills feed's fee model: a found V2 buy's remaining shares net of the fee it paid
    fees: bookLedger.fees,
    // an order gone without its fills seen keeps counting until the fills poll reports it closed, its
    // fills first; failing that, until a balance read begun this long after its end has landed
    // (however many reads fail meanwhile), which leaves the venue that long to settle the fill into
    // the balance. The paper venue reports fills itself, before an order's end.
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
      shutdown.request('halt', EXIT_HALT, result);
    },
    kernel: {
      deferStart: true,
      stillTickMs: STILL_TICK_MS,
      // a latched start holds with the original reason (KILL_DRAWDOWN …), not a generic one
      ...(bookLedger.latch ? { latched: latchedReason(bookLedger.latch.reason) } : {}),
      // a market paused by an operator (held in the ledger) starts paused when rotation brings it back
      heldPause: operator.heldPause,
      initialRisk: bookLedger.initialRisk(tradingDay(cfg.account.dayStartsAt)),
      onDrift: (marketId, drifts) => {
        for (const x of drifts) metrics.booksDrift.inc({ market: x.marketId, outcome: x.outcomeIndex === 1 ? 'yes' : 'no' });
        // fewer tokens than the books hold in a resolved market: most likely a claim; the tracker reads now
        if (drifts.some((x) => x.venue < x.books)) claimsLate?.balanceBelowBooks(marketId);
      },
      onKillLatched: bookLedger.latchKill,
      onTickStart: (marketId, cause) => wireMeter.tickStart(marketId, cause),
      onTick: (marketId) => wireMeter.tickEnd(marketId, k.lastSync(marketId)),
      timer: () => performance.now(),
      strategyBudgetMs: cfg.health.strategyBudgetMs,
      faultLogIntervalMs: cfg.health.logIntervalMs,
      onStrategyFault: (marketId, kind) => {
        (kind === 'error' ? healthMetrics.strategyErrors : healthMetrics.strategySlow).inc({ market: marketId });
        if (kind !== 'slow') return;
        // the strategy, or the host? (a slow call on a starved machine is mostly waiting for a CPU)
        const j = slowTicks.judge();
        healthModel.slowBecause(marketId, j.cause, describeStall(j));
      },
      onKill: (reason, detail, result) => {
        healthModel.halt('kill-switch', `kill switch ${reason}: ${detail}`);
        log.fatal({ reason, detail, remaining: result.remaining }, 'kill switch: everything cancelled; exiting');
        shutdown.request('kill-switch', EXIT_KILL_SWITCH, result);
      },
    },
  });
  const { store, kernel: k, orderManager: om } = core;
  // a start-up failure from here on must not leave the kernel's timers ticking (shutdown stops it too)
  life.add(() => k.stop());
  // fail closed: a ledger that cannot be written (disk full, file gone, I/O error) past the
  // grace pulls every quote until writes succeed again
  const ledgerWatch = new LedgerWatch({
    ledger: bookLedger.ledger,
    clock,
    graceMs: cfg.ledger.unwritableGraceMs,
    logger: c.o.logger,
    onDown: (why) => k.hold('ledger', why),
    onUp: () => k.unhold('ledger'),
  });
  // (its `down` stays null until the holds phase starts it)
  registerLedgerMetrics(metrics.registry, bookLedger, 'bookmaker_', () => ledgerWatch);
  registerOutputMetrics(metrics.registry);
  metrics.setStateSource(() => store.state, clock);
  metrics.setAccount(accountBooks);
  if (liveVenue) metrics.setOrderCalls(() => ({ waiting: liveVenue.waitingCalls, inFlight: liveVenue.inFlightCalls }));
  life.add(bindStoreMetrics(metrics, store));
  let ticking = false;
  const healthModel = new HealthModel({
    markets: marketIds,
    state: () => store.state,
    lastTick: (id) => (ticking ? k.lastTick(id) : null),
    killed: () => (ticking ? k.killed : null),
    drifts: () => accountBooks.drifts(),
    ledgerDown: () => ledgerWatch.down,
    clock,
    graceMs: cfg.health.notQuotingGraceMs,
    logIntervalMs: cfg.health.logIntervalMs,
    logger: c.o.logger,
  });
  const healthMetrics = registerHealthMetrics(metrics.registry, () => healthModel);
  // a latch from an earlier run holds the bot from the moment it is read: /readyz, the metrics and the logs say
  // kill-switch from the endpoints phase on, not `starting` until the start-up reconcile is done
  if (bookLedger.latch) healthModel.halt('kill-switch', `${latchText(bookLedger.latch)} (latched in an earlier run)`);
  const watchdog = c.o.watchdog;
  const shutdown = new Shutdown({
    log,
    life,
    clock,
    kernel: k,
    orderManager: om,
    health: healthModel,
    refusals,
    ...(watchdog ? { afterCancel: () => watchdog.standDown() } : {}),
  });

  const claims = paper ? null : claimsTracker(c, client, venue, l, (id) => k.hasMarket(id));
  claimsLate = claims;
  if (claims) life.add(() => claims.stop());
  const held = new HeldForeignFills(bookLedger);
  // a start that ends before its checks (any other failure, a stop) writes what was held, before the ledger
  // closes; a refusal for the wallet drops it first (phases/control.ts: cleanups run last added first)
  life.add(() => held.release(true));
  const accountRead = routeEvents(core, { clock, bookLedger: held, refusals, healthModel, wireMeter, claims, liveVenue, paperVenue });

  return {
    core,
    venue,
    healthModel,
    refusals,
    wireMeter,
    ledgerWatch,
    runFigures: l.runFigures,
    claims,
    operator,
    wallet,
    shutdown,
    accountRead,
    startedAt,
    startTicking() {
      ticking = true;
      held.release(true);
      k.start();
    },
    releaseHeldFills: (write) => held.release(write),
  };
}

/**
 * The ledger's event route during start-up: another trader's fill (origin foreign) waits here until the
 * start-up checks pass, so a start refused for that trader (exit 7) writes none of their fills to its ledger.
 * From the first fill held on, every fill waits behind it (this bot's own too), so the ledger records the
 * fills in the order the books and the store took them: the record order a replay applies to the
 * positions the store starts from (src/ledger/books-checkpoint.ts; written after this bot's own, a held
 * fill gave them another average cost: docs/ledger-operations.md, "Fills held at start-up"). Every other
 * event, and everything once released, goes straight to the ledger.
 */
export class HeldForeignFills {
  private held: StateEvent[] | null = [];
  constructor(private readonly ledger: Pick<LedgerPhase['bookLedger'], 'onEvent'>) {}
  onEvent(e: StateEvent): void {
    if (this.held !== null && e.type === 'OrderFilled' && (this.held.length > 0 || fillOrigin(e) === 'foreign')) this.held.push(e);
    else this.ledger.onEvent(e);
  }
  /** from now on straight to the ledger; what was held is written in order (write), or this bot's own fills alone (the other trader's dropped) */
  release(write: boolean): void {
    const held = this.held;
    this.held = null;
    if (held) for (const e of held) if (write || (e.type === 'OrderFilled' && fillOrigin(e) !== 'foreign')) this.ledger.onEvent(e);
  }
}

/** What the event routes of the live bot tell. */
interface Routes {
  readonly clock: StartContext['clock'];
  readonly bookLedger: Pick<LedgerPhase['bookLedger'], 'onEvent'>;
  readonly refusals: RefusalLog;
  readonly healthModel: HealthModel;
  readonly wireMeter: TickToWireMeter;
  readonly claims: ClaimsTracker | null;
  readonly liveVenue: LiveVenue | null;
  readonly paperVenue: PaperVenue | null;
}

/**
 * The live bot's listeners on the core's two buses, in this order (docs/architecture.md#one-assembly);
 * resolves once the first balance and positions read is in: no quote before the bot knows what it holds.
 */
function routeEvents(core: TradingCore, r: Routes): Promise<void> {
  const { clock, bookLedger, refusals, healthModel, wireMeter, claims, liveVenue, paperVenue } = r;
  const { store } = core;
  // ---- the order manager's events once the store has them ----
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

  // ---- what the venue reports, around the kernel's state step (rotation adds its own) ----
  const accountRead = deferred<void>();
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
      const pos = store.state.markets.get(e.marketId)?.position;
      claims.marketResolved(e.marketId, e.payoutYes ?? null, !!pos && (pos.yes !== 0 || pos.no !== 0));
    });
  }
  core.inbound.on('react', orderEnded);
  if (paperVenue) {
    const pv = paperVenue;
    core.inbound.on('react', (e) => {
      if (e.type !== 'BookEventReceived') return;
      const ev = e.event;
      const view = selectMarketView(store.state, ev.type === 'snapshot' ? ev.book.marketId : ev.marketId, clock.now());
      pv.onBookEvent(ev, view?.book?.bestBid ?? null, view?.book?.bestAsk ?? null);
    });
  }
  return accountRead.promise;
}

/** The venue port: the paper venue (its fills through the inbound bus) or the live venue (signed, metered). */
function venuePort(
  c: StartContext,
  client: VenuePhase['client'],
  signer: VenuePhase['signer'],
  wireMeter: TickToWireMeter,
  receive: (e: StateEvent) => void,
): { venue: VenuePort; paperVenue: PaperVenue | null; liveVenue: LiveVenue | null } {
  if (c.paper) {
    // paper fills go through the inbound bus like the venue's: the (paper account's) ledger records them too
    const paperVenue = new PaperVenue({ clock: c.clock, onFill: receive, onClosed: receive });
    return { venue: paperVenue, paperVenue, liveVenue: null };
  }
  const liveVenue = createLiveVenue({
    client,
    signer: signer!,
    batchLimit: c.cfg.orders.batchLimit,
    // tick-to-wire: from the book event that caused the send (see tick-to-wire.ts)
    onWrite: (marketId, cancelOnly) => wireMeter.write(marketId, cancelOnly),
  });
  return { venue: liveVenue, paperVenue: null, liveVenue };
}

/**
 * After resolution (src/runtime/claims): claimable positions of this instance's markets, read from the
 * venue at start-up and when a market resolves; logged, counted and in the run report.
 */
function claimsTracker(
  c: StartContext,
  client: VenuePhase['client'],
  venue: VenuePort,
  { bookLedger, accountBooks }: LedgerPhase,
  follows: (marketId: Bytes32) => boolean,
): ClaimsTracker {
  const { clock } = c;
  return new ClaimsTracker({
    read: () => client.portfolio.claimable(venue.trader),
    // start-up: claims made while the bot was down (the books' resolved-unclaimed markets the venue shows claimed)
    unclaimed: () => accountBooks.unclaimedResolved(),
    // and the markets it holds tokens in without a payout, followed or not (a resolution it never saw)
    heldUnresolved: () => [...new Set(accountBooks.positions().map((p) => p.marketId))].filter((id) => accountBooks.market(id)?.payoutYes === null),
    readPayout: async (id) => {
      const m = await client.markets.get(id);
      const pay = payoutOfOutcome(m.status, m.outcome);
      return pay === null ? null : BigInt(pay);
    },
    readHoldings: (marketId) => client.portfolio.iterate(venue.trader, marketId ? { marketId, pageSize: 500 } : { kind: 'all', pageSize: 500 }),
    // while running, the held markets no feed follows (a quoted market's resolution comes with its feed)
    follows,
    ...(c.o.claimsHeldCheckMs !== undefined ? { heldCheckMs: c.o.claimsHeldCheckMs } : {}),
    owns: (id) => shardOwns(id, c.cfg.selection.shard),
    clock,
    logger: c.o.logger,
    registry: c.metrics.registry,
    // when each claimable market was first seen so, kept in the ledger across restarts (overdue 24 h after it)
    store: claimableSinceStore(bookLedger.ledger, c.o.logger),
    onClaimed: (id, payoutYes) => {
      // the payout first (a market resolved while the bot was down has none in the books yet)
      const payout = payoutYes !== null && payoutYes >= 0n && payoutYes <= 1_000_000n ? Number(payoutYes) : null;
      if (payout !== null) accountBooks.resolve(id, payout, clock.now());
      accountBooks.claimed(id);
      // in the ledger too: a restart's books keep the resolution PnL and the claimed payout
      bookLedger.claimed(id, payout, clock.now());
    },
  });
}

/** Fills matter for quoting within a second; balances ride along in the same poll. */
export function fillsPollMs(cfg: BotConfig): number {
  return Math.min(1_000, cfg.feeds.balancePollMs);
}

/** The kill reason a latched start holds with: the latch's own when it is one, else KILL_LATCHED. */
function latchedReason(reason: string): RiskReason {
  return (RISK_REASONS as readonly string[]).includes(reason) ? (reason as RiskReason) : 'KILL_LATCHED';
}
