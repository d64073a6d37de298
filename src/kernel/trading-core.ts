/**
 * The trading core, assembled in one place (docs/architecture.md#one-assembly): the state store, the
 * account's books, the order manager, the quoting kernel and the routes their events take. The live
 * bot, paper trading, the backtest and the chaos harness (which runs the live bot) all build it here,
 * so they cannot drift apart; what differs between them is injected: the clock, the venue and the
 * nonce source, and the listeners each adds to the two buses.
 *
 *   const core = createTradingCore({ config, clock, venue, nonces, markets, logger, ... });
 *   core.inbound.on('record', ledger.onEvent)   // the venue's events: before the state has them
 *   core.inbound.on('react', claims.onEvent)    //                      after the state has them
 *   core.orderEvents.on('react', health.onOrder) // the order manager's own events, after the state
 *   core.receive(e) / core.receiveAll(es)       // an event the venue reported, through the bus
 *   core.kernel.start()                         // with deferStart: ticking begins (after the reconcile)
 *
 * The order manager's events reach the store through the kernel's entry for them
 * (`onOrderManagerEvent`, and `onOrderManagerEvents` for a call's events together), live and backtest alike.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import type { Bytes32 } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';
import type { NonceSource } from '../orders/nonces.ts';
import type { FeeSpec } from '../engine/fill-fee.ts';
import { OrderManager, type CancelAllResult, type OrderManagerOptions } from '../orders/order-manager.ts';
import type { OrderRecord } from '../orders/reconciler.ts';
import type { OrderManagerEvent, StateEvent } from '../state/events.ts';
import { DEFAULT_EDGE } from '../state/edge-settings.ts';
import { DEFAULT_LIMITS, type ReduceLimits } from '../state/reduce.ts';
import type { StoreState } from '../state/market-state.ts';
import { StateStore } from '../state/store.ts';
import type { Account } from '../account/account.ts';
import { EventBus } from './event-bus.ts';
import { QuotingKernel, type KernelMarket, type QuotingKernelOptions } from './quoting-kernel.ts';

/** An options object with every key present (an absent one written as undefined): one map for every such object. */
type AllKeys<T> = { [K in keyof Required<T>]: T[K] };

/** No kernel hooks (a core built without `kernel`). */
const NO_HOOKS: KernelHooks = {};

/** What the core reads of the config (a backtest's config may lack the account section). */
export type CoreConfig = Pick<BotConfig, 'orders' | 'feeds' | 'edge'> & { readonly account?: BotConfig['account']; readonly health?: BotConfig['health'] };

/** The kernel's hooks and carried-over state a caller may add (the rest is the core's to set). */
export type KernelHooks = Omit<
  QuotingKernelOptions,
  | 'clock'
  | 'venue'
  | 'store'
  | 'markets'
  | 'requoteIntervalMs'
  | 'noInventory'
  | 'orderManager'
  | 'account'
  | 'accountLimits'
  | 'logger'
  | 'tolerances'
  | 'deadManSeconds'
  | 'inFlightTimeoutMs'
  | 'onOrderEvent'
  | 'onHalt'
>;

export interface TradingCoreOptions {
  readonly config: CoreConfig;
  readonly clock: Clock;
  readonly venue: VenuePort;
  readonly nonces: NonceSource;
  readonly markets: readonly KernelMarket[];
  readonly logger: Logger;
  /** the store's state to start from (the ledger's positions and PnL); empty when omitted */
  readonly initialState?: StoreState;
  /** the account's books (rebuilt from the ledger); a fresh one when omitted */
  readonly account?: Account;
  /** how long an order whose end was answered keeps counting until a poll sees it closed, ms (see OrderManager) */
  readonly settleMs?: number;
  /** the markets whose orders are this instance's (reconcileScope markets); omitted: the whole wallet */
  readonly ownMarkets?: readonly Bytes32[];
  /** what the ledger knows of an open order this run does not track (for the reconcile warning) */
  readonly orderRecord?: (nonce: Bytes32) => OrderRecord;
  /** the fee model found V2 buys are read with (see OrderManager); omitted: no fees */
  readonly fees?: FeeSpec;
  /** a broken invariant halted the order manager after it cancelled everything */
  readonly onHalt?: (err: Error, result: CancelAllResult) => void;
  readonly kernel?: KernelHooks;
}

export interface TradingCore {
  readonly store: StateStore;
  readonly account: Account;
  readonly orderManager: OrderManager;
  readonly kernel: QuotingKernel;
  /** events the venue reported (feeds, fill reports), around the kernel's state step */
  readonly inbound: EventBus<StateEvent>;
  /** the order manager's events, told once the store has them */
  readonly orderEvents: EventBus<OrderManagerEvent>;
  /** one event the venue reported: record listeners, the kernel, react listeners */
  receive(e: StateEvent): void;
  /** a batch reduced together (one store notification, one tick per market touched) */
  receiveAll(es: readonly StateEvent[]): void;
}

