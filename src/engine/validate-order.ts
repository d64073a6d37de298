/**
 * Entry checks of a submitted order that need only the order and its market's rules (balances are
 * checked by the engine). Returns the first problem as a Rejection naming the field, or null.
 */
import { ONE as ONE_IMPORTED } from '../model/units.ts';

const ONE = ONE_IMPORTED;
const KIND_BUY = 0;
import type { MarketConfig, RejectCode, Rejection, SubmitOrder } from './types.ts';

/** Largest share quantity of one order (1e9 shares), so level aggregates stay exact integers. */
export const MAX_ORDER_SHARES = 1e15;

export function reject(code: RejectCode, field: string, message: string): Rejection {
  return { ok: false, code, field, message };
}

function isUint(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function badAmount(field: string): Rejection {
  return reject('BAD_INPUT', field, `${field} must be a non-negative safe integer`);
}

export function validateOrder(o: SubmitOrder, cfg: MarketConfig): Rejection | null {
  return validateOrderFields(
    o.outcome,
    o.kind,
    o.price,
    o.maxShares,
    o.minSharesOut,
    o.maxCollateralIn,
    o.minCollateralOut,
    o.maxFee,
    o.timeInForce,
    o.makerRole,
    o.expiry,
    o.nowMs,
    cfg,
  );
}

/**
 * `validateOrder` on fields the caller has read once: the engine's callers pass orders of several
 * object shapes, and every property load of such an object is a polymorphic lookup.
 */
export function validateOrderFields(
  outcome: unknown,
  kind: unknown,
  price: number,
  maxShares: number,
  minSharesOut: number,
  maxCollateralIn: number,
  minCollateralOut: number,
  maxFee: number,
  timeInForce: unknown,
  makerRole: unknown,
  expiry: number | undefined,
  nowMs: number,
  cfg: MarketConfig,
): Rejection | null {
  if (outcome !== 0 && outcome !== 1) return reject('BAD_INPUT', 'outcome', 'outcome must be 0 (NO) or 1 (YES)');
  if (kind !== 0 && kind !== 1 && kind !== 2) return reject('BAD_INPUT', 'kind', 'kind must be 0, 1 or 2');
  if (!isUint(price)) return reject('BAD_INPUT', 'price', 'price must be a non-negative safe integer');
  const tick = cfg.tick;
  if (price < tick || price > ONE - tick) {
    return reject('PRICE_OUT_OF_RANGE', 'price', `price must be within [${tick}, ${ONE - tick}]`);
  }
  // on the tick iff price / tick is whole: an integer `%` compiles to a slow idiv, a float division
  // does not, and it is exact here (price ≤ 1e6, tick ≥ 100: a non-whole quotient is ≥ 1e-4 from
  // the nearest integer, far beyond rounding)
  const q = price / tick;
  if (Math.floor(q) !== q) return reject('OFF_TICK', 'price', `price must be a multiple of the tick ${tick}`);
  // explicit checks rather than a loop over field names: keyed loads are slow on the hot path
  if (!isUint(maxShares)) return badAmount('maxShares');
  if (!isUint(minSharesOut)) return badAmount('minSharesOut');
  if (!isUint(maxCollateralIn)) return badAmount('maxCollateralIn');
  if (!isUint(minCollateralOut)) return badAmount('minCollateralOut');
  if (!isUint(maxFee)) return badAmount('maxFee');
  const tif = timeInForce ?? 0;
  if (tif !== 0 && tif !== 1 && tif !== 2) return reject('BAD_INPUT', 'timeInForce', 'timeInForce must be 0, 1 or 2');
  const role = makerRole ?? 0;
  if (role !== 0 && role !== 1 && role !== 2) return reject('BAD_INPUT', 'makerRole', 'makerRole must be 0, 1 or 2');
  if (expiry !== undefined && !isUint(expiry)) return reject('BAD_INPUT', 'expiry', 'expiry must be unix seconds');
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs) || nowMs < 0) {
    return reject('BAD_INPUT', 'nowMs', 'nowMs must be a finite non-negative number');
  }
  const qtyField = kind === KIND_BUY ? 'minSharesOut' : 'maxShares';
  const qty = kind === KIND_BUY ? minSharesOut : maxShares;
  if (qty < cfg.minOrderSize) return reject('BELOW_MIN_ORDER_SIZE', qtyField, `${qtyField} must be at least ${cfg.minOrderSize}`);
  if (qty > MAX_ORDER_SHARES) return reject('BAD_INPUT', qtyField, `${qtyField} must be at most ${MAX_ORDER_SHARES}`);
  if (kind !== 1 && maxCollateralIn === 0) return reject('BAD_INPUT', 'maxCollateralIn', 'maxCollateralIn must be above 0');
  if (expiry && expiry * 1000 <= nowMs) return reject('EXPIRED', 'expiry', 'expiry has already passed');
  return null;
}

/** Market rules are checked when a market is added; a bad config is a typed refusal, not a crash. */
export function validateMarketConfig(c: MarketConfig): Rejection | null {
  if (!isUint(c.tick) || c.tick < 100 || ONE % c.tick !== 0 || c.tick >= ONE / 2) {
    return reject('BAD_INPUT', 'tick', 'tick must divide 1e6, be at least 100 and below 5e5');
  }
  if (!isUint(c.minOrderSize) || c.minOrderSize < 1) return reject('BAD_INPUT', 'minOrderSize', 'minOrderSize must be a positive integer');
  if (!isUint(c.minFillSize) || c.minFillSize < 1 || c.minFillSize > c.minOrderSize) {
    return reject('BAD_INPUT', 'minFillSize', 'minFillSize must be a positive integer no larger than minOrderSize');
  }
  if (!isUint(c.makerFeeBps) || c.makerFeeBps > 10_000) return reject('BAD_INPUT', 'makerFeeBps', 'makerFeeBps must be within [0, 10000]');
  if (!isUint(c.takerFeeBps) || c.takerFeeBps > 10_000) return reject('BAD_INPUT', 'takerFeeBps', 'takerFeeBps must be within [0, 10000]');
  return null;
}
