/**
 * Fair-price reference from the view's YES-terms book. Floats are fine: the result feeds model
 * maths and is snapped to the tick before it becomes a price.
 */
import type { ViewBook } from './types.ts';

export type FairSource = 'mid' | 'microprice';

/** The chosen reference, falling back to mid when the microprice is missing; null on a one-sided book. */
export function fairPrice(book: ViewBook | null, source: FairSource): number | null {
  if (!book) return null;
  if (source === 'microprice' && book.microprice !== null) return book.microprice;
  return book.mid;
}

/** Size-weighted mid of a top of book, for stores and tests that build views. */
export function microprice(bid: number, bidSize: number, ask: number, askSize: number): number {
  const total = bidSize + askSize;
  if (total <= 0) return (bid + ask) / 2;
  // more size on the bid means buyers are heavier: the fair price leans toward the ask
  return (bid * askSize + ask * bidSize) / total;
}
