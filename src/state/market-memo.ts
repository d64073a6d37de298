/**
 * The derived pieces of one market remembered between ticks (its view book, quote list, view
 * position, PnL, account contribution, markouts, others' book, volatility), held by the market's
 * own state.
 *
 * Entry point: `new MarketMemo()` (emptyMarket makes one per market; every copy of a MarketState
 * made by the reducer carries the same one). Owners of the fields: src/state/market-view.ts,
 * src/state/edge-view.ts, src/strategy/others-book.ts and src/strategy/volatility.ts (through the
 * view's `memo`).
 *
 * Why here: the memo lives and dies with the market's state (docs/architecture.md#who-owns-per-market-state).
 * When a market leaves the store (released flat, or reduced to its position record, which starts
 * with a fresh memo), nothing it derived stays behind: no process-wide table keyed by market id,
 * nothing to forget by hand. A lookup is one property read, no hashing.
 *
 * Each field is checked by the identity of the immutable object it derives from, so a memo shared
 * by two states of one lineage (a test forking a store) only recomputes, never confuses.
 * Not part of the market's value: `toJSON` leaves it out of any serialised state.
 */
import type { ViewBook, ViewMarkout, ViewMemo, ViewPnl, ViewPosition, WorkingQuote } from '../strategy/types.ts';
import type { MarketBooks } from './book-state.ts';
import type { EdgeState, ToxicitySums } from './edge-state.ts';
import type { PositionState } from './position.ts';

/** One market's share of the account totals (src/state/market-view.ts contributionOf). */
export interface Contribution {
  /** the store's PnL of the market; 0 when the account's books give the PnL */
  readonly pnl: bigint;
  readonly position: number;
  readonly notional: number;
}

/** Slot names of own orders → the level they name (-1: not one of ours); bounded per market. */
export const SLOT_LEVELS_MAX = 1024;

export class MarketMemo implements ViewMemo {
  // ---- src/state/market-view.ts ----
  /** the books `book` was built from */
  books: MarketBooks | null = null;
  book: ViewBook | null = null;
  /** the market's own-orders map `quotes` was built from (compared by identity) */
  orders: object | null = null;
  quotes: WorkingQuote[] = [];
  /** the level each own order's slot names (parsed once per slot name) */
  slotLevels: Map<string, number> | null = null;
  /** the position `viewPosition` was built from */
  vpPosition: PositionState | null = null;
  viewPosition: ViewPosition | null = null;
  /** PnL of `pnlPosition` marked at `pnlMark2` */
  pnlPosition: PositionState | null = null;
  pnlMark2: number | null = null;
  realised = 0n;
  unrealised = 0n;
  /** the view's PnL (numbers) of the figures (realised, unrealised), 1e-6 USDC */
  vpRealised = 0n;
  vpUnrealised = 0n;
  viewPnl: ViewPnl | null = null;
  /** the account contribution of (cPosition, cOrders, cMark2) */
  cPosition: PositionState | null = null;
  cOrders: object | null = null;
  cMark2: number | null = null;
  /** the contribution carries the store's PnL (no books: src/state/market-view.ts contributionOf) */
  cWithPnl = false;
  contribution: Contribution | null = null;
  /** the books (the account, compared by identity) and their version cPosition was read from */
  cBooks: object | null = null;
  cVersion = -1;
  /** the account's pool without this market's share (poolWithout) of (restPool, restOwn, restHalfLife) */
  restPool: ToxicitySums | null = null;
  restOwn: ToxicitySums | null = null;
  restHalfLife = 0;
  rest: ToxicitySums | null = null;
  // ---- src/state/edge-view.ts ----
  /** the markout sums `markouts` was built from */
  markoutSums: EdgeState['markouts'] | null = null;
  markouts: readonly ViewMarkout[] = [];
  // ---- src/strategy/others-book.ts ----
  others: ViewMemo['others'] = null;
  // ---- src/strategy/volatility.ts ----
  sigma: ViewMemo['sigma'] = null;

  /** Derived, not state: left out of JSON. */
  toJSON(): undefined {
    return undefined;
  }
}
