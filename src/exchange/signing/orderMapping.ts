/**
 * The high-level limit order → Settlement V2 struct mapping (docs/venue.md#from-a-limit-order-to-a-v2-order, SDK
 * `legacyLimitOrderToSettlementV2Order`). The venue verifies a signature by rebuilding the struct from
 * the POST body with exactly this arithmetic, so the signer and the local exchange both call
 * `toSettlementV2Order` on the body: one code path, no drift.
 */
import { BadInputError } from '../../model/errors.ts';
import { InventoryMode, OrderKind, Side, type LimitOrderBody, type OrderKindValue, type SettlementV2Order } from '../../model/order.ts';
import { assertAddressShape, assertBytes32, assertEnum, toUint256 } from './hex.ts';

const ONE = 1_000_000n;
const ENUM01 = [0, 1] as const;
const ENUM012 = [0, 1, 2] as const;

/** Default fee cap, 1% of notional in USDC units: max(1, ⌊⌊P·S/100⌋/1e6⌋). */
export function defaultMaxFee(price: number, size: number): number {
  const ps = price * size;
  if (ps <= Number.MAX_SAFE_INTEGER) return Math.max(1, Math.floor(Math.floor(ps / 100) / 1e6));
  const fee = (BigInt(price) * BigInt(size)) / 100n / ONE;
  return Number(fee > 0n ? fee : 1n);
}

/** Buys are kind 0; a sell is SELL_NO_INVENTORY only with inventory mode 2, else SELL_INVENTORY. */
export function orderKindOf(side: number, inventoryMode: number): OrderKindValue {
  if (side === Side.BUY) return OrderKind.BUY;
  return inventoryMode === InventoryMode.REQUIRE_NO_INVENTORY ? OrderKind.SELL_NO_INVENTORY : OrderKind.SELL_INVENTORY;
}

/** The parts of a POST /orders body that the struct is built from (the signature is not needed). */
export type OrderBodyFields = Omit<LimitOrderBody, 'signature' | 'type'> & { type?: 'limit'; signature?: string };

/**
 * Rebuild the signed V2 struct from a limit-order POST body. Every field is checked (bodies reach the
 * local exchange from anywhere); a bad one gives a BadInputError naming it.
 */
export function toSettlementV2Order(body: OrderBodyFields): SettlementV2Order {
  if (body === null || typeof body !== 'object') throw new BadInputError('order', 'an object', body);
  // The "market" variant is signed differently (MarketOrderIntent, pre-migration); it never maps to this struct.
  if (body.type !== undefined && body.type !== 'limit') throw new BadInputError('type', '"limit"', body.type);
  const marketId = assertBytes32(body.marketId, 'marketId');
  const trader = assertAddressShape(body.trader, 'trader');
  const nonce = assertBytes32(body.nonce, 'nonce');
  const P = toUint256(body.price, 'price');
  if (P <= 0n || P >= ONE) throw new BadInputError('price', 'an integer strictly between 0 and 1000000 (0–100 cents)', body.price);
  const S = toUint256(body.size, 'size');
  if (S <= 0n) throw new BadInputError('size', 'a size above 0', body.size);
  const F = toUint256(body.maxFee, 'maxFee');
  const expiry = toUint256(body.expiry, 'expiry');
  const outcomeIndex = assertEnum(body.outcomeIndex, 'outcomeIndex', ENUM01);
  const side = assertEnum(body.side, 'side', ENUM01);
  const makerRoleConstraint = assertEnum(body.makerRoleConstraint, 'makerRoleConstraint', ENUM012);
  const inventoryMode = assertEnum(body.inventoryModeConstraint, 'inventoryModeConstraint', ENUM012);
  const timeInForce = body.timeInForce === undefined ? 0 : assertEnum(body.timeInForce, 'timeInForce', ENUM012);
  const B = body.buyValue === undefined ? undefined : toUint256(body.buyValue, 'buyValue');

  const orderKind = orderKindOf(side, inventoryMode);
  const ps = P * S;
  let maxShares = 0n;
  let minSharesOut = 0n;
  let maxCollateralIn = 0n;
  let minCollateralOut = 0n;
  if (orderKind === OrderKind.BUY) {
    const C = (ps + ONE - 1n) / ONE; // buyers pay the rounded-up notional
    minSharesOut = S;
    maxCollateralIn = (B ?? C) + F;
  } else {
    const C = ps / ONE; // sellers receive the rounded-down notional
    maxShares = S;
    if (orderKind === OrderKind.SELL_INVENTORY) minCollateralOut = C > F ? C - F : 0n;
    else maxCollateralIn = S - C + F; // S − C is what a no-inventory seller adds to mint complete sets
  }
  return {
    marketId,
    trader,
    maxShares,
    minSharesOut,
    maxCollateralIn,
    minCollateralOut,
    outcomeIndex,
    orderKind,
    nonce,
    expiry,
    maxFee: F,
    timeInForce,
    makerRoleConstraint,
  };
}