export function createTradingCore(o: TradingCoreOptions): TradingCore {
  const cfg = o.config;
  const store = new StateStore(storeLimits(cfg), o.initialState);
  const inbound = new EventBus<StateEvent>();
  const orderEvents = new EventBus<OrderManagerEvent>();
  const deadMan = deadManSeconds(cfg.orders.deadManExpiryMs);
  // Both option objects with every key written out (undefined when absent), no spreads: an object
  // built with spreads got a map of its own in every new core (see storeLimits), so a process that
  // builds one core after another (a backtest per run of a bench, a sweep's worker) deoptimised the
  // kernel's and the order manager's code on every new core's options, until their reads went
  // megamorphic. Each reader treats an undefined key as an absent one.
  const managerOptions: AllKeys<OrderManagerOptions> = {
    venue: o.venue,
    clock: o.clock,
    tolerances: { price: cfg.orders.priceTolerance, sizeFraction: cfg.orders.sizeTolerance },
    nonces: o.nonces,
    logger: o.logger,
    emit: (e) => kernel.onOrderManagerEvent(e),
    emitAll: (es) => kernel.onOrderManagerEvents(es),
    inFlightTimeoutMs: cfg.orders.inFlightTimeoutMs,
    deadManSeconds: deadMan > 0 ? deadMan : undefined,
    maxRetries: undefined,
    backoffBaseMs: undefined,
    backoffMaxMs: undefined,
    rejectCooldownMs: undefined,
    settleMs: o.settleMs,
    ownMarkets: o.ownMarkets,
    orderRecord: o.orderRecord,
    fees: o.fees,
    cancelAllRounds: undefined,
    cancelAllDelayMs: undefined,
    reconcileMinIntervalMs: undefined,
    onHalt: o.onHalt,
  };
  const orderManager: OrderManager = new OrderManager(managerOptions);
  const h = o.kernel ?? NO_HOOKS;
  // every key of the options (the type says so), a hook a caller gives included
  const kernelOptions: AllKeys<QuotingKernelOptions> = {
    clock: o.clock,
    venue: o.venue,
    store,
    markets: o.markets,
    requoteIntervalMs: cfg.orders.requoteIntervalMs,
    housekeepingMs: h.housekeepingMs,
    stillTickMs: h.stillTickMs,
    stillSkipCountsAsTick: h.stillSkipCountsAsTick,
    noInventory: cfg.orders.noInventory,
    orderManager,
    tolerances: undefined,
    deadManSeconds: undefined,
    inFlightTimeoutMs: undefined,
    onOrderEvent: (e) => orderEvents.told(e),
    onTickStart: h.onTickStart,
    onTick: h.onTick,
    onKill: h.onKill,
    onKillLatched: h.onKillLatched,
    latched: h.latched,
    heldPause: h.heldPause,
    initialRisk: h.initialRisk,
    account: o.account,
    // the account's limits act on the account, live and backtest; a config built without the section
    // (tools, tests) gets the defaults
    accountLimits: cfg.account,
    onDrift: h.onDrift,
    onHalt: undefined,
    logger: o.logger,
    timer: h.timer,
    strategyBudgetMs: h.strategyBudgetMs,
    onStrategyFault: h.onStrategyFault,
    faultLogIntervalMs: h.faultLogIntervalMs,
    deferStart: h.deferStart,
  };
  const kernel: QuotingKernel = new QuotingKernel(kernelOptions);
  // past the health grace a balance read that still differs from the books moves the limits onto the
  // venue's holdings (src/account/account.ts limitHoldingsOf); a config built without `health:` keeps them on the books
  if (cfg.health) kernel.account.driftGraceMs = cfg.health.notQuotingGraceMs;
  const apply = (e: StateEvent): void => kernel.onEvent(e);
  const applyAll = (es: readonly StateEvent[]): void => kernel.onEvents(es);
  return {
    store,
    account: kernel.account,
    orderManager,
    kernel,
    inbound,
    orderEvents,
    receive: (e) => inbound.publish(e, apply),
    receiveAll: (es) => {
      if (es.length > 0) inbound.publishAll(es, applyAll);
    },
  };
}

/**
 * The dead-man expiry the order manager signs, in whole seconds (0 = off): at least 2 s, so that the
 * refresh at half the expiry is at least a second away (the config asks 10 s or more; a config built
 * in code may ask less). Live and backtest read it here, so they sign the same expiry.
 */
export function deadManSeconds(expiryMs: number): number {
  return expiryMs > 0 ? Math.max(2, Math.round(expiryMs / 1000)) : 0;
}

/**
 * The store's history sizes from the config: the mid history a strategy estimates volatility from
 * and the recent trades are `feeds.midHistorySize` and `feeds.tradeHistorySize`. Every key is written
 * out (no spreads): an object built with spreads got a map of its own on every run (a copied map,
 * outside V8's transition tree), so each new backtest deoptimised the reducer code optimised on the
 * last one's limits. `edge ?? DEFAULT_EDGE` is what the reducer reads anyway.
 */
export function storeLimits(cfg: Pick<BotConfig, 'feeds' | 'edge'>): ReduceLimits {
  return {
    trades: cfg.feeds.tradeHistorySize,
    midSamples: cfg.feeds.midHistorySize,
    midSampleMs: DEFAULT_LIMITS.midSampleMs,
    fillIds: DEFAULT_LIMITS.fillIds,
    venueWindowMs: DEFAULT_LIMITS.venueWindowMs,
    edge: cfg.edge ?? DEFAULT_EDGE,
  };
}
