/**
 * Build a ViewBook (YES terms) from sorted levels: the derived fields (best prices, mid,
 * microprice) are computed once here so every strategy reads the same numbers. Used by the state
 * store and by tests that construct views.
 */
import { microprice } from './fair-price.ts';
import type { ViewBook, ViewLevel } from './types.ts';

export function viewBook(bids: readonly ViewLevel[], asks: readonly ViewLevel[], venueTs: number, updatedAt: number, withoutOwn = false): ViewBook {
  const b = bids[0];
  const a = asks[0];
  const both = b !== undefined && a !== undefined;
  if (withoutOwn) {
    return {
      bids,
      asks,
      bestBid: b?.price ?? null,
      bestAsk: a?.price ?? null,
      mid: both ? (b.price + a.price) / 2 : null,
      microprice: both ? microprice(b.price, b.size, a.price, a.size) : null,
      venueTs,
      updatedAt,
      withoutOwn: true,
    };
  }
  return {
    bids,
    asks,
    bestBid: b?.price ?? null,
    bestAsk: a?.price ?? null,
    mid: both ? (b.price + a.price) / 2 : null,
    microprice: both ? microprice(b.price, b.size, a.price, a.size) : null,
    venueTs,
    updatedAt,
  };
}
