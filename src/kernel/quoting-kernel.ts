/**
 * The quoting kernel: the part of the bot that live, paper and backtest share line for line
 * (docs/architecture.md#the-pipeline and habit 3). Everything time-related goes through the injected Clock, so it runs on
 * virtual time; there is no RxJS and no wall-clock read in here.
 *
 * Entry points (stable API):
 *   const kernel = new QuotingKernel({ clock, venue, store, markets, requoteIntervalMs, orderManager?, … });
 *   kernel.onEvent(e) / kernel.onEvents(es)  // feed typed StateEvents (src/state/events.ts) in
 *   kernel.desired()                         // every market's desired orders now (start-up reconcile)
 *   kernel.tick(marketId)                    // force one tick now (tests, tools)
 *   await kernel.flush()                     // wait until the order manager has sent what was asked
 *   await kernel.shutdown()                  // stop ticking and cancel every order at the venue
 *   kernel.stop()                            // stop ticking (timers cleared), no venue calls
 *   kernel.killed                            // the kill-switch reason once fired, else null
 *   kernel.orderManager                      // the order manager (given, or built from venue+clock)
 *
 * Fills (OrderFilled with a nonce, de-duplicated by fill id) also shrink the order manager's own copy
 * of the order, so a filled quote is replaced at once rather than at the next reconcile.
 *
 * The account: every fill goes into the account's books (`kernel.account`, given or
 * built), balance reads are reconciled against them, resolutions realise; each tick marks its market
 * and checks the account's kill switch (`kernel.accountRisk`) on the account's PnL before the
 * strategy runs. The per-market risk gate no longer holds any PnL figure.
 *
 * Per tick of one market: store snapshot → MarketView → strategy → risk gate → to-orders → slots →
 * orderManager.sync. Denials are dispatched into the store as QuoteDenied events. A 'pull' decision
 * syncs an empty set; a 'kill' decision latches, stops quoting everywhere, cancels everything and
 * calls `onKill` (the live runtime exits non-zero; a backtest records it).
 *
 * Tick scheduling, per market: an event that concerns a configured market marks it dirty; the tick
 * runs at once when the last one is at least `requoteIntervalMs` old (so the hot path from a book
 * event to the signed request is synchronous), otherwise a timer on the injected clock runs one
 * coalesced tick at the end of the interval (leading + trailing throttle). Independently, every
 * `housekeepingMs` every market not ticked within that time is ticked: a stalled stream sends no
 * events, and this is how the stale-data guard gets to pull the quotes of a silent market (at most
 * 2 × `housekeepingMs` between two ticks of a market; a round over many markets runs in slices).
 */
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';
import { refreshDue, type DesiredOrder, type Tolerances } from '../orders/diff.ts';
import { OrderManager, SYNCED, type CancelAllResult } from '../orders/order-manager.ts';
import { InFlight } from '../orders/in-flight.ts';
import { desiredWithReservedSells, newDesiredMemo, type DesiredMemo } from '../orders/sell-reserve.ts';
import { fatalVoid, VenueRefusedError } from '../orders/refusal.ts';
import { InvariantError } from '../model/errors.ts';
import { INITIAL_RISK_STATE, type QuoteDenied, type RiskLimits, type RiskReason, type RiskState } from '../risk/types.ts';
import type { OrderManagerEvent, StateEvent } from '../state/events.ts';
import { selectMarketView } from '../state/market-view.ts';
import type { StateStore } from '../state/store.ts';
import { runStrategy, type StrategyTick } from './run-strategy.ts';
import { timeGuardTrips } from '../risk/market-guard.ts';
import type { NoInventoryMode, ToOrdersOptions } from '../strategy/to-orders.ts';
import type { MarketView, StrategyModule, WorkingQuote } from '../strategy/types.ts';
import { ThrottledLog } from '../core/throttled-log.ts';
import { Account, type Drift } from '../account/account.ts';
import { applyToBooks } from '../account/account-fill.ts';
import { AccountRisk, DEFAULT_ACCOUNT_LIMITS, type AccountLimits, type AccountRiskFigures } from '../account/account-risk.ts';

/** What started a tick (see QuotingKernelOptions.onTickStart). */
export type TickCause = 'event' | 'throttled' | 'housekeeping' | 'manual';

/** One quoted market: its strategy module, the module's parsed params and its risk limits. */
export interface KernelMarket {
  readonly marketId: Bytes32;
  readonly strategy: StrategyModule<unknown>;
  readonly params: unknown;
  readonly risk: RiskLimits;
}

