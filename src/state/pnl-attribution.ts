/**
 * PnL attribution, exact in integers: where the money of a market came from.
 *
 *   spread capture  each fill's price against the mid at the fill: (mid − price) × qty for a
 *                   YES-terms buy (qty > 0), (price − mid) × |qty| for a sell
 *   inventory       the mid's moves on the position held: Σ net × Δmid between fills, and from the
 *                   last fill to the mark (the last mid)
 *   fees            − fees paid (a rebate is a negative fee and adds)
 *   resolution      the jump from the last mid to the payout on the position held at resolution
 *
 * Identity: spread + inventory + fees + resolution = Σ qty × (mark − price) − fees, which is exactly
 * realised + unrealised of src/state/position.ts (average cost closes to the same cash flows). The
 * running sums are kept in "half-scaled" units (2 × price units × size units = 0.5e-12 USDC), so a
 * half-unit mid ((bid + ask) / 2) stays an integer and nothing rounds until the USDC rendering.
 *
 * Entry points:
 *   addFill(state, fill, mid2)              fold one fill (mid2 = twice the mid at the fill, or null)
 *   resolveAt(state, lastMid2, payoutYes)   the market resolved: book the jump to the payout
 *   attributionExact(state, mark2)          the four components, half-scaled bigint, exact
 *   attributionMicro(state, mark2, target?) the components in 1e-6 USDC, summing exactly to target
 *   attributionToBooks(state, fees, total)  the components summing exactly to the books' PnL of the market
 *   attributeFills(fills, mark2)            the whole fold for a list of fills (tests, reports)
 */
import { ONE } from '../model/units.ts';

export interface AttributionState {
  /** YES-terms net position the fills built, 1e-6 shares */
  readonly net: bigint;
  /** twice the mid the inventory term was last marked at (the last fill's, or the payout), null before any fill */
  readonly mid2: bigint | null;
  /** half-scaled sums */
  readonly spread2: bigint;
  readonly inventory2: bigint;
  readonly resolution2: bigint;
  /** fees paid, 1e-6 USDC (negative = rebates received) */
  readonly fees: bigint;
  readonly fills: number;
  readonly resolved: boolean;
}

export const NO_ATTRIBUTION: AttributionState = { net: 0n, mid2: null, spread2: 0n, inventory2: 0n, resolution2: 0n, fees: 0n, fills: 0, resolved: false };

export interface AttributionFill {
  /** signed YES-terms quantity, 1e-6 shares (+ bought YES exposure) */
  readonly qty: number;
  /** YES-terms price, 1e-6 USDC */
  readonly price: number;
  /** 1e-6 USDC */
  readonly fee: number;
}

export interface AttributionComponents<T> {
  readonly spreadCapture: T;
  readonly inventory: T;
  readonly fees: T;
  readonly resolution: T;
}

const TWO = 2n;
const SCALE2 = 2n * BigInt(ONE); // half-scaled units per 1e-6 USDC

/** Fold one fill. `mid2` is twice the YES mid just before the fill; null (no two-sided book) counts the fill at its own price (no spread captured). */
export function addFill(a: AttributionState, f: AttributionFill, mid2: number | null): AttributionState {
  const p2 = BigInt(f.price) * TWO;
  const m2 = mid2 === null || !Number.isFinite(mid2) ? p2 : BigInt(Math.round(mid2));
  const q = BigInt(f.qty);
  const inventory2 = a.mid2 === null || a.net === 0n ? a.inventory2 : a.inventory2 + a.net * (m2 - a.mid2);
  return {
    net: a.net + q,
    mid2: m2,
    spread2: a.spread2 + q * (m2 - p2),
    inventory2,
    resolution2: a.resolution2,
    fees: a.fees + BigInt(f.fee),
    fills: a.fills + 1,
    resolved: a.resolved,
  };
}

/**
 * The market resolved with YES paying `payoutYes` (1e-6 USDC): the position held is marked from
 * `lastMid2` (twice the last mid before resolution; null = the last fill's mid) to the payout; the
 * move up to the last mid is inventory, the jump to the payout is resolution. Idempotent.
 */
export function resolveAt(a: AttributionState, lastMid2: number | null, payoutYes: number): AttributionState {
  if (a.resolved) return a;
  const pay2 = BigInt(payoutYes) * TWO;
  const from = lastMid2 === null ? a.mid2 : BigInt(Math.round(lastMid2));
  let inventory2 = a.inventory2;
  let resolution2 = a.resolution2;
  if (a.net !== 0n && a.mid2 !== null && from !== null) {
    inventory2 += a.net * (from - a.mid2);
    resolution2 += a.net * (pay2 - from);
  } else if (a.net !== 0n && a.mid2 !== null) {
    resolution2 += a.net * (pay2 - a.mid2);
  }
  return { ...a, mid2: a.mid2 === null ? null : pay2, inventory2, resolution2, resolved: true };
}

/**
 * The components, half-scaled (0.5e-12 USDC), exact. `mark2` is twice the mark of the open position
 * (the last mid; once resolved it is not read: the payout is the mark); null = no mark known, where the PnL of
 * src/state/position.ts counts no unrealised PnL: the open position then stays at cost.
 */
