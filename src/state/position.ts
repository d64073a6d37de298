/**
 * Position and PnL arithmetic for one market, exact in integers.
 *
 * Entry points: `applyFill(pos, fill)`, `unrealisedScaled(pos, markTimes2)`, `toMicro(scaled)`,
 * `realisedAtPayout(pos, payoutYes)` / `settleAt(pos, payoutYes)` (a resolved market).
 *
 * Everything is kept in YES terms: buying NO at p is selling YES at 1e6 − p plus buying a complete
 * set, and a complete set is always worth exactly 1 USDC, so the YES-terms net (yes − no) carries
 * all the outcome risk and all the PnL. Money is tracked "scaled" = price units × size units
 * (1e-12 USDC) as bigint, so average cost never rounds: when a reduction removes a fraction of the
 * cost basis the integer division's remainder stays in the basis, and a position closed to zero
 * has realised exactly the sum of its cash flows.
 */
import type { OutcomeIndex, SideValue } from '../model/order.ts';
import { ONE } from '../model/units.ts';

export interface PositionState {
  /** shares held, 1e-6 */
  readonly yes: number;
  readonly no: number;
  /** YES-terms net position, 1e-6 shares (signed) */
  readonly net: number;
  /** cost of the open net position, scaled (price × size), same sign as net */
  readonly basis: bigint;
  /** realised PnL net of fees, scaled (price × size) */
  readonly realised: bigint;
  /** fees paid, 1e-6 USDC */
  readonly fees: bigint;
  /** traded notional, scaled */
  readonly volume: bigint;
  readonly fills: number;
}

export const FLAT: PositionState = { yes: 0, no: 0, net: 0, basis: 0n, realised: 0n, fees: 0n, volume: 0n, fills: 0 };

export interface FillTerms {
  readonly outcomeIndex: OutcomeIndex;
  readonly side: SideValue;
  /** the venue order's price in its own outcome's terms */
  readonly price: number;
  readonly size: number;
  /** 1e-6 USDC */
  readonly fee: number;
  /** the venue order's kind when known (2: a sale without inventory mints every share it sells) */
  readonly orderKind?: 0 | 1 | 2 | undefined;
  /**
   * the fill's collateral in its own outcome's terms, 1e-6 USDC, when the venue stated it and it is not
   * price × size (a part of an order that filled at several prices: docs/books-and-pnl.md, "Price");
   * absent: price × size
   */
  readonly notional?: number | undefined;
}

/** The fill as a signed YES-terms trade: quantity (+ buys YES exposure) and YES price. */
export function yesTermsTrade(f: FillTerms): { qty: number; price: number } {
  const buyYes = (f.outcomeIndex === 1) === (f.side === 0);
  return { qty: buyYes ? f.size : -f.size, price: f.outcomeIndex === 1 ? f.price : ONE - f.price };
}

/**
 * Holdings after a fill. Selling more of an outcome than is held means the venue minted complete
 * sets for the excess (sell without inventory), which leaves us holding the other outcome. A sale
 * whose order kind says "without inventory" (2) mints every share, whatever is held: the venue
 * settles by the order's kind.
 */
function holdingsAfter(pos: PositionState, f: FillTerms): { yes: number; no: number } {
  let held = f.outcomeIndex === 1 ? pos.yes : pos.no;
  let other = f.outcomeIndex === 1 ? pos.no : pos.yes;
  if (f.side === 0) held += f.size;
  else {
    const fromInventory = f.orderKind === 2 ? 0 : Math.min(Math.max(held, 0), f.size);
    held -= fromInventory;
    other += f.size - fromInventory;
  }
  return f.outcomeIndex === 1 ? { yes: held, no: other } : { yes: other, no: held };
}

const SONE = BigInt(ONE);

