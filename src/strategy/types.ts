/**
 * The strategy contract: what a strategy may read (MarketView), what it returns (DesiredQuote[])
 * and the module shape it exports (StrategyModule). Everything is in YES terms and integer units
 * (src/model/units.ts): prices in 1e-6 USDC per YES share, sizes in 1e-6 shares, collateral bigint.
 *
 * YES terms: a bid at p means "buy YES at p" or "sell NO at 1e6 − p"; an ask at p means
 * "sell YES at p" or "buy NO at 1e6 − p". src/strategy/to-orders.ts picks the venue order.
 *
 * The view is built by the state store once per tick and never mutated afterwards, so a strategy
 * can keep references to it. Strategies are pure: no I/O, no RxJS, no Date.now() — `now` is given.
 */
import type { Bytes32, OutcomeIndex } from '../model/order.ts';

/** Market status as the venue reports it (openapi Market.status). */
export type MarketStatus = 'active' | 'pending' | 'resolved' | 'closed';

export interface ViewLevel {
  readonly price: number;
  readonly size: number;
}

/**
 * One book in YES terms (bids descending, asks ascending, top few levels). The YES book merges
 * both outcomes: a NO bid at x appears as a YES ask at 1e6 − x, which is how the venue matches.
 */
export interface ViewBook {
  readonly bids: readonly ViewLevel[];
  readonly asks: readonly ViewLevel[];
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
  /** (bestBid + bestAsk) / 2, unrounded; null unless both sides exist */
  readonly mid: number | null;
  /** size-weighted mid: (bid·askSize + ask·bidSize)/(bidSize + askSize), unrounded; null unless both sides */
  readonly microprice: number | null;
  /** venue timestamp of the last update, ms (0 when unknown) */
  readonly venueTs: number;
  /** local clock time the last update was applied, ms */
  readonly updatedAt: number;
  /**
   * true when the book is known NOT to hold the bot's own orders (a backtest replaying a recording
   * without the venue's drop copy shows the bot the recorded book alone); absent on a venue's book,
   * which holds them. `othersBook(view)` subtracts own quotes only from a book that may hold them.
   */
  readonly withoutOwn?: true;
}

export interface ViewTrade {
  /** YES-terms price */
  readonly price: number;
  readonly size: number;
  /** aggressor side in YES terms: 'buy' lifted an ask, 'sell' hit a bid */
  readonly takerSide: 'buy' | 'sell';
  readonly ts: number;
}

/** A mid observation, oldest first; strategies estimate volatility from these. */
export interface MidSample {
  readonly ts: number;
  readonly mid: number;
}

/**
 * The view's mid samples, oldest first: a read-only sequence read as an array is (`length`,
 * `at(i)`, iteration; a `readonly MidSample[]` is one). The store's is shared between its states
 * (src/state/mid-history.ts), so it has no index operator: read `history.at(i)`.
 */
export interface MidSeries extends Iterable<MidSample> {
  readonly length: number;
  /** the sample at `index` (negative counts back from the newest); undefined outside */
  at(index: number): MidSample | undefined;
}

/**
 * Own inventory. `net` = yes − no: a complete set (one YES + one NO) is worth exactly 1 USDC and
 * carries no outcome risk, so limits and skew use the net.
 */
export interface ViewPosition {
  readonly yes: number;
  readonly no: number;
  readonly net: number;
  /** average entry price of the net position in YES terms (null when flat or unknown) */
  readonly avgEntry: number | null;
}

/**
 * An own order as the order manager knows it, mapped back into YES terms. `state` says whether the
 * venue has acknowledged it; the risk layer counts both states at worst case (fully filled).
 */
export interface WorkingQuote {
  readonly side: 'bid' | 'ask';
  /** YES-terms price */
  readonly price: number;
  /** remaining size, 1e-6 shares */
  readonly size: number;
  readonly state: 'working' | 'in-flight' | 'cancelling';
  readonly nonce?: Bytes32;
  readonly level?: number;
  readonly tag?: string;
  /** the venue order it is: outcome, side and kind (e.g. a YES-terms ask may be a NO buy) */
  readonly outcomeIndex: OutcomeIndex;
  readonly venueSide: 'buy' | 'sell';
  /** the order's inventory mode (0 any, 1 require inventory, 2 sell without inventory) when known */
  readonly inventoryMode?: 0 | 1 | 2;
  readonly placedAt: number;
}