export function attributionExact(a: AttributionState, mark2: number | null, basis?: bigint): AttributionComponents<bigint> & { total: bigint } {
  let inventory2 = a.inventory2;
  // once resolved, the position is marked at its payout for good (resolveAt booked the way there)
  if (a.net !== 0n && a.mid2 !== null && !a.resolved) {
    if (mark2 !== null && Number.isFinite(mark2)) inventory2 += a.net * (BigInt(Math.round(mark2)) - a.mid2);
    // unmarked, with the position's cost basis (scaled) given: the open position stays at cost,
    // as position.ts counts no unrealised PnL without a mark; without a basis: at the last fill's mid
    else if (basis !== undefined) inventory2 += TWO * basis - a.net * a.mid2;
  }
  const fees2 = -a.fees * SCALE2;
  const total = a.spread2 + inventory2 + fees2 + a.resolution2;
  return { spreadCapture: a.spread2, inventory: inventory2, fees: fees2, resolution: a.resolution2, total };
}

/** floor(x / d) for bigint (division toward −∞). */
function floorDiv(x: bigint, d: bigint): bigint {
  const q = x / d;
  return x % d !== 0n && x < 0n !== d < 0n ? q - 1n : q;
}

/**
 * The components in 1e-6 USDC summing exactly to `targetMicro` (default: the exact total floored).
 * Each component is its exact value floored; the few units the floors lose against the target
 * (a reported total is itself a sum of floored parts, so the gap is a handful of 1e-6 USDC at most)
 * go one unit at a time to the rounded components with the largest dropped fraction (largest
 * remainder), or are taken from the smallest when the target is below the floors' sum; a component
 * that was exact (the fees, a zero resolution) stays exact (inventory takes the gap when all are).
 */
export function attributionMicro(
  a: AttributionState,
  mark2: number | null,
  targetMicro?: bigint,
  basis?: bigint,
): AttributionComponents<bigint> & { total: bigint } {
  const e = attributionExact(a, mark2, basis);
  return apportion(e, targetMicro ?? floorDiv(e.total, SCALE2));
}

const KEYS = ['spreadCapture', 'inventory', 'fees', 'resolution'] as const;

export function apportion(e: AttributionComponents<bigint>, target: bigint): AttributionComponents<bigint> & { total: bigint } {
  const floors = KEYS.map((k) => floorDiv(e[k], SCALE2));
  const rems = KEYS.map((k, i) => e[k] - floors[i]! * SCALE2);
  const gap = target - floors.reduce((x, y) => x + y, 0n);
  // only components that were rounded take part: an exact one (the fees; a zero resolution) stays
  // exact; ordered by dropped remainder, largest first (ties: the fixed component order)
  let live = [0, 1, 2, 3].filter((i) => rems[i] !== 0n);
  if (live.length === 0) live = [1];
  const order = live.sort((i, j) => (rems[j]! > rems[i]! ? 1 : rems[j]! < rems[i]! ? -1 : i - j));
  // round robin over `order` (the gap's whole rounds at once, then the rest: O(components), not
  // O(gap)): a gap above, one more unit each from the first; below, one less each from the last
  const n = order.length;
  const sign = gap < 0n ? -1n : 1n;
  const abs = gap * sign;
  const rounds = abs / BigInt(n);
  const rest = Number(abs % BigInt(n));
  for (let k = 0; k < n; k++) {
    const extra = sign > 0n ? (k < rest ? 1n : 0n) : k >= n - rest ? 1n : 0n;
    floors[order[k]!]! += sign * (rounds + extra);
  }
  return { spreadCapture: floors[0]!, inventory: floors[1]!, fees: floors[2]!, resolution: floors[3]!, total: target };
}

/**
 * The components in 1e-6 USDC summing exactly to the books' PnL of the market (`booksTotal`:
 * src/account/account.ts, realised + unrealised): spread capture and resolution of the fills this
 * state folded (floored), the fees as the books hold them (every fee of the market, exact), and
 * inventory the rest: the position's moves to the books' mark, plus whatever the books hold beyond
 * these fills (a baseline adopted at its mark, fills of an earlier run). O(1).
 */
export function attributionToBooks(a: AttributionState, booksFees: bigint, booksTotal: bigint): AttributionComponents<bigint> & { total: bigint } {
  const spreadCapture = floorDiv(a.spread2, SCALE2);
  const resolution = floorDiv(a.resolution2, SCALE2);
  const fees = -booksFees;
  return { spreadCapture, inventory: booksTotal - spreadCapture - fees - resolution, fees, resolution, total: booksTotal };
}

/** Fold a list of fills, each with the mid at its time (twice the mid, or null). */
export function attributeFills(
  fills: readonly (AttributionFill & { readonly mid2: number | null })[],
  mark2: number | null,
): AttributionComponents<bigint> & { total: bigint } {
  let a = NO_ATTRIBUTION;
  for (const f of fills) a = addFill(a, f, f.mid2);
  return attributionExact(a, mark2);
}
