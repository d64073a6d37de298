/**
 * Money for people: 1e-6 USDC shown in cents, and a figure with its parts shown so that they add up
 * (docs/operating.md, "End-of-run report"). The JSON keeps the exact six decimals (units.ts micro).
 *
 *   usdCents(3_684_999n)                          // "3.68" (half away from zero, on the integer)
 *   usdCentsSumming(3_685_000n, [2_445_000n, 1_240_000n])
 *     // { total: "3.69", parts: ["2.45", "1.24"] }: the total rounded as it is, each part within a
 *     // cent of its own figure, and the parts as shown summing to the total as shown
 *
 * The total is the real figure rounded once; the parts give way (largest remainder): each is its
 * figure rounded down or up to the cent, the ones with the largest fraction of a cent rounded up,
 * as many as the shown total needs.
 */

import { decimalToScaled } from './units.ts';

const CENT = 10_000n;

/** Cents of 1e-6 USDC, rounded half away from zero. */
function roundCents(v: bigint): bigint {
  const a = v < 0n ? -v : v;
  const c = (a + CENT / 2n) / CENT;
  return v < 0n ? -c : c;
}

/** Cents as "-1.23" ("0.00" for zero, never "-0.00"). */
function centsText(c: bigint): string {
  const a = c < 0n ? -c : c;
  return `${c < 0n ? '-' : ''}${a / 100n}.${(a % 100n).toString().padStart(2, '0')}`;
}

/** 1e-6 USDC in cents, rounded half away from zero on the exact integer ("-1.23"). */
export function usdCents(v: bigint): string {
  return centsText(roundCents(v));
}

/** An exact decimal string of 1e-6 USDC (units.ts micro: "-1.500000") back to the integer. */
export function microOf(s: string): bigint {
  const neg = s.startsWith('-');
  const v = decimalToScaled(neg ? s.slice(1) : s, 6, 'amount');
  return neg ? -v : v;
}

/**
 * A total and its parts in cents that add up as shown. `total` must be the exact sum of `parts`;
 * when it is not (a caller's bug, or parts that are not the whole), each is rounded on its own.
 */
export function usdCentsSumming(total: bigint, parts: readonly bigint[]): { total: string; parts: string[] } {
  const shown = roundCents(total);
  if (parts.reduce((a, p) => a + p, 0n) !== total) return { total: centsText(shown), parts: parts.map(usdCents) };
  // each part rounded down to the cent (toward -∞), with what is left of it
  const floors = parts.map((p) => (p >= 0n ? p / CENT : -((-p + CENT - 1n) / CENT)));
  const rest = parts.map((p, i) => p - floors[i]! * CENT);
  let up = shown - floors.reduce((a, c) => a + c, 0n);
  // the parts with the largest rest round up, as many as the shown total needs (ties: first listed)
  const order = parts.map((_, i) => i).sort((a, b) => (rest[b]! > rest[a]! ? 1 : rest[b]! < rest[a]! ? -1 : a - b));
  const cents = [...floors];
  for (const i of order) {
    if (up <= 0n) break;
    if (rest[i] === 0n) continue;
    cents[i] = cents[i]! + 1n;
    up--;
  }
  return { total: centsText(shown), parts: cents.map(centsText) };
}
