/**
 * What a Settlement V2 order rests with at the venue once part of it has filled, in the venue's terms
 * (docs/books-and-pnl.md, "What rests of an order"). One function each, used by the own-orders feed,
 * the order manager's reading of a venue order (src/orders/venue-order-shares.ts), the store's
 * reserved collateral (src/state/market-view.ts) and the ledger's catch-up:
 *
 *   signedBudget(o)                    // maxCollateralIn as signed (docs/venue.md): buys ⌈P·S⌉ + F, sales without inventory (S − ⌊P·S⌋) + F
 *   spentBy(fill)                      // the budget units one fill spends: what it pays, fee included
 *   restingOf(o, filled, spent)        // { shares: S − filled, collateral: budget − spent }
 *   v2BuyShares(order, fees, arrival)  // a V2 buy's filled shares from a read of it (its filled size is budget spent)
 *
 * The venue rests a V2 buy for its signed minSharesOut less the shares it has bought, at its limit,
 * and keeps the budget it has not spent reserved (a taker part at a better price leaves its price
 * improvement reserved until the order ends). So what rests is not the budget's unspent fraction of
 * the shares: a part that took at a better price, plus its fee, spends less of the budget per share
 * than the limit and the fee cap do.
 */
import { notionalCeil, notionalFloor, ONE } from '../model/units.ts';
import type { VenueOrder } from '../model/order.ts';
import { feeFor } from '../engine/fill-math.ts';
import type { FeeSpec } from '../engine/fee-model.ts';
import { defaultMaxFee } from './signing/orderMapping.ts';

const SONE = BigInt(ONE);

/** An order as planned: its limit, shares and fee cap (absent: the default the signer uses). */
export interface BudgetOrder {
  readonly side: number;
  readonly inventoryMode?: number;
  readonly price: number;
  readonly size: number;
  readonly maxFee?: number;
}

/** Does the order pay collateral in (a buy, or a sale without inventory: it mints the sets it sells)? */
export function paysIn(o: Pick<BudgetOrder, 'side' | 'inventoryMode'>): boolean {
  return o.side === 0 || o.inventoryMode === 2;
}

/**
 * The order's signed maxCollateralIn, 1e-6 USDC: a buy ⌈P·S⌉ + F, a sale without inventory
 * (S − ⌊P·S⌋) + F, a sale from inventory 0; F its fee cap (the signer's default when not set).
 * The arithmetic of src/exchange/signing/orderMapping.ts toSettlementV2Order.
 */
export function signedBudget(o: BudgetOrder): number {
  if (!paysIn(o)) return 0;
  const fee = o.maxFee ?? defaultMaxFee(o.price, o.size);
  return (o.side === 0 ? notionalCeil(o.price, o.size) : o.size - notionalFloor(o.price, o.size)) + fee;
}

/**
 * The budget units one fill of order `o` spends: a buy pays its collateral (`notional`, or ⌈p·n⌉ at
 * the fill's `price` when not stated) and the fee; a sale without inventory pays the other side of the
 * sets it mints (n − what it receives) and the fee. 0 for a sale from inventory.
 */
export function spentBy(
  o: Pick<BudgetOrder, 'side' | 'inventoryMode'>,
  f: { price: number; size: number; notional?: number | undefined; fee: number },
): number {
  if (o.side === 0) return (f.notional ?? notionalCeil(f.price, f.size)) + f.fee;
  if (o.inventoryMode === 2) return f.size - (f.notional ?? notionalFloor(f.price, f.size)) + f.fee;
  return 0;
}

/**
 * What the order rests with at the venue after `filled` of its shares for `spent` budget units: the
 * rest of its shares at its limit, and the budget it has not spent still reserved (a sale from
 * inventory reserves tokens, not collateral: 0).
 */
export function restingOf(o: BudgetOrder, filled: number, spent: number): { shares: number; collateral: number } {
  return { shares: Math.max(0, o.size - filled), collateral: paysIn(o) ? Math.max(0, signedBudget(o) - spent) : 0 };
}

/**
 * The collateral in `spent` units of a V2 buy's budget (collateral and fee: docs/venue.md) at a fee
 * rate: the most `c` with c + fee(c) ≤ spent, the fee rounded up as the matching engine charges it.
 */
export function collateralOfSpent(spent: number, bps: number): number {
  if (spent <= 0) return 0;
  if (bps <= 0) return spent;
  let c = Number((BigInt(spent) * 10_000n) / BigInt(10_000 + bps));
  while (c > 0 && c + feeFor(c, bps, Number.MAX_SAFE_INTEGER) > spent) c--;
  while (c + 1 + feeFor(c + 1, bps, Number.MAX_SAFE_INTEGER) <= spent) c++;
  return c;
}

/** The read's average fill price when a buy can have paid it (1..its limit), else null. */
function buyAverage(o: Pick<VenueOrder, 'avgFillPrice' | 'price'>): number | null {
  const a = o.avgFillPrice;
  return a !== undefined && a !== null && Number.isSafeInteger(a) && a > 0 && a <= o.price ? a : null;
}

/**
 * Shares a V2 buy has filled so far (1e-6). The venue states a V2 buy's `filledSize` in its budget's
 * units: collateral spent, the fee included (docs/venue.md), so the shares are the collateral (the
 * filled size less the fee) over the price paid. Exact when the order is filled whole (its signed
 * minSharesOut). Otherwise:
 * - the fee is the fee model's: the taker rate for what took liquidity (an order that can only take;
 *   the budget units `arrival` the create answer showed filled, when known; else the whole filled size
 *   when the stated average is better than the limit), the maker rate for the rest;
 * - the price is the read's average fill price when it states one, else the order's limit (a resting
 *   buy's fills are there).
 * So the shares are exact to the average's rounding (½ unit per share over the average) when the fee
 * model is the venue's and the roles are known, and bounded otherwise: docs/books-and-pnl.md, "Shares
 * of a buy". The tracker reports the change of this figure, so the order's parts add up to its
 * minSharesOut once it is filled.
 */
export function v2BuyShares(o: VenueOrder, fees: FeeSpec, arrival?: number): number {
  const total = Number(o.sv2MinSharesOut ?? 0);
  if (o.status === 'filled') return total;
  const spent = o.filledSize;
  if (spent <= 0 || o.price <= 0) return 0;
  const avg = buyAverage(o);
  const onlyTakes = o.sv2TimeInForce === 1 || o.sv2TimeInForce === 2;
  const took = onlyTakes ? spent : arrival !== undefined ? Math.min(spent, Math.max(0, arrival)) : avg !== null && avg < o.price ? spent : 0;
  const coll = collateralOfSpent(took, fees.takerBps) + collateralOfSpent(spent - took, fees.makerBps);
  const at = BigInt(avg ?? o.price);
  return Math.min(total, Number((BigInt(coll) * SONE + at / 2n) / at));
}
