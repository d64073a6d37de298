/**
 * The validated bot configuration. YAML uses human units (shares, USDC, probabilities, seconds);
 * everything here is converted to the integer units of src/model/units.ts and to milliseconds.
 * Secrets are never part of it: keys come from the environment or key files (src/config/secrets.ts).
 */
import type { ChainName } from '../exchange/chains.ts';
import type { Bytes32 } from '../model/order.ts';
import type { RiskLimits } from '../risk/types.ts';
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
  readonly agents: {
    readonly noiseTakers: number;
    readonly informedTakers: number;
    readonly makers: number;
    /** mean taker arrivals per second per market */
    readonly takerRatePerSecond: number;
  };
  readonly faults: {
    readonly profile: 'none' | 'light' | 'heavy';
    readonly latencyMs: number;
    readonly latencyJitterMs: number;
    /** fraction of requests answered 5xx */
    readonly errorRate: number;
    /** 0 = off */
    readonly rateLimitBurstEverySeconds: number;
    readonly streamDropEverySeconds: number;
    readonly stallEverySeconds: number;
    /** fraction of stream events duplicated */
    readonly duplicateRate: number;
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
  | { readonly by: 'all' };

export interface StrategySettings {
  /** built-in name or module path as written */
  readonly ref: string;
  readonly module: StrategyModule<unknown>;
  /** the module's parsed config */
  readonly params: unknown;
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
}

export interface FeedSettings {
  readonly bookDepth: number;
  /** ETag polling interval when the venue does not stream, ms */
  readonly bookPollMs: number;
  readonly activityPollMs: number;
  readonly balancePollMs: number;
  readonly oraclePollMs: number;
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
  readonly orders: OrderManagerSettings;
  readonly feeds: FeedSettings;
  readonly metrics: { readonly port: number; readonly host: string };
  readonly logging: { readonly level: LogLevel; readonly pretty: 'auto' | boolean };
  /** the persistent ledger (src/ledger): `path` resolved against the config's folder; ':memory:' keeps none */
  readonly ledger: LedgerSettings;
  /** the operator endpoint (bookmaker ctl): 127.0.0.1 only, bearer token from BOOKMAKER_ADMIN_TOKEN */
  readonly admin: { readonly port: number };
  /** key file paths (not keys); the signing engineer's secrets module reads them */
  readonly wallet: { readonly keyFile?: string; readonly apiKeyFile?: string };
}

export interface LedgerSettings {
  /** absolute path, ':memory:', or null = the default (beside the config, see src/ledger/ledger-path.ts) */
  readonly path: string | null;
  /** queued records are written at least this often, ms */
  readonly flushMs: number;
  /** a position and PnL mark of every market and of the account this often, ms */
  readonly markMs: number;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