export interface ViewOracle {
  /** YES probability in [0, 1] (model maths: floats are fine here) */
  readonly probability: number;
  /** confidence in [0, 1] */
  readonly confidence: number;
  /** ms timestamp of the oracle quote */
  readonly updatedAt: number;
  /** now − updatedAt, ms (precomputed by the store with the injected clock) */
  readonly ageMs: number;
}

export interface ViewPnl {
  /** 1e-6 USDC */
  readonly realised: number;
  /** mark-to-mid, 1e-6 USDC */
  readonly unrealised: number;
}

/**
 * Account-wide figures the risk layer needs for total limits and the kill switch. The store sums
 * over ALL markets, including this one; worst-case figures use src/risk/exposure.ts so the gate can
 * swap this market's current contribution for the proposed one. A store's view computes them when
 * first read (getters: read the fields, a spread of the object copies none of them).
 */
export interface ViewAccount {
  /** free collateral, 1e-6 USDC */
  readonly collateral: bigint;
  /** total PnL (realised + unrealised) over all markets, 1e-6 USDC */
  readonly pnl: number;
  /** Σ over markets of worst-case |net| (working + in-flight filled), 1e-6 shares */
  readonly worstCasePosition: number;
  /** Σ over markets of worst-case notional, 1e-6 USDC */
  readonly worstCaseNotional: number;
}

/** Venue health over a recent window, for the error-rate kill switch. */
export interface ViewVenueHealth {
  readonly requests: number;
  readonly errors: number;
  readonly windowMs: number;
}

export interface ViewFlags {
  /** the venue's order simulate answered a SELF_TRADE warning for our quotes */
  readonly selfTradeWarning?: boolean;
  /** the venue answered 409 migration-required; trading must wait */
  readonly migrationActive?: boolean;
}

/** A market's regime (src/state/regime.ts): how the market behaves right now. */
export type Regime = 'quiet' | 'trending' | 'event' | 'reduce-only' | 'halted';
export const REGIMES: readonly Regime[] = ['quiet', 'trending', 'event', 'reduce-only', 'halted'];

/** Own fills' markouts at one horizon, size-weighted. */
export interface ViewMarkout {
  readonly horizonMs: number;
  /** mean (mid(t + h) − price) for buys, (price − mid(t + h)) for sells, 1e-6 USDC per share; null before any */
  readonly perShare: number | null;
  readonly n: number;
}

/**
 * Who we trade with and what the market is doing (src/state/edge-state.ts): the inputs of the
 * adverse-selection helper (src/strategy/edge-adjust.ts). Floats: model maths, not money. The
 * market's exact PnL attribution is not in the view (no strategy needs it on every tick):
 * `marketAttribution(market)` in src/state/edge-view.ts.
 */
export interface ViewEdge {
  readonly regime: Regime;
  /** when the market entered this regime (ms) */
  readonly regimeSince: number;
  /** what triggered it (e.g. 'mid-jump', 'toxicity', 'status'); null when quiet */
  readonly regimeCause: string | null;
  /** decayed size-weighted own markout at the toxicity horizon, 1e-6 USDC per share (negative = picked off); null before any */
  readonly toxicity: number | null;
  /** decayed number of fills behind `toxicity` */
  readonly toxicityWeight: number;
  /**
   * standard error of `toxicity` for the guard's test (same units; effective sample size of the
   * decayed weights; with pick-offs among earning fills, the variance at their break-even share:
   * src/state/edge-view.ts toxicityStdErr); null before two fills; absent in hand-built views (then
   * `toxicity` is taken as exact)
   */
  readonly toxicityStdErr?: number | null;
  /**
   * the account's pooled toxicity: the same average over every market's own fills, kept past a
   * market's release (the store's pool, `edge.poolHalfLifeSeconds`); absent in hand-built views
   */
  readonly pool?: PooledToxicity;
  /**
   * the market's print markout: the passive side of every trade of the market marked out at the
   * toxicity horizon, decayed (`edge.printHalfLifeSeconds`; src/state/edge-view.ts printView); weight
   * counts prints; absent in hand-built views
   */
  readonly prints?: PooledToxicity;
  /** decayed taker-flow imbalance in [−1, 1]: +1 all takers bought YES */
  readonly flowImbalance: number;
  /** decayed taker volume behind it, 1e-6 shares */
  readonly flowSize: number;
  readonly markouts: readonly ViewMarkout[];
}

