/**
 * Engine orders from a high-level limit order, with the Settlement V2 limits the SDK would sign
 * (docs/venue.md#from-a-limit-order-to-a-v2-order): C = ⌈P·S⌉ for buys and ⌊P·S⌋ for sells, default maxFee
 * max(1, ⌊⌊P·S/100⌋/1e6⌋), buys capped at C + F, inventory sells floored at C − F, sells without
 * inventory capped at (S − C) + F.
 */
import type { SubmitOrder } from '../../engine/types.ts';
import { mulDivFloor, notionalCeil, notionalFloor } from '../../model/units.ts';

export interface AgentOrder {
  market: number;
  trader: number;
  outcome: 0 | 1;
  side: 'buy' | 'sell';
  /** price of `outcome`, 1e-6 units, on the tick */
  price: number;
  /** shares, 1e-6 units */
  size: number;
  /** sells: from inventory (default) or minting from collateral */
  mode?: 'inventory' | 'mint';
  timeInForce?: 0 | 1 | 2;
  marketOrder?: boolean;
  /** unix seconds, 0 = never */
  expiry?: number;
  nowMs: number;
}

export function defaultMaxFee(price: number, size: number): number {
  const f = Number(mulDivFloor(price, size, 100_000_000));
  return f > 1 ? f : 1;
}

export function toSubmitOrder(o: AgentOrder): SubmitOrder {
  const F = defaultMaxFee(o.price, o.size);
  const base = {
    market: o.market,
    trader: o.trader,
    outcome: o.outcome,
    price: o.price,
    maxFee: F,
    timeInForce: o.timeInForce ?? 0,
    expiry: o.expiry ?? 0,
    marketOrder: o.marketOrder ?? false,
    nowMs: o.nowMs,
  };
  if (o.side === 'buy') {
    return { ...base, kind: 0, maxShares: 0, minSharesOut: o.size, maxCollateralIn: notionalCeil(o.price, o.size) + F, minCollateralOut: 0 };
  }
  const C = notionalFloor(o.price, o.size);
  if (o.mode === 'mint') return { ...base, kind: 2, maxShares: o.size, minSharesOut: 0, maxCollateralIn: o.size - C + F, minCollateralOut: 0 };
  return { ...base, kind: 1, maxShares: o.size, minSharesOut: 0, maxCollateralIn: 0, minCollateralOut: C > F ? C - F : 0 };
}

/** Snap a probability-like YES price to the tick grid inside [tick, 1e6 − tick]. */
export function snapPrice(price: number, tick: number, round: 'down' | 'up' | 'nearest' = 'nearest'): number {
  const q = price / tick;
  const k = round === 'down' ? Math.floor(q) : round === 'up' ? Math.ceil(q) : Math.round(q);
  const max = 1_000_000 / tick - 1;
  return Math.min(max, Math.max(1, k)) * tick;
}