export interface QuotingKernelOptions {
  readonly clock: Clock;
  readonly venue: VenuePort;
  readonly store: StateStore;
  readonly markets: readonly KernelMarket[];
  /** minimum spacing of two ticks of one market, ms (0 = tick on every event) */
  readonly requoteIntervalMs: number;
  /** a market not ticked for this long is ticked by the next housekeeping round, run this often, ms (default max(1000, requoteIntervalMs)) */
  readonly housekeepingMs?: number;
  /**
   * A still market (its last tick quoted with nothing denied, its orders rest as wanted, no time
   * guard trips now and no order is due a refresh) is ticked by housekeeping only when its last tick
   * is this old (counted from its last tick that ran), ms (default: none; every round ticks it). The
   * live runtime and the backtest set it to STILL_TICK_MS (src/runtime/phases/core.ts, src/backtest/run-backtest.ts).
   */
  readonly stillTickMs?: number;
  /**
   * A still market's skipped housekeeping tick counts for the requote throttle as a tick that ran: an
   * event within requoteIntervalMs of it waits for a trailing tick, as when every round ticked (the
   * backtest: the same fills as without the memo). Default false (live): such an event ticks at once.
   */
  readonly stillSkipCountsAsTick?: boolean;
  /** what to send when not holding the outcome being sold (default 'buy-complement') */
  readonly noInventory?: NoInventoryMode;
  /** an order manager to use; when omitted one is built over `venue` with these settings */
  readonly orderManager?: OrderManager;
  readonly tolerances?: Tolerances;
  readonly deadManSeconds?: number;
  readonly inFlightTimeoutMs?: number;
  /** extra listener for the order manager's events (already dispatched into the store) */
  readonly onOrderEvent?: (e: OrderManagerEvent) => void;
  /**
   * At the start of every tick of a market, with what started it: `event` (an event ran it at once),
   * `throttled` (the trailing tick of the requote throttle), `housekeeping` (the periodic round) or
   * `manual` (tick()). The runtime's tick-to-wire meter (tick-to-wire.ts) reads it.
   */
  readonly onTickStart?: (marketId: Bytes32, cause: TickCause) => void;
  /** after every tick of a market (terminal summary, metrics, backtest reports); `view` is what the strategy saw */
  readonly onTick?: (marketId: Bytes32, result: KernelTick, view: MarketView | null) => void;
  /** the kill switch fired and everything was cancelled */
  readonly onKill?: (reason: RiskReason, detail: string, result: CancelAllResult) => void;
  /**
   * the kill switch fired (called at once, before anything is cancelled): the live runtime latches it
   * in the ledger here, so a crash during the cancels cannot lose the latch
   */
  readonly onKillLatched?: (reason: RiskReason, detail: string, marketId: Bytes32) => void;
  /**
   * start latched (the ledger says an earlier run's kill switch was never cleared): nothing is
   * quoted until `clearKill()`; `desired()` is empty so the start-up reconcile cancels what it finds
   */
  readonly latched?: RiskReason;
  /**
   * an operator's pause that outlives a market's slot (held in the ledger until resume): a
   * market that (re)starts while this says paused starts paused
   */
  readonly heldPause?: (marketId: Bytes32) => boolean;
  /** the kill switch's account figures carried over from the ledger (peak PnL, trading day and its opening PnL) */
  readonly initialRisk?: Partial<AccountRiskFigures>;
  /** the account's books (rebuilt from the ledger at start); a fresh one when omitted */
  readonly account?: Account;
  /** the `account:` limits (default DEFAULT_ACCOUNT_LIMITS) */
  readonly accountLimits?: AccountLimits;
  /** a balance read disagrees with the books (logged by the kernel when it begins; metrics, health) */
  readonly onDrift?: (marketId: Bytes32, drifts: readonly Drift[]) => void;
  /** a broken invariant in the order manager halted it (only when the kernel built it) */
  readonly onHalt?: (err: Error, result: CancelAllResult) => void;
  readonly logger?: Logger;
  /**
   * A monotonic reader in ms (the runtime passes performance.now) to time each strategy call against
   * `strategyBudgetMs`; without one no tick is timed (backtests on virtual time).
   */
  readonly timer?: () => number;
  /** a strategy call (strategy + risk gate) slower than this is counted and marks its market slow, ms (default 50) */
  readonly strategyBudgetMs?: number;
  /** a strategy threw (or returned garbage), or ran over budget: for metrics and the health model */
  readonly onStrategyFault?: (marketId: Bytes32, kind: 'error' | 'slow', detail: Error | number) => void;
  /** a failing strategy is logged once with its stack, then summarised once per this interval, ms (default 10 000) */
  readonly faultLogIntervalMs?: number;
  /**
   * Built before it may quote (the live start-up: events reach the store and the books while the
   * feeds warm up, nothing ticks): no tick and no housekeeping until `start()`.
   */
  readonly deferStart?: boolean;
}

/** What one tick decided (for observers; the kernel keeps the latest per market). */
export interface KernelTick {
  readonly at: number;
  readonly action: StrategyTick['action'] | 'no-view';
  readonly desired: readonly DesiredOrder[];
  readonly denied: number;
  readonly strategyError: Error | null;
  /** a pull by a market-wide guard: its reason */
  readonly reason?: RiskReason;
  /** the risk layer denied every quote the strategy wanted: the first denial's reason */
  readonly deniedAll?: RiskReason;
  /** the strategy call took longer than the budget */
  readonly slow?: boolean;
  /** how many quotes the strategy returned (null: it returned null); absent before a view exists or after an error */
  readonly returned?: number | null;
  /** the risk gate's denials on this tick */
  readonly deniedBy?: readonly QuoteDenied[];
}

/** Market guards that time alone cannot lift: only an event (a book, a status, metadata) can. */
const TIME_MONOTONE_PULLS: ReadonlySet<RiskReason> = new Set<RiskReason>(['STALE_BOOK', 'STREAM_SILENT', 'DEADLINE', 'MARKET_NOT_ACTIVE', 'HALTED']);

/**
 * The market-wide guard behind a pull, if any: the risk layer reports it as its one decision without
 * a quote (also when the strategy chose not to quote).
 */
function pullReason(t: StrategyTick): RiskReason | undefined {
  const d = t.decisions[0];
  return t.decisions.length === 1 && d && d.kind === 'deny' && d.quote === null ? d.reason : undefined;
}

interface MarketSlot {
  readonly cfg: KernelMarket;
  risk: RiskState;
  /** the last tick (and a still market's skipped one with stillSkipCountsAsTick): the throttle and the housekeeping round count from it */
  lastTickAt: number;
  /** the last tick that ran (a still market's stillTickMs counts from it) */
  lastRunAt: number;
  cancelTimer: (() => void) | null;
  /** the throttle's trailing tick, the timer's callback made once per slot (not a closure per timer) */
  readonly trailing: () => void;
  last: KernelTick | null;
  /** skipped by housekeeping until an event for the market arrives (see restsWithoutEvents) */
  resting: boolean;
  /** removed by a reload: quotes nothing, and leaves once the order manager holds nothing of it */
  retiring: boolean;
  /** the market's slot strings so far (src/orders/slots.ts desiredOrders): they go with the slot */
  readonly slotNames: string[];
  /** to-orders' options for the market's tick (the tick can change with its metadata), made once per tick size */
  toOrders: ToOrdersOptions | null;
  /** the market's last quotes-to-orders mapping (src/orders/sell-reserve.ts DesiredMemo): it goes with the slot */
  readonly desiredMemo: DesiredMemo;
  /**
   * the latest sync asked for that did not settle at once, until it ends (null: none; QuotingKernel.lastSync):
   * a field of the slot, not a map by market id set and deleted on every venue call
   */
  lastSync: Promise<void> | null;
}

/** What a reload changed (see QuotingKernel.updateMarkets). */
export interface MarketsUpdate {
  readonly added: Bytes32[];
  readonly removed: Bytes32[];
  readonly changed: Bytes32[];
}

const DEFAULT_TOLERANCES: Tolerances = { price: 0, sizeFraction: 0.1 };
/** markets ticked per turn of a housekeeping round (see scheduleHousekeeping) */
const HOUSEKEEPING_SLICE = 250;

/**
 * How often housekeeping ticks a still market (quoting, its orders resting as wanted, no guard due),
 * the live bot's and the backtest's `stillTickMs`: every 5 s instead of every round. At 2,000 quiet
 * markets those ticks were a third of the bot's busy time. The stale-book and stream-silence guards
 * and the dead-man refresh still act in the first round they are due (docs/performance/breadth.md, "Per
 * housekeeping round").
 */
export const STILL_TICK_MS = 5_000;

/** The slot's to-orders options at this tick size: the last ones while the tick stays. */
function toOrdersOf(slot: MarketSlot, tick: number, noInventory: NoInventoryMode | undefined): ToOrdersOptions {
  const last = slot.toOrders;
  if (last !== null && last.tick === tick && last.noInventory === noInventory) return last;
  return (slot.toOrders = { marketId: slot.cfg.marketId, tick, noInventory });
}

