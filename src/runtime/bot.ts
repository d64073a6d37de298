/**
 * The bot: the one place where live, paper and the embedded demo are wired (docs/architecture.md#start-up-phases).
 * Everything between the feeds and the venue is the shared trading core (src/kernel/trading-core.ts).
 *
 *   const bot = await startBot({ config, logger, baseUrl?, paper?, apiKey?, keyFile?, metricsPort? });
 *   bot.exit            // resolves with an exit code when the bot stops by itself (kill switch, halt)
 *   await bot.stop()    // SIGINT/SIGTERM/--duration: stop quoting, cancel all, flush → exit code 0
 *
 * The start-up is a sequence of named phases (src/runtime/phases), each a function of what the earlier
 * ones built, adding to one lifecycle the steps that undo it (nothing is quoted before the venue has
 * been reconciled):
 *   admin      the admin endpoint binds first (a port in use stops the start-up before anything else);
 *   venue      keys and venue (venue-setup.ts), the watchdog armed, the venue client and signer;
 *   select     the markets the selectors and the shard choose;   migration  the start-up migration (live);
 *   ledger     the books and the kill-switch latch across restarts;
 *   core       the venue port and the trading core, the health model, claims, the event routes;
 *   feeds      feeds into the core; wait (bounded) for a first book of every market and a balance read;
 *   holds      the operator's halt and pauses hold the kernel again; the ledger watch;
 *   endpoints  /metrics and /readyz;   rotation  markets start and retire while the bot runs;
 *   control    operator control (bookmaker ctl, SIGHUP), the ledger's final sweep at the stop;
 *   reconcile  reconcile with the venue, adopting what matches the strategies' first quotes; another
 *              trader's orders on the wallet refuse the start (exit 7); only then the kernel ticks and quotes.
 * Stopping (phases/shutdown.ts): the kill switch or an order-manager halt cancel everything and exit
 * non-zero (3 / 4); stop() cancels everything and exits 0 only when the venue reports no open order of
 * ours (else 1); the lifecycle then tears every phase down in reverse.
 */
import type { RunTrades } from '../account/run-figures.ts';
import { systemClock } from '../core/clock.ts';
import type { ControlResult } from '../control/admin-server.ts';
import type { BotControl } from '../control/bot-control.ts';
import type { FeedHealth } from '../feeds/feed-health.ts';
import type { HealthModel } from '../health/health-model.ts';
import type { QuotingKernel } from '../kernel/quoting-kernel.ts';
import type { BotLedger } from '../ledger/bot-ledger.ts';
import { createBotMetrics, type BotMetrics } from '../metrics/bot-metrics.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import type { OrderManager } from '../orders/order-manager.ts';
import { withShardScope } from '../selection/shard.ts';
import type { Counterparties } from '../sim/counterparties.ts';
import type { LocalExchange } from '../sim/local-exchange.ts';
import type { StateStore } from '../state/store.ts';
import type { BotOptions } from './bot-options.ts';
import { booksNotOnDisk, type BooksNotOnDisk } from './books-not-on-disk.ts';
import { EXIT_KILL_SWITCH, EXIT_LEDGER_UNWRITABLE, EXIT_OK, EXIT_ORDERS_LEFT } from './exit-codes.ts';
import { Lifecycle } from './lifecycle.ts';
import { startEarlyAdmin } from './phases/admin.ts';
import { controlPhase, type ControlPhase } from './phases/control.ts';
import { corePhase, type CorePhase } from './phases/core.ts';
import { endpointsPhase, type EndpointsPhase } from './phases/endpoints.ts';
import { feedsPhase, type FeedsPhase } from './phases/feeds.ts';
import { holdsPhase } from './phases/holds.ts';
import { ledgerPhase, type LedgerPhase } from './phases/ledger.ts';
import { migrationPhase } from './phases/migration.ts';
import { botReport } from './phases/report.ts';
import { rotationPhase, type RotationPhase } from './phases/rotation.ts';
import { reconcilePhase, runningPhase } from './phases/running.ts';
import { selectPhase, type SelectPhase } from './phases/select.ts';
import { applyHeapPolicy, heapPolicyFor } from './heap-policy.ts';
import type { Ranker } from '../selection/ranker.ts';
import type { StopProgress } from './phases/shutdown.ts';
import type { StartContext } from './phases/start-context.ts';
import { armWatchdog, venuePhase } from './phases/venue.ts';
import type { MarketRotation } from './rotation/market-rotation.ts';
import type { RunReport } from './run-report.ts';
import { StartupAbortedError } from './startup-retry.ts';
import { DEFAULT_STARTUP_DEADLINE_MS, StartupStatus } from './startup-status.ts';
import { closeVenueSetup, setupVenue, type VenueSetup } from './venue-setup.ts';

