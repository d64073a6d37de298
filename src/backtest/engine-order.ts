/**
 * The bot's planned order as the matching engine takes it: the Settlement V2 limits the live signer
 * would sign (docs/venue.md#from-a-limit-order-to-a-v2-order, the arithmetic of src/exchange/signing/orderMapping.ts), so a backtest
 * reserves, caps and voids exactly as the venue would. Checked against `toSettlementV2Order` in
 * test/backtest/engine-order.test.ts.
 *
 *   BUY                minSharesOut = S, maxCollateralIn = (buyValue ?? ⌈P·S⌉) + F
 *   SELL_INVENTORY     maxShares = S, minCollateralOut = max(0, ⌊P·S⌋ − F)
 *   SELL_NO_INVENTORY  maxShares = S, maxCollateralIn = S − ⌊P·S⌋ + F
 * with F = maxFee (default 1% of notional). An absent expiry is "never" (the live default of a year
 * ahead never matters inside a backtest).
 */
import type { SubmitOrder } from '../engine/types.ts';
import { defaultMaxFee, orderKindOf } from '../exchange/signing/orderMapping.ts';
import { OrderKind } from '../model/order.ts';
import { notionalCeil, notionalFloor } from '../model/units.ts';
import type { PlannedOrder } from '../model/venue.ts';

export function toEngineOrder(p: PlannedOrder, market: number, trader: number, nowMs: number): SubmitOrder {
  const kind = orderKindOf(p.side, p.inventoryMode ?? 0);
  const fee = p.maxFee ?? defaultMaxFee(p.price, p.size);
  let maxShares = 0;
  let minSharesOut = 0;
  let maxCollateralIn = 0;
  let minCollateralOut = 0;
  if (kind === OrderKind.BUY) {
    minSharesOut = p.size;
    maxCollateralIn = (p.buyValue ?? notionalCeil(p.price, p.size)) + fee;
  } else {
    maxShares = p.size;
    const c = notionalFloor(p.price, p.size);
    if (kind === OrderKind.SELL_INVENTORY) minCollateralOut = Math.max(0, c - fee);
    else maxCollateralIn = p.size - c + fee;
  }
  return {
    market,
    trader,
    outcome: p.outcomeIndex,
    kind,
    price: p.price,
    maxShares,
    minSharesOut,
    maxCollateralIn,
    minCollateralOut,
    maxFee: fee,
    timeInForce: p.timeInForce ?? 0,
    makerRole: p.makerRole ?? 0,
    expiry: p.expiry ?? 0,
    marketOrder: p.clientOrderType === 'market',
    nowMs,
  };
}
