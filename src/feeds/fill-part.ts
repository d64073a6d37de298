/**
 * One new part of an order's fills, as the books record it, from two reads of the order: what the
 * books already hold of it (its filled shares and their collateral) and what the venue says now (its
 * filled size and the average price of all its fills). docs/books-and-pnl.md, "Price".
 *
 *   const p = fillPart(order, filledNow, { filled, cost }, fees)
 *   p.size, p.price, p.notional, p.fee    // the part: shares, its average price (rounded), collateral, model fee
 *   p.cost                                // the order's collateral the books hold after it (null: unknown)
 *
 * The venue states no price per fill, only the average over all of an order's fills (`avgFillPrice`,
 * 1e-6 USDC per share, rounded). A part at the order's own limit is what a resting order's fills are: when the
 * stated average allows it (what the books hold plus the part at the limit, over the shares, rounds to
 * the average), the part is settled there, as the venue settles a maker's fill (⌈p·n⌉ paid, ⌊p·n⌋
 * received: exact). Otherwise the order's collateral so far is the average × the filled shares,
 * rounded to the 1e-6 unit as the venue rounds (up for what a buy pays, down for what a sale receives); the new part's collateral is that total less what the books already hold
 * for the order: avg₂·filled₂ − avg₁·filled₁, with the rounding of each read carried into the next part,
 * so however the fills are split between reads, the order's parts add up to what its last average
 * states (within a unit per share of what it paid when that average is rounded). The fee role is
 * decided by how the part filled, not by its price: a part whose average is better than the order's
 * limit took liquidity, and so did the shares the order's create answer showed filled (`arrival`: it
 * crossed on arrival, at its own limit too); those are charged the taker rate of the fee model, the
 * fills of a resting order the maker rate. A read without an average (the recent-orders list states none), or one
 * that says something impossible (a part outside 0..1 USDC per share, or past the limit by more than
 * the average's rounding), prices the part at the order's own limit, as a maker's fill is.
 *
 * Money: collateral in the order's own outcome's terms (what a buy pays, a sale receives: a sale
 * without inventory pays the other side of its sets), 1e-6 USDC; a fill at a price pays ⌈p·n⌉ and
 * receives ⌊p·n⌋, as the venue settles it.
 */
import type { VenueOrder } from '../model/order.ts';
import { notionalCeil, notionalFloor, ONE } from '../model/units.ts';
import { feeFor } from '../engine/fill-math.ts';
import type { FeeSpec } from '../engine/fill-fee.ts';

/** What the books hold of one order: its filled shares and, when known, their collateral (1e-6 USDC, own outcome). */
export interface OrderAccounted {
  readonly filled: number;
  /** null: not known (fills from before the ledger met the order) */
  readonly cost: number | null;
}

export interface FillPart {
  /** 1e-6 shares */
  readonly size: number;
  /** the part's average price, rounded to 1e-6 (display; the books use `notional`) */
  readonly price: number;
  /** the part's collateral in its own outcome's terms, 1e-6 USDC (undefined: price × size at the limit) */
  readonly notional: number | undefined;
  /** the configured fee model's fee of the part, 1e-6 USDC */
  readonly fee: number;
  /** the order's collateral the books hold after this part (null: unknown) */
  readonly cost: number | null;
}

const SONE = BigInt(ONE);

/** Collateral of `n` shares at the order's own price `p`, as the venue settles it: a buy pays ⌈p·n⌉, a sale receives ⌊p·n⌋. */
export function legAt(side: number, p: number, n: number): number {
  return side === 0 ? notionalCeil(p, n) : notionalFloor(p, n);
}

/**
 * The order's collateral as the read states it, 1e-6 USDC: avg × filled rounded as the venue rounds
 * what changes hands (a buy pays ⌈…⌉, a sale receives ⌊…⌋); null when the read states no usable average.
 */
