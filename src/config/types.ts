/**
 * The validated bot configuration. YAML uses human units (shares, USDC, probabilities, seconds);
 * everything here is converted to the integer units of src/model/units.ts and to milliseconds.
 * Secrets are never part of it: keys come from the environment or key files (src/config/secrets.ts).
 */
import type { ChainName } from '../exchange/chains.ts';
import type { FaultProfileName, FaultSettings } from '../sim/faults.ts';
import type { Bytes32 } from '../model/order.ts';
import type { RiskLimits } from '../risk/types.ts';
import type { AccountLimits } from '../account/account-risk.ts';
import type { EdgeSettings } from '../state/edge-settings.ts';
import type { NoInventoryMode } from '../strategy/to-orders.ts';
import type { MarketStatus, StrategyModule } from '../strategy/types.ts';

/** The embedded local exchange (src/sim) and its simulated world. */
export interface LocalVenueSettings {
  readonly seed: number;
  /** 0 = a free port */
  readonly port: number;
  /** number of generated markets */
  readonly markets: number;
  /** price tick of generated markets, 1e-6 USDC */
  readonly tick: number;
  /** collateral credited to the bot's wallet at start, 1e-6 USDC */
  readonly startingCollateral: bigint;
  /** the simulated counterparties per market (src/sim/counterparties.ts counterpartyAgents) */
  readonly agents: {
    /** noise takers (default 3) */
    readonly noiseTakers: number;
    /** informed takers (default 2) */
    readonly informedTakers: number;
    /** other makers besides the background maker (default 1) */
    readonly makers: number;
    /** mean taker arrivals per second per market, shared evenly by the noise and informed takers (default 0.5) */
    readonly takerRatePerSecond: number;
  };
  /** the counterparties' flow preset (src/sim/flow-presets.ts; default benign); other than benign it sets the takers' rates itself */
  readonly flow: 'benign' | 'calibrated' | 'toxic';
  /** market churn (src/sim/market-churn.ts): a new generated market every this many seconds (0 = none, the default) */
  readonly newMarketEverySeconds: number;
  /** how long a generated market trades before its deadline, seconds (default 1800) */
  readonly marketLifetimeSeconds: number;
  /** seconds from a deadline (market closed, resolution pending) to the resolution; null = a tenth of the lifetime, at most 60 */
  readonly resolutionDelaySeconds: number | null;
  /** no new generated market while this many are active (0 = no cap, the default) */
  readonly maxLiveMarkets: number;
  /**
   * an active market whose hidden fair value is this close to 0 or 1 resolves at once (its outcome as
   * good as known; default 0.05, as the synthetic backtest; 0 = never)
   */
  readonly settleOutside: number;
  /**
   * the venue's auto-claim (src/sim/auto-claim.ts): this many seconds after a market resolves, every wallet's
   * tokens in it are redeemed at the payout (claimState `autoclaimed`); null = off, the default
   */
  readonly autoClaimAfterSeconds: number | null;
  /** a fault profile of src/sim/faults.ts and overrides of single settings (default none) */
  readonly faults: {
    readonly profile: FaultProfileName;
    readonly overrides: Readonly<Partial<FaultSettings>>;
  };
}

export type VenueConfig =
  | { readonly kind: 'mainnet' | 'testnet'; readonly chain: ChainName }
  | { readonly kind: 'url'; readonly baseUrl: string; readonly chain: ChainName }
  | { readonly kind: 'local'; readonly chain: ChainName; readonly local: LocalVenueSettings };

export type MarketSelector =
  | { readonly by: 'id'; readonly id: Bytes32 }
  | { readonly by: 'slug'; readonly slug: string }
  | {
      readonly by: 'filter';
      readonly category?: string;
      readonly status: MarketStatus;
      /** minimum volume, 1e-6 USDC */
      readonly minVolume: number;
      /** at most this many markets (0 = no cap) */
      readonly limit: number;
    }
  | { readonly by: 'all' }
  | { readonly by: 'rank'; readonly rank: RankSettings };