const NONE_LEAVING: readonly WorkingQuote[] = [];

/** The quotes being cancelled: a shared empty list when none is (most ticks), without a filter's closure and array. */
function cancelling(quotes: readonly WorkingQuote[]): readonly WorkingQuote[] {
  let out: WorkingQuote[] | null = null;
  for (let i = 0; i < quotes.length; i++) if (quotes[i]!.state === 'cancelling') (out ??= []).push(quotes[i]!);
  return out ?? NONE_LEAVING;
}

/** The market a state event concerns, or null for account-wide events. */
export function eventMarket(e: StateEvent): Bytes32 | null {
  switch (e.type) {
    case 'BookEventReceived':
      return e.event.type === 'snapshot' ? e.event.book.marketId : e.event.marketId;
    case 'BalanceUpdated':
    case 'OrdersReconciled':
    case 'VenueBackedOff':
    case 'VenueCallCompleted':
      return null;
    default:
      return e.marketId;
  }
}

/**
 * The market an order-manager event concerns (null: the account-wide VenueBackedOff and
 * VenueCallCompleted, or an OrdersReconciled of every market). By type, not by a `'marketId' in e`
 * test: that reads a key of objects of a dozen shapes, a megamorphic lookup per event.
 */
function orderEventMarket(e: OrderManagerEvent): Bytes32 | null {
  switch (e.type) {
    case 'VenueBackedOff':
    case 'VenueCallCompleted':
      return null;
    default:
      return e.marketId;
  }
}

/** Events after which a market's quotes may need to move. Order-manager acks do not (no feedback loop). */
function triggersTick(e: StateEvent): boolean {
  switch (e.type) {
    case 'BookEventReceived':
    case 'MarketMetadataUpdated':
    case 'OracleUpdated':
    case 'PositionSynced':
    case 'OrderFilled':
    case 'OrderClosed':
    case 'OrderGone':
    case 'MarketUnblocked':
      return true;
    default:
      return false;
  }
}

export class QuotingKernel {
  readonly orderManager: OrderManager;
  /** the account's books: every PnL figure reads them */
  readonly account: Account;
  /** the account's kill switch: peak, trading day and its opening PnL, once per account */
  readonly accountRisk: AccountRisk;
  private readonly opts: QuotingKernelOptions;
  private readonly clock: Clock;
  private readonly store: StateStore;
  private readonly log: Logger;
  private readonly markets = new Map<Bytes32, MarketSlot>();
  /**
   * The slots of `markets` in a list for the housekeeping rounds (null: to make again): a round took
   * a spread of the map's values every second of every run. Never changed once made (a round holds
   * it); adding or removing a market drops it.
   */
  private slotList: MarketSlot[] | null = null;
  /** syncs handed to the order manager and not yet ended (flush waits for them): an InFlight, not a Set of fresh promises */
  private readonly pending = new InFlight();
  /** slots holding their latest sync (MarketSlot.lastSync, see lastSync): the per-tick checks read it before any lookup */
  private lastSyncsHeld = 0;
  private cancelHousekeeping: (() => void) | null = null;
  private stopped = false;
  /** a slot has rested at some point (see wake); never cleared */
  private someRested = false;
  /** built with deferStart and not started yet */
  private waiting = false;
  private killReason: RiskReason | null = null;
  /** operator pauses and the global halt (bookmaker ctl) */
  private readonly pausedMarkets = new Set<Bytes32>();
  private haltedByOperator = false;
  /** holds the bot places on itself (e.g. 'ledger': the ledger cannot be written), apart from the operator's halt */
  private readonly holds = new Map<string, string>();
  private readonly faults: ThrottledLog;
  /** a failing strategy's recoveries, told once per interval (a strategy that flaps is one storm) */
  private readonly recoveries: ThrottledLog;
  /** markets whose strategy failed on its last tick */
  private readonly failing = new Set<Bytes32>();
  /**
   * Syncs handed to the order manager that did not settle within the call (each leaves a promise
   * behind), and slices of housekeeping rounds run: counts a backtest reads around a timer to tell
   * whether it left anything to run (src/backtest/run-backtest.ts).
   */
  syncsStarted = 0;
  housekeepingSlices = 0;

