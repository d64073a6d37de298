/**
 * Walk one outcome's side of the book as a taker would (pure; for the simulate endpoints): how much
 * fills within a limit price, at what cost, level by level. Prices and sizes in integer units.
 */
import { ONE } from '../model/units.ts';

export interface WalkLevel {
  price: number;
  size: number;
  orders: number;
}

export interface WalkStep {
  price: number;
  available: number;
  take: number;
  cumulative: number;
  /** collateral for `take` at `price` (ceil for buys, floor for sells) */
  cost: number;
  cumulativeCost: number;
  fee: number;
  cumulativeFee: number;
  orders: number;
}

export interface WalkResult {
  steps: WalkStep[];
  filled: number;
  cost: number;
  fees: number;
  /** liquidity within the limit price */
  liquidity: number;
  bestPrice: number | null;
  /** size-weighted average price in price units, 0 when nothing fills */
  avgPrice: number;
}

function ceilDiv(a: number, b: number): number {
  return Math.floor((a + b - 1) / b);
}

/**
 * `levels` best first: asks ascending for a buyer, bids descending for a seller. A buyer takes
 * levels priced ≤ limit, a seller levels priced ≥ limit. `maxSize` in size units (Infinity = all).
 */
export function walkBook(levels: readonly WalkLevel[], buy: boolean, limit: number, maxSize: number, feeBps: number): WalkResult {
  const steps: WalkStep[] = [];
  let filled = 0;
  let cost = 0;
  let fees = 0;
  let liquidity = 0;
  for (const l of levels) {
    if (buy ? l.price > limit : l.price < limit) break;
    liquidity += l.size;
    const take = Math.min(l.size, Math.max(0, maxSize - filled));
    if (take <= 0) continue;
    const c = buy ? ceilDiv(l.price * take, ONE) : Math.floor((l.price * take) / ONE);
    const fee = Math.floor((c * feeBps) / 10_000);
    filled += take;
    cost += c;
    fees += fee;
    steps.push({ price: l.price, available: l.size, take, cumulative: filled, cost: c, cumulativeCost: cost, fee, cumulativeFee: fees, orders: l.orders });
  }
  const avgPrice = filled > 0 ? Math.round((cost * ONE) / filled) : 0;
  return { steps, filled, cost, fees, liquidity, bestPrice: levels.length ? levels[0]!.price : null, avgPrice };
}

/** One outcome's taker-side levels from the YES-terms book. */
export function takerLevels(book: { bids: readonly WalkLevel[]; asks: readonly WalkLevel[] }, outcomeIndex: 0 | 1, buy: boolean): WalkLevel[] {
  if (outcomeIndex === 1) return [...(buy ? book.asks : book.bids)];
  // NO: buying NO takes YES bids (NO ask at 1−p); selling NO takes YES asks (NO bid at 1−p)
  return (buy ? book.bids : book.asks).map((l) => ({ price: ONE - l.price, size: l.size, orders: l.orders }));
}

/** Slippage of the average price against the best price, in basis points (≥ 0). */
export function slippageBps(w: WalkResult, buy: boolean): number {
  if (w.filled === 0 || w.bestPrice === null || w.bestPrice === 0) return 0;
  const d = buy ? w.avgPrice - w.bestPrice : w.bestPrice - w.avgPrice;
  return Math.max(0, Math.round((d / w.bestPrice) * 10_000));
}
