/**
 * The shape of the store's state: one immutable `StoreState` per tick, with one `MarketState` per
 * market (structural sharing: an event replaces only what it touches).
 *
 * Entry points: the types, `emptyState()` and `emptyMarket(marketId)`.
 */
import type { BookSnapshot } from '../model/book.ts';
import type { Bytes32 } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';
import type { MarketTerms, ViewTrade } from '../strategy/types.ts';
import { NO_BOOKS, type MarketBooks } from './book-state.ts';
import { DEFAULT_EDGE, type EdgeSettings } from './edge-settings.ts';
import { emptyEdge, NO_TOXICITY, type EdgeState, type ToxicitySums } from './edge-state.ts';
import { MarketMemo } from './market-memo.ts';
import { FillIds } from './fill-ids.ts';
import { MidHistory } from './mid-history.ts';
import { PersistentMap } from './persistent-map.ts';
import { StateMemo } from './state-memo.ts';
import type { HeldRead } from './held-read.ts';
import { FLAT, type PositionState } from './position.ts';
import { VenueCallWindow } from './venue-call-window.ts';

export interface OwnOrder {
  readonly slot: string;
  readonly order: PlannedOrder;
  /** remaining shares, 1e-6 */
  readonly remaining: number;
  readonly state: 'working' | 'in-flight' | 'cancelling';
  readonly placedAt: number;
  /**
   * of a buy or a sale without inventory, the budget units its reported fills spent (what they
   * paid, fees included: src/exchange/v2-resting.ts spentBy); absent: none
   */
  readonly spent?: number;
}

export interface OracleState {
  readonly probability: number;
  readonly confidence: number;
  readonly updatedAt: number;
}

export interface MarketState extends MarketTerms {
  /** what one YES share pays after resolution (1e-6 USDC), null before */
  readonly payoutYes: number | null;
  readonly books: MarketBooks;
  /** local time the book last changed */
  readonly bookUpdatedAt: number;
  /**
   * local time the book source was last heard alive: a book or trade event, or a 'live' / 'polling'
   * status (the stream's keep-alive on heartbeats and 304s); other statuses do not count
   */
  readonly streamLastEventAt: number | null;
  readonly streamState: 'connecting' | 'live' | 'polling' | 'reconnecting' | 'stale' | 'closed' | null;
  /** newest last, bounded */
  readonly trades: readonly ViewTrade[];
  /** oldest first, bounded, sampled; shared with the states before it (./mid-history.ts) */
  readonly midHistory: MidHistory;
  /** twice the last known YES mid (integer), the mark for unrealised PnL */
  readonly lastMid2: number | null;
  /** own orders by lower-case nonce */
  readonly orders: ReadonlyMap<string, OwnOrder>;
  readonly position: PositionState;
  /** the last balance read of the market, and the fills' position while that read is ahead of them (./held-read.ts) */
  readonly held: HeldRead | null;
  /** recent fill ids, for de-duplication (bounded; shared with the states before it: ./fill-ids.ts) */
  readonly fillIds: FillIds;
  readonly oracle: OracleState | null;
  readonly blocked: 'migration' | 'halted' | null;
  /** risk denials by reason */
  readonly denials: ReadonlyMap<string, number>;
  /** markouts, toxicity, flow, regime triggers and PnL attribution (./edge-state.ts) */
  readonly edge: EdgeState;
  /**
   * What the views derive from this market, remembered between ticks (./market-memo.ts): one per
   * market, carried by every copy the reducer makes, gone with the market.
   */
  readonly memo: MarketMemo;
}

export interface VenueCallSample {
  readonly ts: number;
  readonly ok: boolean;
}

export interface StoreState {
  /** increases by one per reduced event */
  readonly version: number;
  /** time of the last reduced event (the injected clock) */
  readonly ts: number;
  /** by lower-case market id; a PersistentMap (cheap immutable updates), read it as a ReadonlyMap */
  readonly markets: ReadonlyMap<string, MarketState>;
  /** free collateral, 1e-6 USDC; null before the first balance poll */
  readonly collateral: bigint | null;
  readonly lastReconcileAt: number | null;
  readonly backoffUntil: number;
  /** recent venue calls inside the health window (src/state/venue-call-window.ts) */
  readonly venueCalls: VenueCallWindow;
  /**
   * The account's pooled toxicity: every market's own markouts at the toxicity horizon, decayed with
   * `edge.poolHalfLifeSeconds`, kept after a market is released (./edge-state.ts ToxicitySums; the
   * guard's prior for a fresh market, src/strategy/edge-adjust.ts)
   */
  readonly toxicityPool: ToxicitySums;
  /**
   * What the views derive from the states as a whole, remembered between ticks (./state-memo.ts): one
   * per store, carried by every state the reducer makes from it, gone with the store.
   */
  readonly memo: StateMemo;
}

