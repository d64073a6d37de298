/**
 * LimitOrder (integer units) → the unsigned POST /orders body, with the protocol defaults filled in
 * (docs/venue.md#encodings-and-enums): maxFee 1% of notional, expiry now + 365 days, a fresh CSPRNG nonce.
 */
import type { Address, Bytes32, LimitOrder, LimitOrderBody } from '../../model/order.ts';
import { defaultMaxFee } from './orderMapping.ts';
import { validateLimitOrder } from './validate.ts';

export const DEFAULT_EXPIRY_SECONDS = 31_536_000;

export type UnsignedLimitOrderBody = Omit<LimitOrderBody, 'signature'>;

export function buildLimitOrderBody(order: LimitOrder, trader: Address, nowSec: number, freshNonce: () => Bytes32): UnsignedLimitOrderBody {
  validateLimitOrder(order);
  const body: UnsignedLimitOrderBody = {
    type: 'limit',
    marketId: order.marketId,
    trader,
    price: String(order.price),
    size: String(order.size),
    outcomeIndex: order.outcomeIndex,
    side: order.side,
    nonce: order.nonce ?? freshNonce(),
    expiry: String(order.expiry ?? Math.floor(nowSec) + DEFAULT_EXPIRY_SECONDS),
    maxFee: String(order.maxFee ?? defaultMaxFee(order.price, order.size)),
    makerRoleConstraint: order.makerRole ?? 0,
    inventoryModeConstraint: order.inventoryMode ?? 0,
    timeInForce: order.timeInForce ?? 0,
  };
  if (order.buyValue !== undefined) body.buyValue = String(order.buyValue);
  if (order.clientOrderType !== undefined) body.clientOrderType = order.clientOrderType;
  return body;
}