/** The fill's value in YES terms, scaled (price × size): `notional` when stated, else YES price × size. */
function yesValueScaled(f: FillTerms, qty: number, price: number): bigint {
  if (f.notional === undefined) return BigInt(qty < 0 ? -qty : qty) * BigInt(price);
  const own = BigInt(f.notional) * SONE;
  // a NO share is a complete set (1 USDC) less a YES share
  return f.outcomeIndex === 1 ? own : BigInt(f.size) * SONE - own;
}

export function applyFill(pos: PositionState, f: FillTerms): PositionState {
  const { qty, price } = yesTermsTrade(f);
  const { yes, no } = holdingsAfter(pos, f);
  let net = BigInt(pos.net);
  let basis = pos.basis;
  let realised = pos.realised - BigInt(f.fee) * SONE;
  let q = BigInt(qty);
  const absQ0 = q < 0n ? -q : q;
  // the value of the shares not yet accounted for (all of them, then what is left after a reduction)
  let value = yesValueScaled(f, qty, price);
  if (net !== 0n && net > 0n !== q > 0n) {
    const absNet = net < 0n ? -net : net;
    const absQ = absQ0;
    const closing = absQ < absNet ? absQ : absNet;
    const sign = net > 0n ? 1n : -1n;
    const removed = (basis * closing) / absNet;
    // the closed shares' share of the fill's value (all of it when the fill only reduces)
    const exit = closing === absQ0 ? value : (value * closing) / absQ0;
    realised += sign * exit - removed;
    basis -= removed;
    net -= sign * closing;
    q += sign * closing;
    value -= exit;
  }
  if (q !== 0n) {
    basis += q > 0n ? value : -value;
    net += q;
  }
  return {
    yes,
    no,
    net: Number(net),
    basis,
    realised,
    fees: pos.fees + BigInt(f.fee),
    volume: pos.volume + (f.notional === undefined ? BigInt(f.size) * BigInt(f.price) : BigInt(f.notional) * SONE),
    fills: pos.fills + 1,
  };
}

/**
 * Replace the holdings with the venue's figures (a position sync). The average cost per share is
 * kept: the basis is rescaled to the new net, so unexplained differences do not invent PnL.
 */
export function syncHoldings(pos: PositionState, yes: number, no: number): PositionState {
  const net = yes - no;
  if (net === pos.net && yes === pos.yes && no === pos.no) return pos;
  const basis = pos.net === 0 || Math.sign(net) !== Math.sign(pos.net) ? 0n : (pos.basis * BigInt(net)) / BigInt(pos.net);
  return { ...pos, yes, no, net, basis };
}

/** Unrealised PnL, scaled, marking the net at `mark2 / 2` (twice the mark, so a half-unit mid stays exact). */
export function unrealisedScaled(pos: PositionState, mark2: number): bigint {
  return (BigInt(pos.net) * BigInt(mark2)) / 2n - pos.basis;
}

/**
 * The realised PnL, scaled, once the market resolved with one YES share paying `payoutYes` (1e-6
 * USDC): the open net position closed at the payout (exact: the payout is a whole price unit).
 */
export function realisedAtPayout(pos: PositionState, payoutYes: number): bigint {
  return pos.realised + unrealisedScaled(pos, payoutYes * 2);
}

/**
 * The position after its market resolved and its tokens paid out: nothing held, the payout realised
 * (realisedAtPayout); fills, fees and volume kept (docs/books-and-pnl.md: realised, resolutions).
 */
export function settleAt(pos: PositionState, payoutYes: number): PositionState {
  return { ...pos, yes: 0, no: 0, net: 0, basis: 0n, realised: realisedAtPayout(pos, payoutYes) };
}

/** Scaled (1e-12 USDC) → 1e-6 USDC, rounding toward −∞ so PnL is never overstated. */
export function toMicro(scaled: bigint): bigint {
  const d = BigInt(ONE);
  const q = scaled / d;
  return scaled % d !== 0n && scaled < 0n ? q - 1n : q;
}

/** Average entry of the net position in YES price units (float: for display and strategies). */
export function averageEntry(pos: PositionState): number | null {
  return pos.net === 0 ? null : Number(pos.basis) / pos.net;
}