export const DEFAULT_TICK = 10_000;
export const DEFAULT_MIN_SIZE = 1_000_000;

export function emptyMarket(marketId: Bytes32, edge: EdgeSettings = DEFAULT_EDGE): MarketState {
  return {
    marketId,
    // every field present from the start keeps one object shape (spreads that add keys are slow in V8)
    slug: undefined,
    tick: DEFAULT_TICK,
    minSize: DEFAULT_MIN_SIZE,
    deadline: null,
    status: 'active',
    payoutYes: null,
    books: NO_BOOKS,
    bookUpdatedAt: 0,
    streamLastEventAt: null,
    streamState: null,
    trades: [],
    midHistory: MidHistory.EMPTY,
    lastMid2: null,
    orders: new Map(),
    position: FLAT,
    held: null,
    fillIds: FillIds.EMPTY,
    oracle: null,
    blocked: null,
    denials: new Map(),
    edge: emptyEdge(edge),
    memo: new MarketMemo(),
  };
}

export function emptyState(): StoreState {
  return {
    version: 0,
    ts: 0,
    markets: PersistentMap.empty<MarketState>(),
    collateral: null,
    lastReconcileAt: null,
    backoffUntil: 0,
    venueCalls: VenueCallWindow.EMPTY,
    toxicityPool: NO_TOXICITY,
    memo: new StateMemo(),
  };
}

/**
 * A copy of `m` with the fields of `c` replaced. An explicit literal of every field instead of a
 * spread: objects made by `{...prev, k: v}` chained event after event fall off V8's fast path
 * (measured ~3 µs per copy against ~0.1 µs for a literal), and the store copies per event.
 */
export function marketWith(m: MarketState, c: Partial<MarketState>): MarketState {
  return {
    marketId: 'marketId' in c ? c.marketId! : m.marketId,
    slug: 'slug' in c ? c.slug : m.slug,
    tick: 'tick' in c ? c.tick! : m.tick,
    minSize: 'minSize' in c ? c.minSize! : m.minSize,
    deadline: 'deadline' in c ? c.deadline! : m.deadline,
    status: 'status' in c ? c.status! : m.status,
    payoutYes: 'payoutYes' in c ? c.payoutYes! : m.payoutYes,
    books: 'books' in c ? c.books! : m.books,
    bookUpdatedAt: 'bookUpdatedAt' in c ? c.bookUpdatedAt! : m.bookUpdatedAt,
    streamLastEventAt: 'streamLastEventAt' in c ? c.streamLastEventAt! : m.streamLastEventAt,
    streamState: 'streamState' in c ? c.streamState! : m.streamState,
    trades: 'trades' in c ? c.trades! : m.trades,
    midHistory: 'midHistory' in c ? c.midHistory! : m.midHistory,
    lastMid2: 'lastMid2' in c ? c.lastMid2! : m.lastMid2,
    orders: 'orders' in c ? c.orders! : m.orders,
    position: 'position' in c ? c.position! : m.position,
    held: 'held' in c ? c.held! : m.held,
    fillIds: 'fillIds' in c ? c.fillIds! : m.fillIds,
    oracle: 'oracle' in c ? c.oracle! : m.oracle,
    blocked: 'blocked' in c ? c.blocked! : m.blocked,
    denials: 'denials' in c ? c.denials! : m.denials,
    edge: 'edge' in c ? c.edge! : m.edge,
    memo: m.memo,
  };
}

/**
 * marketWith for a book event: the hot case (every book update of every market), as one literal
 * without the `in` checks, which turn megamorphic over the many partial shapes and cost ~1 µs.
 */
