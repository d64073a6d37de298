/**
 * Reading a venue order back into the order manager's terms.
 *
 * Entry points: `filledShares(order)`, `remainingShares(order)`, `totalShares(order)` and `plannedFromVenue(order, fees)`.
 * The venue stores V2 buys with `size` = the all-in collateral budget and `filledSize`/`remainingSize`
 * in the same units (docs/venue.md#from-a-limit-order-to-a-v2-order); it rests such a buy for its
 * signed minSharesOut less the shares it has bought (src/exchange/v2-resting.ts, docs/books-and-pnl.md
 * "What rests of an order"), so a buy's remaining shares are its minSharesOut less its filled shares
 * (`v2BuyShares`), not the budget's unspent fraction of them. Sells and legacy orders carry shares directly.
 */
import type { VenueOrder } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';
import { v2BuyShares } from '../exchange/v2-resting.ts';

const isV2Buy = (o: VenueOrder): boolean => o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null;

/**
 * Shares filled so far. A V2 buy states its filled size as collateral spent, fee included: its shares
 * are src/exchange/v2-resting.ts v2BuyShares's (the fee model `fees`, and `arrival`: the budget units
 * its create answer showed filled, when known). Other orders state shares.
 */
export function filledShares(o: VenueOrder, fees: FeeSpec = NO_FEES, arrival?: number): number {
  if (isV2Buy(o)) return v2BuyShares(o, fees, arrival);
  return Math.max(0, o.size - o.remainingSize);
}

/** Shares the order rests with (see filledShares for `fees` and `arrival`). */
export function remainingShares(o: VenueOrder, fees: FeeSpec = NO_FEES, arrival?: number): number {
  if (isV2Buy(o)) return Math.max(0, totalShares(o) - v2BuyShares(o, fees, arrival));
  return o.remainingSize;
}

/** Shares an order was for: sells carry shares; V2 buys carry a collateral budget and minSharesOut. */
export function totalShares(o: VenueOrder): number {
  if (isV2Buy(o)) return Number(o.sv2MinSharesOut);
  return o.size;
}

/**
 * The order as if we had planned it: used when a found order is adopted into a slot. `fees`: the fee
 * model a V2 buy's filled budget is read with (see filledShares; without it, the fee paid counts as
 * shares bought, so what rests reads short by the fee over the price).
 */
export function plannedFromVenue(o: VenueOrder, fees: FeeSpec = NO_FEES): PlannedOrder {
  const kind = o.sv2OrderKind;
  return {
    marketId: o.marketId,
    outcomeIndex: o.outcomeIndex,
    side: o.side,
    price: o.price,
    size: remainingShares(o, fees),
    inventoryMode: kind === 2 ? 2 : kind === 1 ? 1 : 0,
    expiry: o.expiry,
    nonce: o.nonce,
  };
}
