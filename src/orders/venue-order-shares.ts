/**
 * Reading a venue order back into the order manager's terms.
 *
 * Entry points: `remainingShares(order)`, `totalShares(order)` and `plannedFromVenue(order)`.
 * The venue stores V2 buys with `size` = the all-in collateral budget and `remainingSize` in the
 * same units (docs/venue.md#from-a-limit-order-to-a-v2-order), so a buy's remaining shares are its signed minSharesOut scaled by
 * the unspent fraction of the budget. Sells and legacy orders carry shares directly.
 */
import type { VenueOrder } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';

export function remainingShares(o: VenueOrder): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null && o.size > 0) {
    return Number((o.sv2MinSharesOut * BigInt(o.remainingSize)) / BigInt(o.size));
  }
  return o.remainingSize;
}

/** Shares an order was for: sells carry shares; V2 buys carry a collateral budget and minSharesOut. */
export function totalShares(o: VenueOrder): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null) return Number(o.sv2MinSharesOut);
  return o.size;
}

/** The order as if we had planned it: used when a found order is adopted into a slot. */
export function plannedFromVenue(o: VenueOrder): PlannedOrder {
  const kind = o.sv2OrderKind;
  return {
    marketId: o.marketId,
    outcomeIndex: o.outcomeIndex,
    side: o.side,
    price: o.price,
    size: remainingShares(o),
    inventoryMode: kind === 2 ? 2 : kind === 1 ? 1 : 0,
    expiry: o.expiry,
    nonce: o.nonce,
  };
}
