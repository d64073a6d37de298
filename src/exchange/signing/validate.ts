/**
 * Checks of a LimitOrder before anything is signed ("Bad input"): every problem is a
 * BadInputError naming the field, so a wrong order is never signed silently.
 */
import { BadInputError } from '../../model/errors.ts';
import { MakerRole, Side, type LimitOrder } from '../../model/order.ts';
import { assertBytes32, assertEnum } from './hex.ts';

function assertSafeUint(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new BadInputError(field, 'a non-negative safe integer', v);
  return v;
}

export function validateLimitOrder(o: LimitOrder): void {
  if (o === null || typeof o !== 'object') throw new BadInputError('order', 'an object', o);
  assertBytes32(o.marketId, 'marketId');
  assertEnum(o.outcomeIndex, 'outcomeIndex', [0, 1]);
  assertEnum(o.side, 'side', [0, 1]);
  const price = assertSafeUint(o.price, 'price');
  if (price <= 0 || price >= 1_000_000) throw new BadInputError('price', 'an integer strictly between 0 and 1000000 (0–100 cents)', o.price);
  const size = assertSafeUint(o.size, 'size');
  if (size <= 0) throw new BadInputError('size', 'a size above 0', o.size);
  if (o.inventoryMode !== undefined) assertEnum(o.inventoryMode, 'inventoryMode', [0, 1, 2]);
  if (o.makerRole !== undefined) {
    // Two crossing MAKER_ONLY orders revert the settlement batch (InvalidRoleConstraint), so never sign one.
    if (o.makerRole === MakerRole.MAKER_ONLY) throw new BadInputError('makerRole', '0 (ANY) or 2 (TAKER_ONLY); MAKER_ONLY (1) is refused', o.makerRole);
    assertEnum(o.makerRole, 'makerRole', [0, 2]);
  }
  if (o.timeInForce !== undefined) assertEnum(o.timeInForce, 'timeInForce', [0, 1, 2]);
  if (o.buyValue !== undefined) {
    assertSafeUint(o.buyValue, 'buyValue');
    if (o.side !== Side.BUY) throw new BadInputError('buyValue', 'no buyValue on a sell (it only caps a buy budget)', o.buyValue);
  }
  if (o.maxFee !== undefined) assertSafeUint(o.maxFee, 'maxFee');
  if (o.expiry !== undefined) assertSafeUint(o.expiry, 'expiry');
  if (o.nonce !== undefined) assertBytes32(o.nonce, 'nonce');
  if (o.clientOrderType !== undefined && o.clientOrderType !== 'limit' && o.clientOrderType !== 'market') {
    throw new BadInputError('clientOrderType', '"limit" or "market"', o.clientOrderType);
  }
}
