/**
 * Pure per-fill arithmetic of the matching engine: each party's collateral leg, its fee, and the
 * largest fill its signed V2 limits allow. Everything is an exact safe integer; products that can
 * leave the safe range fall back to bigint.
 */
import { ONE as ONE_IMPORTED, notionalCeil as ceilImported, notionalFloor as floorImported } from '../model/units.ts';

// Module-local copies: under the tsx loader an imported binding can be a getter call per use,
// which is measurable on the matching hot path.
const ONE = ONE_IMPORTED;
const notionalCeil = ceilImported;
const notionalFloor = floorImported;

export const KIND_BUY = 0;
export const KIND_SELL_INVENTORY = 1;
export const KIND_SELL_NO_INVENTORY = 2;

/** The price of `outcome` when the YES-terms book trades at `x`. */
export function ownPrice(outcome: number, x: number): number {
  return outcome === 1 ? x : ONE - x;
}

/**
 * Collateral leg of one party for `n` shares at its own-outcome price `q`: what a BUY pays
 * (⌈q·n⌉), what a SELL_NO_INVENTORY pays (⌈(1−q)·n⌉, the other side of the complete set it mints),
 * what a SELL_INVENTORY receives (⌊q·n⌋). Payers round up and receivers down, so the venue never
 * pays out collateral it did not take in.
 */
export function legAmount(kind: number, q: number, n: number): number {
  const price = kind === KIND_SELL_NO_INVENTORY ? ONE - q : q;
  const p = price * n;
  // the common case inline; products beyond 2^53 take the exact bigint path of units.ts
  if (p > Number.MAX_SAFE_INTEGER) return kind === KIND_SELL_INVENTORY ? notionalFloor(price, n) : notionalCeil(price, n);
  // a float `%` is a slow runtime call in V8; the division is exact enough instead: p < 2^53 puts
  // p / 1e6 below 2^34, where half an ulp (< 1e-6) cannot carry a non-integer quotient, which is
  // at least 1e-6 from the next integer, over it
  const floor = Math.floor(p / ONE);
  const r = p - floor * ONE;
  return kind !== KIND_SELL_INVENTORY && r > 0 ? floor + 1 : floor;
}

/** ⌈a·bps/1e4⌉, capped by the fee room left under maxFee. */
export function feeFor(amount: number, bps: number, room: number): number {
  if (bps <= 0 || room <= 0) return 0;
  const p = amount * bps;
  let f: number;
  if (p <= Number.MAX_SAFE_INTEGER) {
    // exact floor for p < 2^53 (see legAmount), without a float `%`
    const q = Math.floor(p / 10_000);
    f = q * 10_000 < p ? q + 1 : q;
  } else {
    f = Number((BigInt(amount) * BigInt(bps) + 9_999n) / 10_000n);
  }
  return f < room ? f : room;
}

/** The cumulative state of one order that its limits are checked against. */
export interface LimitState {
  kind: number;
  filled: number;
  /** gross collateral paid so far (BUY, SELL_NO_INVENTORY) */
  paid: number;
  /** gross collateral received so far (SELL_INVENTORY) */
  received: number;
  fees: number;
  maxFee: number;
  maxCollateralIn: number;
  minCollateralOut: number;
  maxShares: number;
}

/** Does a fill of `n` shares at own price `q` keep every signed limit of the order? */
export function fillFits(s: LimitState, q: number, n: number, bps: number): boolean {
  const a = legAmount(s.kind, q, n);
  const fee = feeFor(a, bps, s.maxFee - s.fees);
  if (s.kind !== KIND_SELL_INVENTORY) return s.paid + s.fees + a + fee <= s.maxCollateralIn;
  return s.received + a - s.fees - fee >= proRataFloor(s.minCollateralOut, s.filled + n, s.maxShares);
}

/** ⌊minCollateralOut·filled/maxShares⌋: the net floor a partially filled inventory sale must reach. */
export function proRataFloor(minCollateralOut: number, filled: number, maxShares: number): number {
  if (minCollateralOut === 0 || maxShares === 0) return 0;
  const p = minCollateralOut * filled;
  if (p <= Number.MAX_SAFE_INTEGER) return Math.floor(p / maxShares);
  return Number((BigInt(minCollateralOut) * BigInt(filled)) / BigInt(maxShares));
}

/**
 * The largest n ≤ n0 that `fillFits`. For payers the cost is monotone in n, so a binary search
 * finds the exact maximum. For inventory sellers a bigger fill only amortises rounding and the fee
 * cap better, so the answer is n0 or, when even that breaks the floor, 0.
 */
export function fillCapacity(s: LimitState, q: number, n0: number, bps: number): number {
  if (n0 <= 0) return 0;
  if (fillFits(s, q, n0, bps)) return n0;
  if (s.kind === KIND_SELL_INVENTORY) return 0;
  let lo = 0; // fits (n = 0 always does)
  let hi = n0; // does not fit
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (fillFits(s, q, mid, bps)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** A resolved position's claim: ⌊yes·payoutYes/1e6⌋ + ⌊no·payoutNo/1e6⌋. */
export function claimPayout(yes: number, no: number, payoutYes: number): number {
  return notionalFloor(payoutYes, yes) + notionalFloor(ONE - payoutYes, no);
}