export function marketWithBook(
  m: MarketState,
  books: MarketBooks,
  at: number,
  streamState: MarketState['streamState'],
  lastMid2: number | null,
  midHistory: MidHistory,
  edge: EdgeState = m.edge,
): MarketState {
  return marketFrom(m, books, at, at, streamState, midHistory, lastMid2, m.orders, edge);
}

/** marketWith for a new own-orders map (every order-manager event), as one literal. */
export function marketWithOrders(m: MarketState, orders: ReadonlyMap<string, OwnOrder>): MarketState {
  return marketFrom(m, m.books, m.bookUpdatedAt, m.streamLastEventAt, m.streamState, m.midHistory, m.lastMid2, orders, m.edge);
}

/** The market with its risk denials' counts replaced (a QuoteDenied: a few hundred a backtest run, one per denial). */
export function marketWithDenials(m: MarketState, denials: ReadonlyMap<string, number>): MarketState {
  return marketFrom(m, m.books, m.bookUpdatedAt, m.streamLastEventAt, m.streamState, m.midHistory, m.lastMid2, m.orders, m.edge, m.trades, denials);
}

/** marketWith for a new edge state (markouts settled, a regime change), as one literal. */
export function marketWithEdge(m: MarketState, edge: EdgeState): MarketState {
  return marketFrom(m, m.books, m.bookUpdatedAt, m.streamLastEventAt, m.streamState, m.midHistory, m.lastMid2, m.orders, edge);
}

/** marketWith for a trade of the stream (every market trade): the stream's time, the trades and the edge, as one literal. */
export function marketWithTrade(m: MarketState, at: number, trades: readonly ViewTrade[], edge: EdgeState): MarketState {
  return marketFrom(m, m.books, m.bookUpdatedAt, at, m.streamState, m.midHistory, m.lastMid2, m.orders, edge, trades);
}

/** The one literal of the hot copies above: the fields a book or an own-orders event replaces, the rest from `m`. */
function marketFrom(
  m: MarketState,
  books: MarketBooks,
  bookUpdatedAt: number,
  streamLastEventAt: number | null,
  streamState: MarketState['streamState'],
  midHistory: MidHistory,
  lastMid2: number | null,
  orders: ReadonlyMap<string, OwnOrder>,
  edge: EdgeState,
  trades: readonly ViewTrade[] = m.trades,
  denials: ReadonlyMap<string, number> = m.denials,
): MarketState {
  return {
    marketId: m.marketId,
    slug: m.slug,
    tick: m.tick,
    minSize: m.minSize,
    deadline: m.deadline,
    status: m.status,
    payoutYes: m.payoutYes,
    books,
    bookUpdatedAt,
    streamLastEventAt,
    streamState,
    trades,
    midHistory,
    lastMid2,
    orders,
    position: m.position,
    held: m.held,
    fillIds: m.fillIds,
    oracle: m.oracle,
    blocked: m.blocked,
    denials,
    edge,
    memo: m.memo,
  };
}

/** A copy of `s` with the fields of `c` replaced (explicit literal, see marketWith). */
export function stateWith(s: StoreState, c: Partial<StoreState>): StoreState {
  return {
    version: 'version' in c ? c.version! : s.version,
    ts: 'ts' in c ? c.ts! : s.ts,
    markets: 'markets' in c ? c.markets! : s.markets,
    collateral: 'collateral' in c ? c.collateral! : s.collateral,
    lastReconcileAt: 'lastReconcileAt' in c ? c.lastReconcileAt! : s.lastReconcileAt,
    backoffUntil: 'backoffUntil' in c ? c.backoffUntil! : s.backoffUntil,
    venueCalls: 'venueCalls' in c ? c.venueCalls! : s.venueCalls,
    toxicityPool: 'toxicityPool' in c ? c.toxicityPool! : s.toxicityPool,
    memo: s.memo,
  };
}

/** The state after one more reduced event with these markets (the store's hot path, one literal). */
export function stateWithMarkets(
  s: StoreState,
  markets: ReadonlyMap<string, MarketState>,
  version: number,
  ts: number,
  toxicityPool: ToxicitySums = s.toxicityPool,
): StoreState {
  return {
    version,
    ts,
    markets,
    collateral: s.collateral,
    lastReconcileAt: s.lastReconcileAt,
    backoffUntil: s.backoffUntil,
    venueCalls: s.venueCalls,
    toxicityPool,
    memo: s.memo,
  };
}

export type { BookSnapshot };
