/**
 * Integer units used everywhere money or size is handled. No floats for money.
 *
 * - Price: 1e-6 collateral (USDC) per share, an integer in (0, 1_000_000). 45¢ = 450_000.
 * - Size: 1e-6 shares, a non-negative safe integer. 1 share = 1_000_000.
 * - Collateral amounts: 1e-6 USDC. `number` where bounded by price×size of one order,
 *   `bigint` for balances and anything accumulated.
 */
import { BadInputError } from './errors.ts';

export const PRICE_SCALE = 1_000_000;
export const SIZE_SCALE = 1_000_000;
export const CENT = 10_000; // one cent in price units
export const ONE = 1_000_000; // price of a certain outcome, and one complete set in collateral units

const DEC_INT = /^\d+$/;
const DEC = /^(\d+)(?:\.(\d+))?$/;

/** Parse a wire decimal-integer string ("^\d+$") into a bigint. */
export function parseUintString(s: unknown, field: string): bigint {
  if (typeof s !== 'string' || !DEC_INT.test(s)) throw new BadInputError(field, 'a decimal integer string', s);
  return BigInt(s);
}

/** Parse a wire decimal-integer string into a safe integer number. */
export function parseUintNumber(s: unknown, field: string): number {
  if (typeof s === 'number') {
    if (Number.isSafeInteger(s) && s >= 0) return s;
    throw new BadInputError(field, 'a non-negative safe integer', s);
  }
  const b = parseUintString(s, field);
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) throw new BadInputError(field, 'an integer below 2^53', s);
  return Number(b);
}

/**
 * Exact decimal string → integer scaled by 10^decimals, without floats.
 * "12.345678" with 6 decimals → 12345678n. More fractional digits than `decimals` is an error
 * unless `round` is given ('floor' | 'ceil' | 'half-up').
 */
export function decimalToScaled(s: string, decimals: number, field: string, round?: 'floor' | 'ceil' | 'half-up'): bigint {
  const m = DEC.exec(s.trim());
  if (!m) throw new BadInputError(field, 'a non-negative decimal number', s);
  const intPart = m[1]!;
  let frac = m[2] ?? '';
  let bump = 0n;
  if (frac.length > decimals) {
    const rest = frac.slice(decimals);
    frac = frac.slice(0, decimals);
    const nonZero = /[1-9]/.test(rest);
    if (!round) throw new BadInputError(field, `at most ${decimals} decimal places`, s);
    if (round === 'ceil' && nonZero) bump = 1n;
    if (round === 'half-up' && rest.charCodeAt(0) >= 53 /* '5' */) bump = 1n;
  }
  const scaled = BigInt(intPart + frac.padEnd(decimals, '0')) + bump;
  return scaled;
}

/** Integer scaled by 10^decimals → exact decimal string with trailing zeros trimmed. */
export function scaledToDecimal(v: bigint | number, decimals: number): string {
  let n = typeof v === 'bigint' ? v : BigInt(v);
  const neg = n < 0n;
  if (neg) n = -n;
  const s = n.toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return (neg ? '-' : '') + (frac ? `${int}.${frac}` : int);
}

/** An integer amount in 1e-6 units as an exact decimal string with all six decimals ("-1.500000"). */
export function micro(v: bigint | number): string {
  const n = typeof v === 'bigint' ? v : BigInt(v);
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? '-' : ''}${a / 1_000_000n}.${(a % 1_000_000n).toString().padStart(6, '0')}`;
}

/**
 * A JSON number (possibly fractional, e.g. 45.5 cents or 12.25 shares) → integer scaled units,
 * via its shortest decimal representation so binary artefacts (0.29 → 0.28999…) do not leak.
 */
export function numberToScaled(x: number, decimals: number, field: string, round: 'floor' | 'ceil' | 'half-up' = 'half-up'): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new BadInputError(field, 'a finite non-negative number', x);
  let s = String(x);
  if (s.includes('e')) s = x.toFixed(Math.min(100, decimals + 6));
  const v = decimalToScaled(s, decimals, field, round);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new BadInputError(field, 'a value below 2^53 units', x);
  return Number(v);
}

/** Cents (1..99, fractional allowed) → price units, half-up to the unit. */
export function centsToPrice(cents: number, field = 'priceCents'): number {
  if (typeof cents !== 'number' || !Number.isFinite(cents) || cents <= 0 || cents >= 100) {
    throw new BadInputError(field, 'a price strictly between 0 and 100 cents', cents);
  }
  return numberToScaled(cents, 4, field, 'half-up');
}

/** Shares (decimal) → size units (1e-6 shares), floor to the unit. */
export function sharesToSize(shares: number | string, field = 'size'): number {
  const v = typeof shares === 'string' ? Number(decimalToScaled(shares, 6, field, 'floor')) : numberToScaled(shares, 6, field, 'floor');
  if (v <= 0) throw new BadInputError(field, 'a size above 0', shares);
  return v;
}

export function priceToCents(price: number): number {
  return price / CENT;
}

export function isValidPrice(p: number): boolean {
  return Number.isSafeInteger(p) && p > 0 && p < ONE;
}

/** ⌈a·b / d⌉ and ⌊a·b / d⌋ in bigint, exact for any safe-integer inputs. */
export function mulDivCeil(a: number | bigint, b: number | bigint, d: number | bigint): bigint {
  const n = BigInt(a) * BigInt(b);
  const dd = BigInt(d);
  return (n + dd - 1n) / dd;
}
export function mulDivFloor(a: number | bigint, b: number | bigint, d: number | bigint): bigint {
  return (BigInt(a) * BigInt(b)) / BigInt(d);
}

/** Collateral for S shares at price P: ⌈P·S/1e6⌉ for buys, ⌊P·S/1e6⌋ for sells (docs/venue.md#from-a-limit-order-to-a-v2-order). Exact for safe integers. */
export function notionalCeil(price: number, size: number): number {
  const p = price * size;
  if (p <= Number.MAX_SAFE_INTEGER) {
    const r = p % PRICE_SCALE; // exact: p is an integer below 2^53
    return (p - r) / PRICE_SCALE + (r > 0 ? 1 : 0);
  }
  return Number(mulDivCeil(price, size, PRICE_SCALE));
}
export function notionalFloor(price: number, size: number): number {
  const p = price * size;
  if (p <= Number.MAX_SAFE_INTEGER) return (p - (p % PRICE_SCALE)) / PRICE_SCALE;
  return Number(mulDivFloor(price, size, PRICE_SCALE));
}