/** The account's pooled toxicity (src/state/edge-view.ts poolView): as ViewEdge's toxicity, toxicityWeight and toxicityStdErr. */
export interface PooledToxicity {
  /** 1e-6 USDC per share; null before any fill settled */
  readonly toxicity: number | null;
  /** decayed number of fills behind it */
  readonly weight: number;
  /** null before two fills' worth of weight */
  readonly stdErr: number | null;
}

/** A market's identity, terms and status, as the store's record (MarketState) and a strategy's view both carry them. */
export interface MarketTerms {
  readonly marketId: Bytes32;
  readonly slug?: string;
  /** price tick, 1e-6 USDC (e.g. 10_000 = 1¢) */
  readonly tick: number;
  /** minimum order size, 1e-6 shares */
  readonly minSize: number;
  /** trading deadline (close) ms since epoch, null when none */
  readonly deadline: number | null;
  readonly status: MarketStatus;
}

export interface MarketView extends MarketTerms {
  /** the injected clock's now, ms */
  readonly now: number;
  /**
   * YES-terms book (both outcomes merged); null before the first snapshot. It holds the bot's own
   * resting orders: `othersBook(view)` (src/strategy/others-book.ts) is the book without them.
   */
  readonly book: ViewBook | null;
  /** local time the book source was last heard alive (events, heartbeat keep-alives, 304 polls), ms */
  readonly streamLastEventAt: number | null;
  /** most recent last, at most a few dozen */
  readonly trades: readonly ViewTrade[];
  /** oldest first, bounded */
  readonly midHistory: MidSeries;
  readonly position: ViewPosition;
  /** own working and in-flight quotes in this market */
  readonly quotes: readonly WorkingQuote[];
  readonly oracle: ViewOracle | null;
  readonly pnl: ViewPnl;
  readonly account: ViewAccount;
  readonly venue: ViewVenueHealth;
  readonly flags: ViewFlags;
  /**
   * markouts, toxicity, flow and regime; always set by the store (optional for hand-built views).
   * Computed when a figure is first read (getters: read the fields; a spread of the object copies none of them)
   */
  readonly edge?: ViewEdge;
  /**
   * What helpers derive from the view, remembered with the market between ticks (set by the store;
   * a hand-built view without one recomputes). Strategies never read it.
   */
  readonly memo?: ViewMemo;
}

/**
 * Results derived from a view and remembered with its market (src/state/market-memo.ts holds the
 * store's): released with the market, never in a process-wide table.
 */
export interface ViewMemo {
  /** src/strategy/others-book.ts: the others' book of (book, quotes) */
  others: { book: ViewBook; quotes: readonly WorkingQuote[]; out: ViewBook } | null;
  /** src/strategy/volatility.ts: the EWMA variance of the last mid history seen */
  sigma: SigmaMemo | null;
}

/** The EWMA variance (-1: none yet) over `history` with decay `lambda` (src/strategy/volatility.ts viewSigma). */
export interface SigmaMemo {
  history: MidSeries;
  lambda: number;
  variance: number;
}

export interface DesiredQuote {
  /** YES terms */
  readonly side: 'bid' | 'ask';
  /** 1e-6 USDC per YES share */
  readonly price: number;
  /** 1e-6 shares */
  readonly size: number;
  /** 0 = closest to the fair price */
  readonly level?: number;
  readonly tag?: string;
  /**
   * true: the quote only takes the net position down and may cross the book; the risk gate lets it
   * cross only while its side reduces the position and its size is at most the position's
   * (src/risk/price-check.ts), whatever `allowCrossing` says
   */
  readonly reduce?: boolean;
}

/**
 * A strategy module (strategies/<name>/index.ts default export, or a user's module by path).
 * parseConfig throws ConfigError naming `path` + field on bad input; quote returns the complete
 * desired set (the order manager diffs it) or null to pull every quote of the market.
 */
export interface StrategyModule<C = unknown> {
  readonly name: string;
  parseConfig(raw: unknown, path: string): C;
  quote(view: MarketView, config: C): DesiredQuote[] | null;
}
