/**
 * Normalised order book: integer price units (1e-6 USDC) and size units (1e-6 shares),
 * best level first. One side list per outcome view; the state store keeps YES terms.
 */
import type { Bytes32, OutcomeIndex } from './order.ts';

export interface BookLevel {
  price: number;
  size: number;
}

export interface BookSnapshot {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  /** descending by price */
  bids: BookLevel[];
  /** ascending by price */
  asks: BookLevel[];
  /** venue timestamp, ms since epoch (NaN-free; 0 when the venue gave none) */
  venueTs: number;
  /** stream sequence, when the book came from the stream */
  seq?: number;
  /**
   * set (true) by a backtest's replay when the book is the recording's alone, without the replayed
   * bot's own orders (a recording without the venue's drop copy); never set for a venue's book
   */
  withoutOwn?: boolean;
}

/**
 * How the venue's order-book numbers are read (docs/venue.md#endpoints units conflict).
 * - price 'auto': every price ≤ 1 and some fractional → dollars; every price ≤ 100 → cents; else 1e-6 units.
 * - size 'shares' (decimal shares) or 'micro' (1e-6 shares).
 */
export type BookPriceUnits = 'auto' | 'cents' | 'micro' | 'dollars';
export type BookSizeUnits = 'shares' | 'micro';