  constructor(opts: QuotingKernelOptions) {
    this.opts = opts;
    this.clock = opts.clock;
    this.store = opts.store;
    this.log = (opts.logger ?? silentLogger).child({ component: 'kernel' });
    this.faults = new ThrottledLog(opts.faultLogIntervalMs ?? 10_000);
    this.recoveries = new ThrottledLog(opts.faultLogIntervalMs ?? 10_000);
    this.account = opts.account ?? new Account();
    this.accountRisk = new AccountRisk(opts.accountLimits ?? DEFAULT_ACCOUNT_LIMITS, opts.initialRisk ?? {});
    for (const m of opts.markets) this.addSlot(m);
    if (opts.latched) {
      this.killReason = opts.latched;
      this.stopped = true;
    }
    if (opts.deferStart) this.waiting = this.stopped = true;
    this.orderManager =
      opts.orderManager ??
      new OrderManager({
        venue: opts.venue,
        clock: opts.clock,
        tolerances: opts.tolerances ?? DEFAULT_TOLERANCES,
        ...(opts.deadManSeconds ? { deadManSeconds: opts.deadManSeconds } : {}),
        ...(opts.inFlightTimeoutMs ? { inFlightTimeoutMs: opts.inFlightTimeoutMs } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
        emit: (e) => this.onOrderManagerEvent(e),
        emitAll: (es) => this.onOrderManagerEvents(es),
        ...(opts.onHalt ? { onHalt: opts.onHalt } : {}),
      });
    if (!this.stopped) this.scheduleHousekeeping();
  }

  /**
   * An operator cleared a kill switch this kernel started latched with (or that fired and whose
   * cancels are done): quoting starts afresh, the drawdown peak and the day's opening PnL measured
   * from now. Returns false when the kernel was not latched (the peak and the day's opening PnL
   * are measured afresh all the same: a clear resets them, and the ledger's copy with them).
   */
  clearKill(): boolean {
    this.accountRisk.reopen(Number(this.account.pnl()), this.clock.now());
    if (this.killReason === null) return false;
    this.killReason = null;
    for (const s of this.markets.values()) s.risk = INITIAL_RISK_STATE;
    // cleared before start (deferStart: the live start-up's reconcile): ticking begins at start()
    if (this.waiting) return true;
    this.stopped = false;
    this.scheduleHousekeeping();
    for (const s of this.markets.values()) this.kick(s);
    return true;
  }

  get killed(): RiskReason | null {
    return this.killReason;
  }

  private addSlot(m: KernelMarket): void {
    const slot: MarketSlot = {
      cfg: m,
      risk: INITIAL_RISK_STATE,
      lastTickAt: Number.NEGATIVE_INFINITY,
      lastRunAt: Number.NEGATIVE_INFINITY,
      cancelTimer: null,
      trailing: () => {
        slot.cancelTimer = null;
        if (!this.stopped) this.runTick(slot, 'throttled');
      },
      last: null,
      resting: false,
      retiring: false,
      slotNames: [],
      toOrders: null,
      desiredMemo: newDesiredMemo(),
      lastSync: null,
    };
    this.markets.set(m.marketId, slot);
    this.slotList = null;
  }

  /** The kill switch's account figures, for the ledger (one set per account). */
  riskFigures(): AccountRiskFigures {
    return this.accountRisk.figures();
  }

  // ---- operator control (bookmaker ctl; src/control) ----

  /** Pull one market's quotes (or every market's: the global halt) until `resume`. */
  pause(marketId: Bytes32 | null): boolean {
    if (marketId === null) this.haltedByOperator = true;
    else {
      if (!this.markets.has(marketId)) return false;
      this.pausedMarkets.add(marketId);
    }
    for (const s of this.markets.values()) if (marketId === null || s.cfg.marketId === marketId) this.kick(s);
    return true;
  }

  /** Lift a market's pause, or (null) the global halt and every pause. */
  resume(marketId: Bytes32 | null): boolean {
    if (marketId === null) {
      this.haltedByOperator = false;
      this.pausedMarkets.clear();
    } else {
      if (!this.markets.has(marketId)) return false;
      this.pausedMarkets.delete(marketId);
    }
    for (const s of this.markets.values()) if (marketId === null || s.cfg.marketId === marketId) this.kick(s);
    return true;
  }

  /**
   * A hold the bot places on itself (the ledger cannot be written): every quote is pulled,
   * as by the operator's halt, until `unhold(key)`. Kept apart from the operator's halt: `ctl resume`
   * does not lift it, and lifting it does not lift a halt.
   */
  hold(key: string, reason: string): void {
    const had = this.holds.size > 0;
    this.holds.set(key, reason);
    if (!had) for (const s of this.markets.values()) this.kick(s);
  }

  unhold(key: string): void {
    if (!this.holds.delete(key) || this.holds.size > 0) return;
    for (const s of this.markets.values()) this.kick(s);
  }

  /** The holds in force (key → reason). */
  get held(): ReadonlyMap<string, string> {
    return this.holds;
  }

  isPaused(marketId: Bytes32): boolean {
    return this.haltedByOperator || this.pausedMarkets.has(marketId);
  }
  get halted(): boolean {
    return this.haltedByOperator;
  }
  pausedList(): string[] {
    return [...this.pausedMarkets];
  }

  /**
   * A reload: markets in `next` already quoted take the new strategy, params and limits from their
   * next tick (the risk state — peak PnL, rate budget — carries on, and quotes that still pass are
   * kept by the order manager's diff, not pulled); new ones start; ones missing retire: their quotes
   * are pulled and the market leaves once the order manager holds nothing of it.
   */
  updateMarkets(next: readonly KernelMarket[]): MarketsUpdate {
    const added: Bytes32[] = [];
    const removed: Bytes32[] = [];
    const changed: Bytes32[] = [];
    const keep = new Set(next.map((m) => m.marketId));
    for (const m of next) {
      const slot = this.markets.get(m.marketId);
      if (!slot) {
        this.addSlot(m);
        added.push(m.marketId);
        continue;
      }
      const was = slot.retiring;
      slot.retiring = false;
      if (
        was ||
        slot.cfg.strategy !== m.strategy ||
        JSON.stringify(slot.cfg.params) !== JSON.stringify(m.params) ||
        JSON.stringify(slot.cfg.risk) !== JSON.stringify(m.risk)
      )
        changed.push(m.marketId);
      (slot as { cfg: KernelMarket }).cfg = m;
    }
    for (const [k, slot] of this.markets) {
      if (keep.has(k) || slot.retiring) continue;
      slot.retiring = true;
      this.pausedMarkets.delete(k);
      removed.push(slot.cfg.marketId);
    }
    for (const s of this.markets.values()) this.kick(s);
    return { added, removed, changed };
  }

  /**
   * Market rotation (src/runtime/rotation): one market starts. Its slot is added and ticked at once;
   * a market already here keeps its slot (false). A retiring one is not revived here: rotation waits
   * for its release before starting it again.
   */
  addMarket(m: KernelMarket): boolean {
    if (this.markets.has(m.marketId)) return false;
    this.addSlot(m);
    if (this.opts.heldPause?.(m.marketId)) this.pausedMarkets.add(m.marketId);
    const slot = this.markets.get(m.marketId)!;
    this.kick(slot);
    return true;
  }

  /** A market's strategy, parameters or limits changed (reload): they apply from its next tick. */
  updateMarket(m: KernelMarket): boolean {
    const slot = this.markets.get(m.marketId);
    if (!slot || slot.retiring) return false;
    (slot as { cfg: KernelMarket }).cfg = m;
    this.kick(slot);
    return true;
  }

  /**
   * Market rotation retires a market: its quotes are pulled now (the tick sends an empty set) and it
   * quotes nothing from here on. The slot stays until removeMarket. False when the market is not
   * here or already retiring.
   */
  retireMarket(marketId: Bytes32): boolean {
    const k = marketId;
    const slot = this.markets.get(k);
    if (!slot || slot.retiring) return false;
    slot.retiring = true;
    this.pausedMarkets.delete(k);
    this.kick(slot);
    // a stopped kernel (kill switch, halt) does not tick: the empty set still goes out
    if (this.stopped) this.send(slot, []);
    return true;
  }

  /** Is this market quoted here (a slot, retiring or not)? */
  hasMarket(marketId: Bytes32): boolean {
    return this.markets.has(marketId);
  }

  /** Drop a retired market's slot and everything kept for it (timers, pause, failure log). */
  removeMarket(marketId: Bytes32): void {
    const k = marketId;
    const slot = this.markets.get(k);
    slot?.cancelTimer?.();
    this.markets.delete(k);
    this.slotList = null;
    this.pausedMarkets.delete(k);
    this.failing.delete(k);
    this.faults.forget(k);
    this.recoveries.forget(k);
    if (slot !== undefined && slot.lastSync !== null) {
      slot.lastSync = null;
      this.lastSyncsHeld--;
    }
  }

  /** Per-market entries held now (tests: nothing left behind after a retirement). */
  get heldMarketState(): number {
    return this.markets.size + this.pausedMarkets.size + this.failing.size + this.lastSyncsHeld + this.faults.size + this.recoveries.size;
  }

  /** Markets retiring after a reload that still have orders (or in-flight work) at the venue. */
  retiring(): Bytes32[] {
    return [...this.markets.values()].filter((s) => s.retiring).map((s) => s.cfg.marketId);
  }

  /** Tick a market now, outside the throttle (operator actions, reloads). */
  private kick(slot: MarketSlot): void {
    if (this.stopped) return;
    slot.resting = false;
    if (slot.cancelTimer) {
      slot.cancelTimer();
      slot.cancelTimer = null;
    }
    this.runTick(slot, 'manual');
  }
  get isStopped(): boolean {
    return this.stopped;
  }
  marketIds(): Bytes32[] {
    return [...this.markets.values()].map((m) => m.cfg.marketId);
  }
  lastTick(marketId: Bytes32): KernelTick | null {
    return this.markets.get(marketId)?.last ?? null;
  }

  /**
   * The order manager's events go into the store first (state before notification); use this as
   * the `emit` of an order manager built outside the kernel.
   */
  onOrderManagerEvent(e: OrderManagerEvent): void {
    if (this.someRested) this.wake(orderEventMarket(e));
    this.store.dispatch(e);
    this.opts.onOrderEvent?.(e);
  }

  /**
   * Several of the order manager's events at once (one step of a venue call: OrderManager's
   * `emitAll`): reduced together, then each told in order. Listeners read the events, not the
   * store, so they are told the same events in the same order, after the store has them all.
   * A listener that throws is logged and the next event is still told.
   */
  onOrderManagerEvents(es: readonly OrderManagerEvent[]): void {
    // a call's events are one market's: woken once per run of the same market, not per event; and
    // only once some market has rested (wake does nothing before: most runs never look at the events)
    if (this.someRested) {
      let woken: Bytes32 | null = null;
      for (let i = 0; i < es.length; i++) {
        const id = orderEventMarket(es[i]!);
        if (id === null || id === woken) continue;
        woken = id;
        this.wake(woken);
      }
    }
    this.store.dispatchAll(es);
    const tell = this.opts.onOrderEvent;
    if (tell === undefined) return;
    for (let i = 0; i < es.length; i++) {
      try {
        tell(es[i]!);
      } catch (err) {
        this.log.error({ err: (err as Error).message, event: es[i]!.type }, 'order event listener threw');
      }
    }
  }

  onEvent(e: StateEvent): void {
    this.wake(eventMarket(e));
    this.noteNetMove(e);
    const fresh = this.isFreshFill(e);
    let tick = triggersTick(e) && !this.isKeepalive(e) && !this.isSameHoldings(e);
    this.store.dispatch(e);
    this.toBooks(e);
    if (fresh) this.applyFill(e);
    if (e.type === 'OrderClosed') this.closeOrder(e);
    // a read that lets parked orders go changes the exposure: the market ticks then
    if (e.type === 'PositionSynced' && this.readSettles(e) && this.orderManager.positionsRead(e.marketId, e.readStartedAt ?? e.ts)) tick = true;
    if (tick) this.markDirty(eventMarket(e));
  }

  /**
   * A balance read that finds the holdings the store already has (every quoted market is synced on
   * every balance poll, held or not): nothing a tick reads has changed, unless the read lets parked
   * orders go (onEvent ticks then). Checked before the store applies the event.
   */
  private isSameHoldings(e: StateEvent): boolean {
    if (e.type !== 'PositionSynced') return false;
    const p = this.store.state.markets.get(e.marketId)?.position;
    return p !== undefined && p.yes === e.yes && p.no === e.no;
  }

  /**
   * A stream status that repeats the market's stream state (the stream's keep-alive of a quiet
   * market, every few seconds per market) while the market quotes: it only refreshes the stream's
   * last-event time, which lets the stale-book and stream-silence guards pass, and they already
   * pass. A market whose last tick did not quote (pulled by a guard, say) is ticked as before, so a
   * keep-alive can lift a pull. Thousands of quiet markets otherwise tick on every keep-alive for
   * nothing. Checked before the store applies the event.
   */
  private isKeepalive(e: StateEvent): boolean {
    if (e.type !== 'BookEventReceived' || e.event.type !== 'status') return false;
    const id = e.event.marketId;
    if (this.store.state.markets.get(id)?.streamState !== e.event.state) return false;
    return this.markets.get(id)?.last?.action === 'quote';
  }

  /** Reduce a batch together (one store notification), then schedule the markets it touched. */
  onEvents(es: readonly StateEvent[]): void {
    if (es.length === 0) return;
    for (const e of es) {
      this.wake(eventMarket(e));
      this.noteNetMove(e);
    }
    const fills = es.filter((e) => this.isFreshFill(e));
    // a keep-alive judged against the state before the batch (a status change earlier in the batch
    // makes its market tick anyway)
    const skip = es.map((e) => this.isKeepalive(e) || this.isSameHoldings(e));
    this.store.dispatchAll(es);
    for (const e of es) this.toBooks(e);
    for (const f of fills) this.applyFill(f);
    // after the fills: a closed order's fills are in the position before it stops counting
    for (const e of es) if (e.type === 'OrderClosed') this.closeOrder(e);
    const touched = new Set<Bytes32 | null>();
    // after the syncs are in the store: parked orders those reads cover stop counting
    for (const e of es)
      if (e.type === 'PositionSynced' && this.readSettles(e) && this.orderManager.positionsRead(e.marketId, e.readStartedAt ?? e.ts)) touched.add(e.marketId);
    for (let i = 0; i < es.length; i++) if (triggersTick(es[i]!) && !skip[i]) touched.add(eventMarket(es[i]!));
    for (const m of touched) this.markDirty(m);
  }

  /**
   * A positions read lets parked orders go (their fills are surely in the position) only when the
   * books hold what it read: the risk layer's position is the books' (fills), never the read, so a
   * read ahead of a fill must not stop an order from counting before its fill is in the books.
   * Called after the books reconciled the read.
   */
  private readSettles(e: Extract<StateEvent, { type: 'PositionSynced' }>): boolean {
    return this.account.agrees(e.marketId);
  }

  /** The account's share of an event (src/account/account-fill.ts); a drift is logged when it begins. */
  private toBooks(e: StateEvent): void {
    const d = applyToBooks(this.account, e);
    if (d.length === 0 || e.type !== 'PositionSynced') return;
    if (d[0]!.since === e.ts) {
      // info: a read ahead of its fill is normal and settles when the fill lands; past the grace the
      // health model says books-drift (error)
      for (const x of d)
        this.log.info(
          { marketId: x.marketId, outcome: x.outcomeIndex === 1 ? 'yes' : 'no', books: x.books, venue: x.venue },
          'balance read differs from the books',
        );
    }
    this.opts.onDrift?.(e.marketId, d);
  }

  /**
   * The venue closed an order and its fills are in (the feed reports them first). A parked order is
   * settled; one the order manager already let go of (its quote used up by the venue's figure) but
   * the store still counts — a fill rounding short of its size, say — stops counting too, so no
   * phantom exposure is left eating the limits.
   */
  private closeOrder(e: Extract<StateEvent, { type: 'OrderClosed' }>): void {
    const fatal = e.status === 'voided' && e.voidReason ? fatalVoid(e.voidReason, e.nonce) : null;
    if (fatal) {
      // every order would be voided the same way: quoting on would only churn; halt with the fix (exit 4)
      const refused = new VenueRefusedError(fatal);
      void this.orderManager.halt(new InvariantError(`venue voids every order: ${refused.message}`, { cause: refused }));
    }
    this.orderManager.settle(e.nonce);
    if (this.orderManager.knows(e.nonce)) return;
    if (!this.store.state.markets.get(e.marketId)?.orders.has(e.nonce)) return;
    this.store.dispatch({ type: 'OrderGone', marketId: e.marketId, nonce: e.nonce, ts: e.ts });
  }

  /**
   * A position sync that moves the net (fills the feed has not reported, or never will): desired
   * sets checked against the old net are stale (see OrderManager.sync). Called before the store
   * applies the sync, to compare with the net it replaces.
   */
  private noteNetMove(e: StateEvent): void {
    if (e.type !== 'PositionSynced') return;
    // a market the store has not seen yet is flat
    if ((this.store.state.markets.get(e.marketId)?.position.net ?? 0) === e.yes - e.no) return;
    this.orderManager.exposureChanged(e.marketId);
  }

  /**
   * A fill the store has not seen yet (by fill id): the order manager must shrink that order too,
   * or its diff would keep treating a filled quote as resting until the next reconcile.
   */
  private isFreshFill(e: StateEvent): e is Extract<StateEvent, { type: 'OrderFilled' }> {
    if (e.type !== 'OrderFilled' || !e.nonce) return false;
    if (e.fillId === undefined) return true;
    const m = this.store.state.markets.get(e.marketId);
    return !m || !m.fillIds.has(e.fillId);
  }

  private applyFill(e: StateEvent): void {
    if (e.type === 'OrderFilled' && e.nonce) this.orderManager.applyFill(e.nonce, e.size);
  }

  /** The desired orders of every market as of now, without sending anything (start-up reconcile). */
  desired(): DesiredOrder[] {
    const out: DesiredOrder[] = [];
    if (this.killReason !== null || this.haltedByOperator || this.holds.size > 0) return out;
    for (const slot of this.markets.values()) {
      if (slot.retiring || this.pausedMarkets.has(slot.cfg.marketId)) continue;
      const view = selectMarketView(this.store.state, slot.cfg.marketId, this.clock.now(), undefined, this.account);
      if (!view) continue;
      // the risk state is not advanced: this is a dry run
      const t = runStrategy(view, slot.cfg.strategy, slot.cfg.params, slot.cfg.risk, slot.risk);
      if (t.action === 'quote') out.push(...this.toDesired(view, t, slot));
    }
    return out;
  }

  /** Run one tick of a market now (ignores the throttle). */
  tick(marketId: Bytes32): void {
    const slot = this.markets.get(marketId);
    if (!slot || this.stopped) return;
    if (slot.cancelTimer) {
      slot.cancelTimer();
      slot.cancelTimer = null;
    }
    this.runTick(slot, 'manual');
  }

  /** The latest sync asked for in a market (settles once its venue calls are done), or null. */
  lastSync(marketId: Bytes32): Promise<void> | null {
    // no sync pending anywhere (most ticks): no lookup by the market's id
    return this.lastSyncsHeld === 0 ? null : (this.markets.get(marketId)?.lastSync ?? null);
  }

  /** Wait until every sync asked for so far has been carried out. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled(this.pending.snapshot());
  }

  /** Begin ticking (a kernel built with deferStart); a latched kernel stays stopped until clearKill. */
  start(): void {
    if (!this.waiting) return;
    this.waiting = false;
    if (this.killReason !== null) return;
    this.stopped = false;
    this.scheduleHousekeeping();
  }

  /** Stop ticking: clear every timer. The order manager is left as it is. */
  stop(): void {
    this.waiting = false;
    this.stopped = true;
    this.cancelHousekeeping?.();
    this.cancelHousekeeping = null;
    for (const s of this.markets.values()) {
      s.cancelTimer?.();
      s.cancelTimer = null;
    }
  }

  /** Stop ticking, let in-flight syncs finish, then cancel every order of the trader at the venue. */
  async shutdown(): Promise<CancelAllResult> {
    this.stop();
    await this.flush();
    return this.orderManager.cancelAll();
  }

  private markDirty(marketId: Bytes32 | null): void {
    if (this.stopped || marketId === null) return;
    const slot = this.markets.get(marketId);
    if (!slot || slot.cancelTimer) return; // not ours, or a trailing tick is already due
    const wait = slot.lastTickAt + this.opts.requoteIntervalMs - this.clock.now();
    if (wait <= 0) {
      this.runTick(slot, 'event');
      return;
    }
    slot.cancelTimer = this.clock.setTimeout(slot.trailing, wait);
  }

  /**
   * The housekeeping round, every `every` ms. A market ticked within the last `every` ms (an event ran
   * it) is not due: the round exists for markets that hear nothing, so a market is still ticked at
   * least every 2 × `every`, and one whose book moves every second costs one tick a second, not two.
   * A round of more than HOUSEKEEPING_SLICE markets is cut into slices, each in a turn of its own on
   * the clock, so a round over thousands of markets does not hold the event loop (and the book
   * events waiting behind it) for the whole round.
   */
  private scheduleHousekeeping(): void {
    const every = this.opts.housekeepingMs ?? Math.max(1000, this.opts.requoteIntervalMs);
    if (every <= 0) return;
    const still = this.opts.stillTickMs;
    const skipCounts = this.opts.stillSkipCountsAsTick === true;
    let round: MarketSlot[] = [];
    let at = 0;
    const slice = (): void => {
      if (this.stopped) return;
      this.housekeepingSlices++;
      const now = this.clock.now();
      const end = Math.min(round.length, at + HOUSEKEEPING_SLICE);
      for (; at < end; at++) {
        const slot = round[at]!;
        // removed since the round began, resting, a trailing tick due, or ticked lately: not due
        if (slot.resting || slot.cancelTimer || now - slot.lastTickAt < every || this.markets.get(slot.cfg.marketId) !== slot) continue;
        if (this.restsWithoutEvents(slot)) slot.resting = this.someRested = true;
        else if (still === undefined || now - slot.lastRunAt >= still || !this.isStill(slot, now)) this.runTick(slot, 'housekeeping');
        // skipped as still (see stillSkipCountsAsTick): the throttle may count it as a tick that ran
        else if (skipCounts) slot.lastTickAt = now;
      }
      if (this.stopped) return;
      if (at < round.length) this.cancelHousekeeping = this.clock.setTimeout(slice, 0);
      else this.cancelHousekeeping = this.clock.setTimeout(start, every);
    };
    const start = (): void => {
      // the slots as a list, made again only after a market was added or removed (a round only reads it)
      round = this.slotList ??= [...this.markets.values()];
      at = 0;
      slice();
    };
    this.cancelHousekeeping = this.clock.setTimeout(start, every);
  }

  /** Anything that happens to a market ends its rest (see restsWithoutEvents). */
  private wake(marketId: Bytes32 | null): void {
    // no market has rested yet (a run whose markets all quote): nothing to wake, no lookup per event
    if (marketId === null || !this.someRested) return;
    const slot = this.markets.get(marketId);
    if (slot) slot.resting = false;
  }

  /**
   * A market whose last tick pulled everything for a reason that time alone cannot lift (its book is
   * stale or it never had one, its stream is silent, its deadline passed, it is not active, trading is
   * halted) and whose order manager has nothing pending would tick to the same empty result: the
   * housekeeping round skips it until an event marks it dirty. This keeps a backtest over hundreds
   * of short-lived markets (the Kalshi tape) from ticking every one of them every virtual second.
   */
  private restsWithoutEvents(slot: MarketSlot): boolean {
    const last = slot.last;
    if (!last || last.desired.length > 0) return false;
    if (last.action !== 'no-view' && !(last.action === 'pull' && last.reason !== undefined && TIME_MONOTONE_PULLS.has(last.reason))) return false;
    return this.orderManager.isIdle(slot.cfg.marketId);
  }

  /**
   * A market at rest that a housekeeping tick would leave as it is (see stillTickMs): its last tick
   * quoted what the strategy wanted, nothing denied, slow or failing; the order manager has nothing
   * pending for it, and holds one working order per order wanted, none due a refresh; and no guard that time alone trips (the
   * deadline, a stale book, a silent stream) trips now. Events tick such a market as before; the
   * round still ticks it every `stillTickMs`, for what else moves with time (the regime's clocks,
   * the oracle's age, the account's limits).
   */
  private isStill(slot: MarketSlot, now: number): boolean {
    const last = slot.last;
    if (last === null || last.action !== 'quote' || last.denied > 0 || last.slow || last.strategyError !== null || last.desired.length === 0) return false;
    const marketId = slot.cfg.marketId;
    const om = this.orderManager;
    if (slot.lastSync !== null || om.hasPendingWork(marketId)) return false;
    const m = this.store.state.markets.get(marketId);
    if (m === undefined || timeGuardTrips(m.bookUpdatedAt, m.streamLastEventAt, m.deadline, now, slot.cfg.risk)) return false;
    // every order wanted rests (none in flight, cooling down after a refusal, or parked), none due a refresh
    // the orders as held, not copies (this runs at every housekeeping round of every quoting market)
    const held = om.trackedNow(marketId);
    if (held.length !== last.desired.length) return false;
    const nowSec = Math.floor(now / 1000);
    for (const t of held) if (t.state !== 'working' || refreshDue(t, om.tolerances, nowSec)) return false;
    return true;
  }

  /** The account's kill switch, on the account's PnL: true when it fired. */
  private accountKill(slot: MarketSlot, view: MarketView, now: number): boolean {
    const marketId = slot.cfg.marketId;
    const killed = this.accountRisk.check(Number(this.account.pnl()), now, view.venue);
    if (killed === null) return false;
    const denial: QuoteDenied = { type: 'QuoteDenied', marketId, reason: killed.reason, detail: killed.detail, quote: null, ts: now };
    this.store.dispatchAll([denial]);
    slot.last = { at: now, action: 'pull', desired: [], denied: 1, strategyError: null, reason: killed.reason, deniedBy: [denial] };
    this.kill(killed.reason, killed.detail, marketId);
    return true;
  }

  private runTick(slot: MarketSlot, cause: TickCause): void {
    if (this.stopped) return;
    const now = this.clock.now();
    slot.lastTickAt = now;
    slot.lastRunAt = now;
    const marketId = slot.cfg.marketId;
    // paused and retiring markets too: their holdings stay in the account at a current mark
    this.markBooks(marketId, now);
    if (slot.retiring) {
      // retiring on purpose: the health model reads it as market-paused (or market-resolved), not as
      // failing to quote. The slot stays until removeMarket: market rotation removes it once the venue
      // confirmed no order is left (src/runtime/rotation), not when the order manager goes idle.
      slot.last = { at: now, action: 'pull', desired: [], denied: 0, strategyError: null, reason: 'MARKET_NOT_ACTIVE' };
      if (!this.orderManager.isIdle(marketId)) this.send(slot, []);
      return;
    }
    if (this.haltedByOperator || this.holds.size > 0 || (this.pausedMarkets.size > 0 && this.pausedMarkets.has(marketId))) {
      slot.last = { at: now, action: 'pull', desired: [], denied: 0, strategyError: null, reason: 'PAUSED' };
      this.send(slot, []);
      // held by the bot itself (the ledger cannot be written): nothing is quoted, but the account's
      // kill switch still watches the PnL and the error rate, tick by tick, as when quoting
      if (this.holds.size > 0) {
        const v = selectMarketView(this.store.state, marketId, now, undefined, this.account);
        if (v && this.accountKill(slot, v, now)) return;
      }
      this.opts.onTick?.(marketId, slot.last, null);
      return;
    }
    this.opts.onTickStart?.(marketId, cause);
    const view = selectMarketView(this.store.state, marketId, now, undefined, this.account);
    if (!view) {
      slot.last = { at: now, action: 'no-view', desired: [], denied: 0, strategyError: null };
      this.opts.onTick?.(marketId, slot.last, null);
      return;
    }
    // the account's kill switch, on the account's PnL, before the strategy
    if (this.accountKill(slot, view, now)) return;
    let t: StrategyTick;
    const timer = this.opts.timer;
    const t0 = timer ? timer() : 0;
    try {
      t = runStrategy(view, slot.cfg.strategy, slot.cfg.params, slot.cfg.risk, slot.risk);
    } catch (err) {
      // runStrategy guards the strategy; anything escaping is our bug: pull this market's quotes
      this.log.error({ marketId, err: (err as Error).message }, 'tick failed; pulling quotes');
      this.send(slot, []);
      return;
    }
    const ms = timer ? timer() - t0 : 0;
    const slow = ms > (this.opts.strategyBudgetMs ?? 50);
    if (slow) this.opts.onStrategyFault?.(marketId, 'slow', ms);
    slot.risk = t.state;
    if (t.denied.length > 0) this.store.dispatchAll(t.denied);
    if (t.strategyError) this.strategyFailed(marketId, t.strategyError, now);
    else if (this.failing.size > 0 && this.failing.has(marketId)) this.strategyRecovered(marketId, now);
    const desired = t.action === 'quote' ? this.toDesired(view, t, slot) : [];
    const reason = t.action === 'pull' && !t.strategyError ? pullReason(t) : undefined;
    const deniedAll = reason === undefined && desired.length === 0 && t.denied.length > 0 ? t.denied[0]!.reason : undefined;
    const returned = t.strategyError ? undefined : t.wanted === null ? null : t.wanted.length;
    slot.last =
      reason !== undefined
        ? { at: now, action: t.action, desired, denied: t.denied.length, strategyError: null, reason, slow, returned, deniedBy: t.denied }
        : deniedAll !== undefined
          ? { at: now, action: t.action, desired, denied: t.denied.length, strategyError: t.strategyError, deniedAll, slow, returned, deniedBy: t.denied }
          : { at: now, action: t.action, desired, denied: t.denied.length, strategyError: t.strategyError, slow, returned, deniedBy: t.denied };
    this.send(slot, desired);
    this.opts.onTick?.(marketId, slot.last, view);
  }

  /**
   * Mark these markets' books now, as a tick does: the stop's final sweep hands the store fills no tick
   * follows (src/runtime/phases/control.ts), and a market whose first fill that is has no mark in the
   * books until one (its unrealised PnL would read 0 beside the store's at its mid).
   */
  markBooksOf(marketIds: Iterable<Bytes32>): void {
    const now = this.clock.now();
    for (const id of marketIds) this.markBooks(id, now);
  }

  /** The market's mark in the books: its payout once resolved, else its last mid (O(1) when unchanged). */
  private markBooks(marketId: Bytes32, now: number): void {
    const m = this.store.state.markets.get(marketId);
    if (m === undefined) return;
    this.account.mark(marketId, m.payoutYes !== null ? m.payoutYes * 2 : m.lastMid2, now);
  }

  /**
   * A strategy that throws on every tick must not write a line per tick: its first error goes out
   * with the stack, then one summary per interval while it keeps failing (its quotes are pulled by
   * the tick either way).
   */
  private strategyFailed(marketId: Bytes32, err: Error, now: number): void {
    this.opts.onStrategyFault?.(marketId, 'error', err);
    const key = marketId;
    this.failing.add(key);
    if (this.faults.hit(key, now, err.message) === 'first') {
      this.log.error({ marketId, err: err.message, stack: err.stack }, 'strategy failed; quotes pulled (further failures of this market are summarised)');
    }
    this.faults.due(now, (k, sum) => {
      this.log.error({ marketId: k, failures: sum.count, seconds: Math.round(sum.windowMs / 1000), last: sum.last }, 'strategy still failing; quotes pulled');
    });
  }

  /**
   * A recovery is told once per interval with the failures not yet told; the failures' storm only
   * pauses, so a strategy that flaps (fails, recovers, fails again) writes a few lines an interval,
   * not a stack and a recovery per flip. Its later recoveries are summarised like its failures.
   */
  private strategyRecovered(marketId: Bytes32, now: number): void {
    const key = marketId;
    this.failing.delete(key);
    if (this.recoveries.hit(key, now) === 'first') {
      let more = 0;
      this.faults.pause(key, now, (_k, sum) => (more = sum.count));
      this.log.warn({ marketId, unreportedFailures: more }, 'strategy recovered; quoting again');
    }
    this.recoveries.due(now, (k, sum) => {
      this.log.warn({ marketId: k, recoveries: sum.count, seconds: Math.round(sum.windowMs / 1000) }, 'strategy flapping: recovered and failed again');
    });
  }

  private toDesired(view: MarketView, t: StrategyTick, slot: MarketSlot): DesiredOrder[] {
    // Inventory still promised to sells on their way out (cancel sent, or parked until a poll) cannot
    // be sold again, nor can that of live sells this set moves (their cancel parks them too); the
    // sells that stay are in slots the new set covers and keep their tokens (orders/sell-reserve.ts).
    const leaving = cancelling(view.quotes);
    const om = this.orderManager;
    // literals with every key (undefined when absent), not conditional spreads: one object shape per tick.
    // A fresh literal, not one object written in place tick after tick: that object would live in the
    // old generation, and every store of this tick's (young) quotes into it pays V8's write barrier;
    // measured slower than the literal (docs/performance/backtest.md, "Tried and not kept").
    return desiredWithReservedSells({
      marketId: view.marketId,
      quotes: t.quotes,
      keeps: t.keeps,
      position: view.position,
      leaving,
      tracked: om.parksEndedOrders ? om.tracked(view.marketId) : [],
      tolerances: om.tolerances,
      nowSec: Math.floor(this.clock.now() / 1000),
      toOrders: toOrdersOf(slot, view.tick, this.opts.noInventory),
      cancelledSellsPark: om.parksEndedOrders,
      slotNames: slot.slotNames,
      memo: slot.desiredMemo,
    });
  }

  private send(slot: MarketSlot, desired: readonly DesiredOrder[]): void {
    const marketId = slot.cfg.marketId;
    // the exposure the view behind `desired` held: a later change makes the set stale (see OrderManager.sync)
    const synced = this.orderManager.sync(marketId, desired, this.orderManager.exposureVersion(marketId));
    if (synced === SYNCED) {
      // settled at once (nothing to send): no sync of the market is pending
      if (slot.lastSync !== null) {
        slot.lastSync = null;
        this.lastSyncsHeld--;
      }
      return;
    }
    this.syncsStarted++;
    // one then() for the sync's end, failed or not: `p` never rejects, and it is no longer pending
    // once its own handler has run (a then() after a catch() was a promise and a microtask more per
    // sync sent; flush() awaits the promises it took, so it still waits for this one)
    const p: Promise<void> = synced.then(
      () => this.syncEnded(slot, p),
      (err: unknown) => {
        this.log.error({ marketId, err: (err as Error).message }, 'order sync failed');
        this.syncEnded(slot, p);
      },
    );
    this.pending.add(p);
    if (slot.lastSync === null) this.lastSyncsHeld++;
    slot.lastSync = p;
  }

  /** A sync `send` started has ended: not pending, and no longer the market's last unless a newer one is. */
  private syncEnded(slot: MarketSlot, p: Promise<void>): void {
    this.pending.delete(p);
    if (slot.lastSync === p) {
      slot.lastSync = null;
      this.lastSyncsHeld--;
    }
  }

  private kill(reason: RiskReason, detail: string, marketId: Bytes32): void {
    if (this.killReason) return;
    this.killReason = reason;
    try {
      this.opts.onKillLatched?.(reason, detail, marketId);
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'recording the kill-switch latch failed');
    }
    this.log.fatal({ reason, detail }, 'kill switch fired: cancelling every order and stopping');
    this.stop();
    void this.flush()
      .then(() => this.orderManager.cancelAll())
      .then((result) => this.opts.onKill?.(reason, detail, result));
  }
}
