/**
 * Small boundary readers for venue answers. Each takes the endpoint and a field path so a malformed answer
 * becomes `BadResponseError(endpoint, "orders[3].price", ...)`, never a crash and never a wrong number.
 * Decimal-integer strings become bigint/number without going through floats.
 */
import { BadResponseError } from '../../model/errors.ts';
import { addressOf, bytes32Of } from '../../model/ids.ts';
import type { Bytes32, Hex, NormalAddress } from '../../model/order.ts';

export type Rec = Record<string, unknown>;

/** Where we are: endpoint name plus the path of the current object. */
export interface At {
  ep: string;
  path: string;
}

export function at(ep: string, path = ''): At {
  return { ep, path };
}
export function sub(a: At, key: string | number): At {
  return { ep: a.ep, path: typeof key === 'number' ? `${a.path}[${key}]` : a.path ? `${a.path}.${key}` : key };
}
export function fieldName(a: At, k: string): string {
  return a.path ? `${a.path}.${k}` : k;
}
function bad(a: At, k: string, expected: string, got: unknown): never {
  throw new BadResponseError(a.ep, fieldName(a, k), expected, got);
}

export function asObject(v: unknown, a: At): Rec {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BadResponseError(a.ep, a.path || '(body)', 'an object', v);
  return v as Rec;
}

export function arr<T>(o: Rec, k: string, a: At, item: (v: unknown, a: At) => T): T[] {
  const v = o[k];
  if (!Array.isArray(v)) bad(a, k, 'an array', v);
  const out = new Array<T>(v.length);
  const base = sub(a, k);
  for (let i = 0; i < v.length; i++) out[i] = item(v[i], sub(base, i));
  return out;
}
/** An array that may be missing (missing: empty; null or anything else not an array is refused). */
export function arrIfPresent<T>(o: Rec, k: string, a: At, item: (v: unknown, a: At) => T): T[] {
  return o[k] === undefined ? [] : arr(o, k, a, item);
}
export function optArr<T>(o: Rec, k: string, a: At, item: (v: unknown, a: At) => T): T[] {
  return o[k] === undefined || o[k] === null ? [] : arr(o, k, a, item);
}

export function str(o: Rec, k: string, a: At): string {
  const v = o[k];
  if (typeof v !== 'string') bad(a, k, 'a string', v);
  return v;
}
export function nstr(o: Rec, k: string, a: At): string | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') bad(a, k, 'a string or null', v);
  return v;
}
export function bool(o: Rec, k: string, a: At): boolean {
  const v = o[k];
  if (typeof v !== 'boolean') bad(a, k, 'a boolean', v);
  return v;
}
export function optBool(o: Rec, k: string, a: At, dflt: boolean): boolean {
  return o[k] === undefined ? dflt : bool(o, k, a);
}

/** A JSON number, finite, optionally range-checked. */
export function num(o: Rec, k: string, a: At, min = -Infinity, max = Infinity): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) bad(a, k, `a number in [${min}, ${max}]`, v);
  return v;
}
export function nnum(o: Rec, k: string, a: At, min = -Infinity, max = Infinity): number | null {
  return o[k] === undefined || o[k] === null ? null : num(o, k, a, min, max);
}
/** A JSON integer in a range. */
export function int(o: Rec, k: string, a: At, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) bad(a, k, `an integer in [${min}, ${max}]`, v);
  return v;
}
export function nint(o: Rec, k: string, a: At, min = 0, max = Number.MAX_SAFE_INTEGER): number | null {
  return o[k] === undefined || o[k] === null ? null : int(o, k, a, min, max);
}