/** The terms of a market's rank score (src/selection/score.ts documents each one's scale). */
export type RankTerm = 'spread' | 'depth' | 'volume' | 'volume24h' | 'volatility' | 'tradeRate' | 'timeToDeadline' | 'oracleDisagreement' | 'fee';

/** The rank terms in the order the report and the metrics list them (src/selection/score.ts computes them). */
export const RANK_TERMS: readonly RankTerm[] = [
  'spread',
  'depth',
  'volume',
  'volume24h',
  'volatility',
  'tradeRate',
  'timeToDeadline',
  'oracleDisagreement',
  'fee',
];

export const DEFAULT_WEIGHTS: Readonly<Record<RankTerm, number>> = {
  spread: 1,
  depth: 0.5,
  volume: 1,
  volume24h: 0.5,
  volatility: -0.5,
  tradeRate: 0.5,
  timeToDeadline: 0.5,
  oracleDisagreement: -1,
  fee: -1,
};

/** A `rank:` selector (src/config/parse-markets.ts): score every active market, keep the best within capital. */
export interface RankSettings {
  /** keep at most this many markets */
  readonly top: number;
  /** a market scoring below this is not selected (null = no floor) */
  readonly minScore: number | null;
  /** capital one market takes, 1e-6 USDC (null = the entry's risk.maxNotional) */
  readonly perMarket: number | null;
  /** capital all of this entry's markets take together, 1e-6 USDC (null = the entry's risk.maxTotalNotional; 0 there = no cap) */
  readonly total: number | null;
  /** a challenger must beat a quoted market by this much score to replace it */
  readonly enterMargin: number;
  /** a newly selected market is kept at least this long while eligible, ms */
  readonly minHoldMs: number;
  /** score = Σ weight · term; a weight of 0 turns a term (and its requests) off */
  readonly weights: Readonly<Record<RankTerm, number>>;
  /** pre-filter: only markets of this category (case-insensitive) */
  readonly category?: string;
  /** pre-filter: minimum lifetime volume, 1e-6 USDC */
  readonly minVolume: number;
  /** the fee rate the fee term charges, basis points of notional (the venue publishes none per market) */
  readonly feeBps: number;
  /** requests one refresh may spend on this entry (list pages + per-market reads) */
  readonly maxRequests: number;
  /** requests in flight at once */
  readonly concurrency: number;
  /** markets scored in full (book, history, trades, oracle); 0 = 3 × top */
  readonly shortlist: number;
}

export interface StrategySettings {
  /** built-in name or module path as written */
  readonly ref: string;
  readonly module: StrategyModule<unknown>;
  /** the module's parsed config */
  readonly params: unknown;
}

/** `markets:` in its mapping form (src/config/parse-markets.ts parseSelection): how the selection is kept current */
export interface SelectionSettings {
  /** re-evaluate the selectors this often, ms (0 = choose once at start-up) */
  readonly refreshMs: number;
  /** at most this many markets quoted at once */
  readonly maxMarkets: number;
  /** this instance's shard of the markets (rendezvous hashing of the id), or null for all */
  readonly shard: { readonly index: number; readonly count: number } | null;
}

export interface MarketConfig {
  readonly select: MarketSelector;
  readonly strategy: StrategySettings;
  readonly risk: RiskLimits;
}

export interface OrderManagerSettings {
  /** a working order within this of the desired price is left alone, 1e-6 USDC */
  readonly priceTolerance: number;
  /** …and within this fraction of the desired size */
  readonly sizeTolerance: number;
  readonly batchLimit: number;
  readonly requoteIntervalMs: number;
  /** dead-man switch: orders expire after this and are refreshed while alive (0 = off), ms */
  readonly deadManExpiryMs: number;
  readonly inFlightTimeoutMs: number;
  readonly reconcileIntervalMs: number;
  readonly noInventory: NoInventoryMode;
  /**
   * which open orders of the wallet the bot treats as its own at reconcile and shutdown: `wallet`
   * (every order of the wallet; a dedicated wallet) or `markets` (only the configured markets; a
   * wallet shared with a person or another instance). Default `wallet`.
   */
  readonly reconcileScope: 'wallet' | 'markets';
}