export type { BotOptions } from './bot-options.ts';
export { EXIT_HALT, EXIT_KILL_SWITCH, EXIT_LEDGER_UNWRITABLE, EXIT_OK, EXIT_ORDERS_LEFT } from './exit-codes.ts';

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
  /** this run's fills per market (the books' figures: src/account/run-figures.ts), for the summary */
  readonly fills: { get(marketId: string): number | undefined };
  /** this run's fills, volume, fees and realised PnL over every market, from the books (the report's totals) */
  runTrades(): RunTrades;
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
  /** the rank entries' selection state (scores of the ranked markets quoted now) */
  readonly ranker: Ranker;
  /** reload the config file (SIGHUP, `bookmaker ctl reload`) */
  reload(reason?: string): Promise<ControlResult>;
  /**
   * After the stop: why this run's books are not (all) on disk (the ledger deleted, full or lost under
   * the bot), with the final log line's message; null when the ledger was written to the end.
   */
  booksNotOnDisk(): BooksNotOnDisk | null;
  stop(reason?: string): Promise<number>;
  /** the stop under way (by stop(), the kill switch or a halt): the step it waits on; null when none is */
  stopProgress(): StopProgress | null;
}

export async function startBot(o: BotOptions): Promise<Bot> {
  const clock = o.clock ?? systemClock;
  const log = o.logger.child({ component: 'bot' });
  const paper = o.paper ?? false;
  // until the bot is wired, `ctl status` names the start-up phase and a halt is held (DeferredControls)
  const early = await startEarlyAdmin(o, paper, log);
  // keys and config are checked even when a stop came first: a bad key is reported (exit 2), not hidden
  let v: VenueSetup;
  try {
    v = await setupVenue(o);
  } catch (e) {
    await early?.endpoint.close();
    throw e;
  }
  if (o.signal?.aborted) {
    await closeVenueSetup(v);
    await early?.endpoint.close();
    throw new StartupAbortedError(String(o.signal.reason ?? 'stop'));
  }
  armWatchdog(o, v, paper);
  // one lifecycle: each phase below adds what undoes it; a stop or a failed start-up undoes in reverse
  const life = new Lifecycle();
  // until the endpoints phase serves the bot's answers, /readyz says 503 with the phase and what it waits for
  const startup = new StartupStatus(clock, o.startupDeadlineMs ?? DEFAULT_STARTUP_DEADLINE_MS, () => life.phase);
  o.watchdog?.serve(startup.answer);
  if (early) life.add(() => early.endpoint.close());
  life.enter('venue');
  life.add(() => closeVenueSetup(v));
  // a shard owns only its markets: reconcileScope markets whatever the file says (src/selection/shard.ts)
  const c: StartContext = { o, cfg: withShardScope(o.config), v, clock, log, paper, life, early, metrics: createBotMetrics(), signal: o.signal, startup };
  try {
    return await wire(c);
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

/** The phases in order, each given what the earlier ones built (src/runtime/phases). */
async function wire(c: StartContext): Promise<Bot> {
  const { life } = c;
  const venue = venuePhase(c);
  life.enter('select');
  const selected = await selectPhase(c, venue);
  const heap = heapPolicyFor(selected.marketIds.length, process.env, process.execArgv);
  if (applyHeapPolicy(heap))
    c.log.info(
      { heapGrowingPercent: heap.growingPercent, why: heap.why },
      `heap policy: the old generation grows to at most ${1 + heap.growingPercent! / 100} × what a full collection leaves live (docs/deployment.md)`,
    );
  else if (heap.invalid) c.log.warn({ why: heap.why }, 'heap policy: setting ignored; V8 sizes the heap');
  life.enter('migration');
  const restored = await migrationPhase(c, venue);
  life.enter('ledger');
  const ledger = await ledgerPhase(c, venue, selected);
  life.enter('core');
  const core = corePhase(c, venue, selected, ledger, restored);
  life.enter('feeds');
  const feeds = await feedsPhase(c, venue, selected, ledger, core);
  life.enter('holds');
  const holds = holdsPhase(c, selected.marketIds, ledger, core);
  life.enter('endpoints');
  const endpoints = await endpointsPhase(c, selected, ledger, core);
  life.enter('rotation');
  // the refreshes select with the running config, which a reload through the control replaces
  const rotation = rotationPhase(c, venue, selected, ledger, core, feeds, () => control.control.currentConfig);
  life.enter('control');
  const control = controlPhase(c, venue, selected, ledger, core, holds, rotation);
  life.enter('reconcile');
  await reconcilePhase(c, selected, ledger, core, endpoints, rotation, control);
  life.enter('running');
  runningPhase(c, core, rotation, control);
  return liveBot(c, { selected, ledger, core, feeds, endpoints, rotation, control, report: botReport(c, ledger, core, rotation) });
}

/** What the phases built, as the bot's callers see it. */
function liveBot(
  c: StartContext,
  p: {
    selected: SelectPhase;
    ledger: LedgerPhase;
    core: CorePhase;
    feeds: FeedsPhase;
    endpoints: EndpointsPhase;
    rotation: RotationPhase;
    control: ControlPhase;
    report: Bot['report'];
  },
): Bot {
  const { core, healthModel, shutdown, runFigures } = p.core;
  const { control } = p.control;
  const rot = p.rotation.rotation;
  let ledgerProblemAtStop: ReturnType<BotLedger['ledger']['problem']> = null;
  return {
    baseUrl: c.v.baseUrl,
    trader: p.core.venue.trader,
    get markets() {
      return rot.activeIds();
    },
    metricsUrl: p.endpoints.endpoint?.url ?? null,
    store: core.store,
    kernel: core.kernel,
    orderManager: core.orderManager,
    health: p.feeds.health,
    healthModel,
    ranker: p.selected.ranker,
    report: p.report,
    readyz() {
      const checks = p.endpoints.ready();
      const ok = Object.values(checks).every(Boolean);
      return { status: ok ? 200 : 503, body: { ready: ok, checks, ...p.endpoints.readyDetails() } };
    },
    metrics: c.metrics,
    localExchange: c.v.local,
    localAgents: c.v.agents,
    paper: c.paper,
    fills: runFigures.fills,
    runTrades: () => runFigures.totals(),
    exit: shutdown.exit,
    ledger: p.ledger.bookLedger,
    control,
    adminUrl: c.early?.endpoint.url ?? null,
    rotation: rot,
    reload: (reason) => control.reload(reason ?? 'SIGHUP'),
    booksNotOnDisk() {
      const ledger = p.ledger.bookLedger.ledger;
      return booksNotOnDisk(ledger.path, ledger.problem() ?? ledgerProblemAtStop);
    },
    stopProgress: () => shutdown.progress(),
    async stop(reason = 'stop') {
      // a bot held by a latched kill switch stops with the kill-switch code
      const latched = core.kernel.killed !== null;
      // a lost lock is not seen once the ledger closed: keep it (failing writes are judged after the final flush)
      const atStop = p.ledger.bookLedger.ledger.problem();
      ledgerProblemAtStop = atStop && !atStop.reason.startsWith('writes fail') ? atStop : null;
      const r = await shutdown.stop(reason);
      // orders left at the venue come first; then books that did not reach the disk (docs/reference/exit-codes.md)
      const lost = r.ok && this.booksNotOnDisk() !== null;
      return shutdown.exitWith(r.ok ? (lost ? EXIT_LEDGER_UNWRITABLE : latched ? EXIT_KILL_SWITCH : EXIT_OK) : EXIT_ORDERS_LEFT);
    },
  };
}