const DEC_INT = /^\d+$/;
/** Decimal-integer string (`^\d+$`) → bigint. Also accepts a safe non-negative JSON integer. */
export function big(o: Rec, k: string, a: At): bigint {
  const v = o[k];
  if (typeof v === 'string' && DEC_INT.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  bad(a, k, 'a decimal integer string', v);
}
export function nbig(o: Rec, k: string, a: At): bigint | null {
  return o[k] === undefined || o[k] === null ? null : big(o, k, a);
}
/** Decimal-integer string → safe integer number, with an upper bound. */
export function unum(o: Rec, k: string, a: At, max = Number.MAX_SAFE_INTEGER): number {
  const b = big(o, k, a);
  if (b > BigInt(max)) bad(a, k, `a decimal integer ≤ ${max}`, o[k]);
  return Number(b);
}

export function oneOf<T extends string | number>(o: Rec, k: string, a: At, values: readonly T[]): T {
  const v = o[k] as T;
  if (!values.includes(v)) bad(a, k, `one of ${values.join('|')}`, o[k]);
  return v;
}
export function nOneOf<T extends string | number>(o: Rec, k: string, a: At, values: readonly T[]): T | null {
  return o[k] === undefined || o[k] === null ? null : oneOf(o, k, a, values);
}

const HEX = /^0x[0-9a-fA-F]*$/;
export function hex(o: Rec, k: string, a: At): Hex {
  const v = o[k];
  if (typeof v !== 'string' || !HEX.test(v)) bad(a, k, 'a 0x hex string', v);
  return v as Hex;
}
/** The readers of one kind of id: a field, an array item, a field that may be null; a bad value is a bad answer naming it. */
function idReaders<T>(of: (v: unknown) => T | null, expected: string) {
  const field = (o: Rec, k: string, a: At): T => {
    const v = of(o[k]);
    if (v === null) bad(a, k, expected, o[k]);
    return v;
  };
  const item = (v: unknown, a: At): T => {
    const x = of(v);
    if (x === null) throw new BadResponseError(a.ep, a.path, expected, v);
    return x;
  };
  const nullable = (o: Rec, k: string, a: At): T | null => (o[k] === undefined || o[k] === null ? null : field(o, k, a));
  return { field, item, nullable };
}
const BYTES32 = idReaders(bytes32Of, 'a 0x-prefixed 32-byte hex');
const ADDRESS = idReaders(addressOf, 'a 0x-prefixed 20-byte address');

/** A 32-byte id (market id, nonce, hash), normalised to lower case here, where it enters (src/model/ids.ts). */
export const bytes32: (o: Rec, k: string, a: At) => Bytes32 = BYTES32.field;
/** An array item that is a 32-byte id (arr(o, 'marketIds', a, bytes32Item)), normalised as `bytes32`. */
export const bytes32Item: (v: unknown, a: At) => Bytes32 = BYTES32.item;
export const nbytes32: (o: Rec, k: string, a: At) => Bytes32 | null = BYTES32.nullable;
/** An address, normalised to lower case here, where it enters (src/model/ids.ts addressOf). */
export const address: (o: Rec, k: string, a: At) => NormalAddress = ADDRESS.field;
/** An array item that is an address (arr(m, 'outcomeTokens', a, addressItem)), normalised as `address`. */
export const addressItem: (v: unknown, a: At) => NormalAddress = ADDRESS.item;
export const naddress: (o: Rec, k: string, a: At) => NormalAddress | null = ADDRESS.nullable;

/** An ISO date-time string, kept as given but checked to parse. */
export function isoTime(o: Rec, k: string, a: At): string {
  const v = str(o, k, a);
  if (!Number.isFinite(Date.parse(v))) bad(a, k, 'an ISO date-time', v);
  return v;
}
export function nisoTime(o: Rec, k: string, a: At): string | null {
  return o[k] === undefined || o[k] === null ? null : isoTime(o, k, a);
}

/** `cursor: string | null` (absent = end). */
export function cursor(o: Rec, a: At, k = 'cursor'): string | null {
  return nstr(o, k, a);
}

/**
 * The next-page cursor of a list answer: the body's `cursor` when the body has the field, else the
 * `X-Next-Cursor` header the spec also declares on /activity, /markets, /orders and /portfolio.
 */
export function pageCursor(o: Rec, a: At, headers: Record<string, string | string[] | undefined>): string | null {
  if ('cursor' in o) return cursor(o, a);
  const h = headers['x-next-cursor'];
  const v = Array.isArray(h) ? h[0] : h;
  return v ? v : null;
}

/** An array of strings. */
export function strings(o: Rec, k: string, a: At): string[] {
  return arr(o, k, a, (v, aa) => {
    if (typeof v !== 'string') throw new BadResponseError(aa.ep, aa.path, 'a string', v);
    return v;
  });
}

/** A signed decimal-integer string (`^-?\d+$`) → bigint (PnL-like figures can be negative). */
export function sbig(o: Rec, k: string, a: At): bigint {
  const v = o[k];
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  bad(a, k, 'a signed decimal integer string', v);
}