/** `health:` (src/config/parse-health.ts) */
export interface HealthSettings {
  readonly notQuotingGraceMs: number;
  readonly strategyBudgetMs: number;
  readonly logIntervalMs: number;
}

export interface FeedSettings {
  readonly bookDepth: number;
  /** ETag polling interval when the venue does not stream, ms */
  readonly bookPollMs: number;
  readonly activityPollMs: number;
  readonly balancePollMs: number;
  readonly oraclePollMs: number;
  /**
   * per-market polls (metadata, oracle quotes): markets read a second at most, each; more markets
   * than a poll interval allows are read in turn over several intervals
   */
  readonly marketReadsPerSecond: number;
  /** an open stream silent this long is reconnected, ms */
  readonly streamIdleTimeoutMs: number;
  readonly midHistorySize: number;
  readonly tradeHistorySize: number;
}

export interface BotConfig {
  /** the file it came from ('' when built from an object) */
  readonly file: string;
  readonly venue: VenueConfig;
  readonly markets: readonly MarketConfig[];
  /** the `markets:` mapping form's settings (defaults when `markets:` is a list) */
  readonly selection: SelectionSettings;
  readonly orders: OrderManagerSettings;
  readonly feeds: FeedSettings;
  /** `optional`: a busy or unbindable port is a warning instead of a start-up error (exit 2) */
  readonly metrics: { readonly port: number; readonly host: string; readonly optional: boolean };
  readonly watchdog: WatchdogSettings;
  readonly logging: { readonly level: LogLevel; readonly pretty: 'auto' | boolean };
  readonly health: HealthSettings;
  /** the limits on the whole account's PnL and its trading day (`account:`; src/config/parse-account.ts) */
  readonly account: AccountLimits;
  /** the persistent ledger (src/ledger): `path` resolved against the config's folder; ':memory:' keeps none */
  readonly ledger: LedgerSettings;
  /** the operator endpoint (bookmaker ctl): 127.0.0.1 only, bearer token from BOOKMAKER_ADMIN_TOKEN */
  readonly admin: { readonly port: number };
  /** key file paths (not keys); the signing engineer's secrets module reads them */
  readonly wallet: { readonly keyFile?: string; readonly apiKeyFile?: string };
  /** markout horizons, toxicity and regime thresholds (`edge:`; src/config/parse-edge.ts); default DEFAULT_EDGE */
  readonly edge?: EdgeSettings;
}

export interface LedgerSettings {
  /** absolute path, ':memory:', or null = the default (beside the config, see ledgerPath in src/ledger/bot-ledger.ts) */
  readonly path: string | null;
  /** queued records are written at least this often, ms */
  readonly flushMs: number;
  /** a position and PnL mark of every market and of the account this often, ms */
  readonly markMs: number;
  /** the fee model for fills the venue states no fee for, whole bps (default maker 0, taker 50) */
  readonly fees: { readonly makerBps: number; readonly takerBps: number };
  /** the ledger unwritable this long (disk full, file gone, I/O error) → every quote pulled, health state ledger-unwritable, ms (default 10 000; 0 = at once) */
  readonly unwritableGraceMs: number;
  /** orders, cancels and marks older than this many days are pruned (fills, risk records and operator actions never; 0 = keep all; default 90) */
  readonly retainDays: number;
}

/** The event-loop watchdog (src/runtime/watchdog.ts). */
export interface WatchdogSettings {
  /** loop blocked this long → cancel every order from the watchdog thread, exit 5 (0 = watchdog off), ms */
  readonly blockedLimitMs: number;
  /** /healthz answers 503 once the loop heartbeat is older than this, ms (never above blockedLimitMs) */
  readonly healthzLimitMs: number;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