export function statedTotal(o: Pick<VenueOrder, 'avgFillPrice' | 'side'>, filled: number): number | null {
  const avg = o.avgFillPrice;
  if (avg === undefined || avg === null || !Number.isSafeInteger(avg) || avg <= 0 || avg >= ONE) return null;
  const x = BigInt(avg) * BigInt(filled);
  return Number(o.side === 0 ? (x + SONE - 1n) / SONE : x / SONE);
}

/**
 * The fee model's fee (1e-6 USDC) of `n` shares whose collateral in the order's own outcome is `own`:
 * basis points of what the order pays or receives (a sale without inventory pays the other side of
 * its sets, n − own, as the matching engine charges it: src/engine/fill-math.ts legAmount), at the taker
 * rate for an order that can only take or a part that took.
 */
function modelFeeOf(fees: FeeSpec, o: Pick<VenueOrder, 'sv2OrderKind'>, n: number, own: number, taker: boolean): number {
  const bps = taker ? fees.takerBps : fees.makerBps;
  const base = o.sv2OrderKind === 2 ? n - own : own;
  return base > 0 && bps > 0 ? feeFor(base, bps, Number.MAX_SAFE_INTEGER) : 0;
}

/** Is `total` (1e-6 USDC) for `filled` shares what an average of `avg` states (within its ½-unit rounding)? */
function consistent(total: number, filled: number, avg: number): boolean {
  const d = BigInt(total) * SONE - BigInt(avg) * BigInt(filled);
  return 2n * (d < 0n ? -d : d) <= BigInt(filled);
}

/**
 * The new part of `o`'s fills: `filled` shares now (the venue's), `before` what the books hold of it.
 * Call only when filled > before.filled.
 */
export function fillPart(o: VenueOrder, filled: number, before: OrderAccounted, fees: FeeSpec, arrival?: number): FillPart {
  const size = filled - before.filled;
  const own = legAt(o.side, o.price, size);
  const onlyTakes = o.sv2TimeInForce === 1 || o.sv2TimeInForce === 2;
  // of this part, the shares filled when the order arrived (it crossed: taker), whatever their price
  const arrived = onlyTakes ? size : Math.min(size, Math.max(0, (arrival ?? 0) - before.filled));
  // the collateral the books hold so far (a first part holds none)
  const held = before.filled === 0 ? 0 : before.cost;
  const total = held === null ? null : statedTotal(o, filled);
  // the part at the order's own limit, when the stated average allows it: a resting order's fills are
  // there, and the venue settles each at that price (exact)
  const atLimit = total === null || held === null || consistent(held + own, filled, o.avgFillPrice!);
  if (!atLimit && total !== null && held !== null) {
    const part = total - held;
    // the stated averages' rounding: at most ½ unit per share of each read, carried into this part
    const slack = Math.ceil(filled / ONE) + Math.ceil(before.filled / ONE) + 1;
    const plausible = part >= 0 && part <= size && (o.side === 0 ? part <= own + slack : part >= own - slack);
    if (plausible) {
      const took = o.side === 0 ? part < own : part > own;
      const price = Math.min(ONE - 1, Math.max(1, Math.round((part * ONE) / size)));
      const fee =
        took || arrived === size
          ? modelFeeOf(fees, o, size, part, true)
          : arrived === 0
            ? modelFeeOf(fees, o, size, part, false)
            : roleFee(fees, o, size, arrived);
      return { size, price, notional: part, fee, cost: total };
    }
  }
  return { size, price: o.price, notional: undefined, fee: roleFee(fees, o, size, arrived), cost: held === null ? null : held + own };
}

/**
 * The model fee of `size` shares at the order's limit of which `taker` were filled as it arrived
 * (crossing the book: the taker rate, at its own limit too), the rest while it rested (the maker rate).
 */
function roleFee(fees: FeeSpec, o: VenueOrder, size: number, taker: number): number {
  const rest = size - taker;
  return (
    (taker > 0 ? modelFeeOf(fees, o, taker, notionalFloor(o.price, taker), true) : 0) +
    (rest > 0 ? modelFeeOf(fees, o, rest, notionalFloor(o.price, rest), false) : 0)
  );
}
