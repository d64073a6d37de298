/**
 * The risk layer's contract: limits (config), the decision per quote, the QuoteDenied event and the
 * small state the gate carries between ticks (peak PnL, token bucket, latched kill switch).
 * Units: prices 1e-6 USDC, sizes 1e-6 shares, notional 1e-6 USDC, time ms.
 */
import type { Bytes32 } from '../model/order.ts';
import type { DesiredQuote } from '../strategy/types.ts';

/**
 * Stable reason codes (documented in src/risk/README.md). Metrics label denials with these; never
 * rename one, only add.
 */
export const RISK_REASONS = [
  'HALTED', // market or bot halted by config/operator
  'KILL_DRAWDOWN', // PnL fell more than maxDrawdown below its peak
  'KILL_ERROR_RATE', // venue error rate above the limit
  'MARKET_NOT_ACTIVE', // status is not active (resolved, closed, pending)
  'DEADLINE', // within pauseBeforeDeadlineMs of the market deadline
  'MIGRATION', // venue migration active: trading paths answer 409
  'STALE_BOOK', // book older than maxBookAgeMs, or no book yet
  'STREAM_SILENT', // no stream event for maxStreamSilenceMs
  'PRICE_OUT_OF_RANGE', // price outside [tick, 1e6 − tick] or off the tick grid
  'CROSSES_BOOK', // would take liquidity and crossing is not allowed
  'FAR_FROM_FAIR', // further than maxDistanceFromFair from the fair price
  'SELF_TRADE', // would match an own resting order, or the venue flagged SELF_TRADE
  'REDUCE_ONLY', // would increase |net position| in reduce-only mode
  'POSITION_LIMIT', // market position limit at worst case (in-flight included)
  'NOTIONAL_LIMIT', // market notional limit at worst case
  'TOTAL_POSITION_LIMIT', // account-wide position limit at worst case
  'TOTAL_NOTIONAL_LIMIT', // account-wide notional limit at worst case
  'ORDER_SIZE', // above maxOrderSize (trimmed) or below minimum size after trimming
  'RATE_LIMIT', // order-rate budget exhausted: low-value requote dropped
  'BAD_QUOTE', // not a well-formed quote (non-integer, non-positive size…)
  'KILL_DAILY_LOSS', // account PnL fell more than maxDailyLoss below its value at the UTC day's start
  'KILL_LOSS', // account PnL since inception (the ledger) below −maxLoss
  'KILL_LATCHED', // the kill switch latched in an earlier run and no operator has cleared it
  'PAUSED', // an operator paused this market or halted the bot (bookmaker ctl pause|halt)
] as const;
export type RiskReason = (typeof RISK_REASONS)[number];

/**
 * One decision per desired quote (or one market-wide decision with quote = null, e.g. a stale book
 * pulls every quote). `trim` keeps the quote with a smaller size; `keep` means the rate budget kept
 * the existing working quote in place of a low-value move.
 */
export type RiskDecision =
  | { readonly kind: 'pass'; readonly quote: DesiredQuote }
  | { readonly kind: 'trim'; readonly quote: DesiredQuote; readonly size: number; readonly reason: RiskReason }
  | { readonly kind: 'deny'; readonly quote: DesiredQuote | null; readonly reason: RiskReason; readonly detail: string };

/** Event for logs and metrics (past tense, docs/architecture.md#habits (habit 4)). Emitted for each deny decision. */
export interface QuoteDenied {
  readonly type: 'QuoteDenied';
  readonly marketId: Bytes32;
  readonly reason: RiskReason;
  readonly detail: string;
  readonly quote: DesiredQuote | null;
  readonly ts: number;
}
/** Alias kept for callers that name the event after the layer. */
export type RiskDenied = QuoteDenied;

export interface OrderRateLimits {
  /** bucket size: orders (creates + cancels) allowed in a burst */
  readonly capacity: number;
  /** tokens added per second */
  readonly refillPerSecond: number;
}

/** Per-market risk limits (config `risk:`), merged from defaults and per-market overrides. 0 = off where noted. */
export interface RiskLimits {
  /** |worst-case net position| per market, 1e-6 shares */
  readonly maxPosition: number;
  /** worst-case notional per market, 1e-6 USDC */
  readonly maxNotional: number;
  /** account-wide worst-case Σ|net|, 1e-6 shares (0 = off) */
  readonly maxTotalPosition: number;
  /** account-wide worst-case notional, 1e-6 USDC (0 = off) */
  readonly maxTotalNotional: number;
  /** largest single order, 1e-6 shares; bigger quotes are trimmed */
  readonly maxOrderSize: number;
  /** furthest a quote may sit from the fair price (book microprice, else mid), 1e-6 USDC (0 = off) */
  readonly maxDistanceFromFair: number;
  /** allow quotes that cross the opposite best price (take liquidity) */
  readonly allowCrossing: boolean;
  readonly reduceOnly: boolean;
  readonly halted: boolean;
  /** stale-data guard: the book must be younger than this, ms */
  readonly maxBookAgeMs: number;
  /** stale-data guard: the stream must have spoken (heartbeat included) within this, ms */
  readonly maxStreamSilenceMs: number;
  /** pause quoting this long before the market deadline, ms */
  readonly pauseBeforeDeadlineMs: number;
  readonly orderRate: OrderRateLimits;
}

/** The gate's state between ticks for one market (the kill switch is the account's: src/account/account-risk.ts). */
export interface RiskState {
  /** token bucket level (fractional tokens allowed) */
  readonly tokens: number;
  /** clock time of the last refill, ms (null before the first tick) */
  readonly refilledAt: number | null;
}

// every field present from the start: one object shape for every state the gate returns
export const INITIAL_RISK_STATE: RiskState = { tokens: Number.NaN, refilledAt: null };

/**
 * What the gate returns. `action`: 'quote' = send `quotes` (diffed by the order manager);
 * 'pull' = cancel every quote of this market; the account's kill switch is checked by
 * the kernel before the gate (src/account/account-risk.ts).
 */
export interface RiskResult {
  readonly action: 'quote' | 'pull';
  readonly quotes: DesiredQuote[];
  /**
   * Per entry of `quotes`: the nonce of the live own order the quote is (identical, same slot),
   * which the gate counted once as that order; null for a quote that needs a create. The order
   * manager never creates for a quote that keeps an order (see DesiredOrder.keeps).
   */
  readonly keeps: (Bytes32 | null)[];
  readonly decisions: RiskDecision[];
  readonly denied: QuoteDenied[];
  readonly state: RiskState;
}
