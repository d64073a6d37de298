/**
 * Snapping YES-terms prices to a market's tick. Bids round down and asks round up: rounding toward
 * less aggressive prices never turns a passive quote into a taker. The result is clamped into
 * [tick, 1e6 − tick], the only prices the venue accepts for a binary outcome.
 */
import { ONE } from '../model/units.ts';

export function snapPrice(price: number, side: 'bid' | 'ask', tick: number): number {
  const lo = tick;
  const hi = maxPrice(tick);
  const units = side === 'bid' ? Math.floor(price / tick) : Math.ceil(price / tick);
  const snapped = units * tick;
  return Math.min(hi, Math.max(lo, snapped));
}

/** The highest price on the tick grid that is at most 1e6 − tick. */
export function maxPrice(tick: number): number {
  return Math.floor((ONE - tick) / tick) * tick;
}

/** true when p is on the tick grid and inside [tick, 1e6 − tick]. */
export function isOnGrid(price: number, tick: number): boolean {
  return Number.isSafeInteger(price) && price % tick === 0 && price >= tick && price <= maxPrice(tick);
}
