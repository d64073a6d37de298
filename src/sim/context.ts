/**
 * The request context handed to every route handler, and the shared exchange state object the
 * handlers read and change.
 *
 * The state is one object per local exchange (see ./local-exchange.ts, which builds it). Route
 * modules must keep their own persistent data either in the typed stores below or under
 * `state.ext[<module name>]` as JSON-friendly data (bigint allowed): everything reachable from
 * `stores` and `ext` is saved with `--state FILE` and restored on start.
 *
 * Trading rules owned by other modules (e.g. the migration 409 rule) plug in through
 * `state.tradingGuards`: each guard is called before an order create / cancel and throws an
 * HttpError to refuse it. Rules that let a create through but void the order on arrival (the
 * venue's voidReason, e.g. MISSING_OPERATOR_APPROVAL) plug in through `state.orderVoiders`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.ts';
import type { ChainConfig } from '../exchange/chains.ts';
import type { Bytes32, VoidReason } from '../model/order.ts';
import type { ActivityEntry, ApiKeyRecord, MarketRecord, StoredOrder } from './records.ts';
import type { EngineHost } from './engine-host.ts';
import type { LowerAddress } from './wire-ids.ts';

export interface RequestContext {
  method: string;
  /** path relative to the /v2 base, without the query */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** parsed JSON body (undefined when none was sent) */
  body: unknown;
  headers: IncomingMessage['headers'];
  /** the caller's key when the request carried a valid one */
  key: ApiKeyRecord | undefined;
  /** the exchange state */
  state: ExchangeState;
  /** clock time of the request, ms since epoch */
  now: number;
  /** raw objects, for streaming handlers only */
  req: IncomingMessage;
  res: ServerResponse;
}

/** Settings that do not change while the exchange runs. */
export interface ExchangeSettings {
  seed: number;
  /** most items in one bulk call (more → 400 BATCH_TOO_LARGE) */
  batchLimit: number;
  /** request body size limit in bytes (more → 413) */
  bodyLimitBytes: number;
  /** bytes of request bodies held at once across all connections (a body that does not fit → 503) */
  bodyBytesInFlight: number;
  /** a request body not complete this long after its headers → 408 and the connection closed */
  bodyTimeoutMs: number;
  /** concurrent connections; more are closed at once */
  maxConnections: number;
  /** per-key token bucket: capacity and refill per second */
  rateLimit: { capacity: number; refillPerSecond: number };
  /** SSE heartbeat interval, ms */
  heartbeatMs: number;
  /** per-stream replay ring buffer size (events kept for Last-Event-ID resume) */
  streamBufferSize: number;
}

/** Trading guard: throw an HttpError to refuse the operation. */
export type TradingGuard = (trader: LowerAddress, operation: 'create' | 'cancel', now: number) => void;

/** The reason an accepted create is voided on arrival (never rests, never fills), or null to let it trade. */
export type OrderVoider = (trader: LowerAddress) => VoidReason | null;

/** Operations other route modules may call (implemented by the exchange, not by the routes). */
export interface ExchangeServices {
  /** Validate, verify and place a POST /orders body for the caller; throws HttpError. `field` prefixes error field names. */
  placeOrder(body: unknown, field: string, caller: ApiKeyRecord, now: number): StoredOrder;
  /** Verify and apply a cancel `{trader, nonce, signature}`; throws HttpError. */
  cancelOrder(body: unknown, field: string, caller: ApiKeyRecord, now: number): { trader: LowerAddress; nonce: Bytes32; alreadyCancelled: boolean };
  /** Create a market (and its book) and log `market_created`. */
  addMarket(input: NewMarketInput, now: number): MarketRecord;
  /** Append an activity entry (seq assigned here). */
  addActivity(entry: Omit<ActivityEntry, 'seq'>): ActivityEntry;
  /** Look a market up by its id (normalised: ./wire-ids.ts). */
  market(id: Bytes32): MarketRecord | undefined;
  /** Look a market up by 0x id (any case) or slug, as a path or a caller gives it. */
  findMarket(idOrSlug: string): MarketRecord | undefined;
  /**
   * Resolve a market: payout per YES share in 1e-6 (1e6 = YES wins, 0 = NO wins), open orders voided
   * MARKET_RESOLVED, positions claimable, a `resolution` activity entry. Throws HttpError 409 when it
   * is already resolved.
   */
  resolveMarket(idOrSlug: string, payoutYes: number, now: number, evidence?: string | null): MarketRecord;
  /**
   * Close an active market at its deadline: status `closed`, resolutionStatus `pending`; no new order
   * is accepted (409), resting orders stay (cancellable, nothing matches) until the resolution voids
   * them. Throws HttpError 409 when the market is not active.
   */
  closeMarket(idOrSlug: string, now: number): MarketRecord;
  /** Record a simulated oracle check (the counterparties call this) and log `oracle_update`. */
  oracleUpdate(marketId: Bytes32, now: number, chance: number | null, posts: number): void;
  /**
   * Claim a wallet's position in a resolved market, as the venue's auto-claim (`auto`) or a person in
   * the web app would: its tokens are redeemed at the payout (⌊yes·payoutYes⌋ + ⌊no·payoutNo⌋ 1e-6 USDC
   * into its collateral), and GET /portfolio/:address shows the rows with balance 0, `tokensRedeemed`
   * and claimState `autoclaimed` (auto) or null. Returns what was paid (0 when nothing was held).
   * Throws HttpError 404 (unknown market) or 409 (not resolved).
   */
  claimPosition(wallet: string, idOrSlug: string, how: 'auto' | 'manual', now: number): bigint;
}

export interface NewMarketInput {
  question: string;
  shortQuestion?: string;
  resolutionCriteria?: string;
  category?: string;
  visibility?: 'public' | 'unlisted';
  /** any case: normalised when the record is made */
  creator?: string;
  /** ms since epoch */
  deadline?: number;
  tick?: number;
  questionSubmissionId?: string | null;
  metadata?: Record<string, unknown>;
  /** fixed id (tests, restored state), any case; default derived from the seed and a counter */
  id?: string;
  slug?: string;
}

/** Typed stores of the exchange; all plain data, saved and restored as a whole. */
export interface ExchangeStores {
  /** by market id, lower-case (inside the exchange, look markets up with `services.market`) */
  markets: Map<string, MarketRecord>;
  orders: StoredOrder[]; // index = id - 1
  activity: ActivityEntry[];
}

export interface ExchangeState {
  readonly settings: ExchangeSettings;
  readonly clock: Clock;
  readonly chain: ChainConfig;
  /** API keys by bearer token */
  readonly keys: Map<string, ApiKeyRecord>;
  readonly stores: ExchangeStores;
  /** route-module state, JSON-friendly (bigint allowed), persisted with the rest */
  readonly ext: Record<string, unknown>;
  readonly tradingGuards: TradingGuard[];
  readonly orderVoiders: OrderVoider[];
  readonly services: ExchangeServices;
  /** the matching engine behind its id mapping and command log */
  readonly engine: EngineHost;
}

/** A route module's state under `state.ext[key]`, made by `create` on first use (see ExchangeState.ext). */
export function extData<T>(state: ExchangeState, key: string, create: () => T): T {
  const d = state.ext[key] as T | undefined;
  if (d !== undefined) return d;
  const made = create();
  state.ext[key] = made;
  return made;
}
