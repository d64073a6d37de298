/**
 * Small validators for request bodies, query strings and path parameters. Each throws an
 * HttpError 400 (VALIDATION_ERROR) naming the field, so a handler reads like the schema it checks.
 * Field names are dotted paths as the client sent them (`orders[3].price`).
 */
import { HttpError, badRequest } from './http-errors.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Bytes32, Hex } from '../model/order.ts';
import { addressOf, type LowerAddress } from './wire-ids.ts';

const HEX = /^0x[0-9a-fA-F]*$/;
const UINT = /^\d+$/;
const INT_TEXT = /^-?\d+$/;

export type Obj = Record<string, unknown>;

/** The value must be a plain JSON object. */
export function object(v: unknown, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(field, 'expected an object');
  return v as Obj;
}

export function array(v: unknown, field: string, opts: { min?: number; max?: number } = {}): unknown[] {
  if (!Array.isArray(v)) throw badRequest(field, 'expected an array');
  if (opts.min !== undefined && v.length < opts.min) throw badRequest(field, `expected at least ${opts.min} items`);
  if (opts.max !== undefined && v.length > opts.max) throw badRequest(field, `expected at most ${opts.max} items`);
  return v;
}

export function string(v: unknown, field: string, opts: { max?: number; min?: number } = {}): string {
  if (typeof v !== 'string') throw badRequest(field, 'expected a string');
  if (opts.min !== undefined && v.length < opts.min) throw badRequest(field, `expected at least ${opts.min} characters`);
  if (v.length > (opts.max ?? 10_000)) throw badRequest(field, `expected at most ${opts.max ?? 10_000} characters`);
  return v;
}

export function optionalString(v: unknown, field: string, opts: { max?: number } = {}): string | undefined {
  return v === undefined || v === null ? undefined : string(v, field, opts);
}

/** A 32-byte id (market id, nonce, hash), normalised to lower-case hex. */
export function bytes32(v: unknown, field: string): Bytes32 {
  const id = bytes32Of(v);
  if (id === null) throw badRequest(field, 'expected 0x followed by 64 hex digits');
  return id;
}

/** An address, normalised to lower-case hex (answers checksum it again). */
export function address(v: unknown, field: string): LowerAddress {
  const a = addressOf(v);
  if (a === null) throw badRequest(field, 'expected an address (0x followed by 40 hex digits)');
  return a;
}

export function hex(v: unknown, field: string, opts: { maxBytes?: number } = {}): Hex {
  if (typeof v !== 'string' || !HEX.test(v) || v.length % 2 !== 0) throw badRequest(field, 'expected 0x-prefixed hex');
  if ((v.length - 2) / 2 > (opts.maxBytes ?? 4096)) throw badRequest(field, 'hex too long');
  return v as Hex;
}

/** secp256k1 group order / 2: an `s` above it is the malleable twin of a valid signature */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * A 65-byte signature r ‖ s ‖ v as an on-chain verifier in the OpenZeppelin ECDSA style accepts it:
 * `v` 27 or 28 (0/1 and EIP-155 values refused) and `s` in the lower half of the curve order
 * (high-s twins refused: they would let the same order be submitted under a second signature).
 */
export function signature(v: unknown, field: string): Hex {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(v)) throw badRequest(field, 'expected a 65-byte hex signature');
  if (BigInt(`0x${v.slice(66, 130)}`) > HALF_N)
    throw new HttpError(400, 'INVALID_SIGNATURE', `${field}: s is in the upper half of the curve order (high-s signatures are refused, as on chain)`, {
      field,
    });
  const recovery = parseInt(v.slice(130, 132), 16);
  if (recovery !== 27 && recovery !== 28) throw new HttpError(400, 'INVALID_SIGNATURE', `${field}: v must be 27 or 28`, { field });
  return v as Hex;
}

/** A decimal-integer string ("^\d+$") as a bigint, bounded to uint256. */
export function uintString(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !UINT.test(v) || v.length > 78) throw badRequest(field, 'expected a decimal integer string');
  const b = BigInt(v);
  if (b >= 1n << 256n) throw badRequest(field, 'expected a value below 2^256');
  return b;
}

/** A decimal-integer string that must fit a safe integer (prices, sizes, fees of one order). */
export function safeUintString(v: unknown, field: string, opts: { min?: number; max?: number } = {}): number {
  const b = uintString(v, field);
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest(field, 'expected a value below 2^53');
  const n = Number(b);
  if (opts.min !== undefined && n < opts.min) throw badRequest(field, `expected at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(field, `expected at most ${opts.max}`);
  return n;
}

/** A JSON integer within [min, max]. */
export function int(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw badRequest(field, `expected an integer from ${min} to ${max}`);
  return v;
}

/** A JSON number within [min, max] (finite). */
export function num(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw badRequest(field, `expected a number from ${min} to ${max}`);
  return v;
}

export function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw badRequest(field, 'expected true or false');
  return v;
}

export function oneOf<T extends string | number>(v: unknown, field: string, allowed: readonly T[]): T {
  if (!allowed.includes(v as T)) throw badRequest(field, `expected one of ${allowed.join(', ')}`);
  return v as T;
}

// ---- query strings (URLSearchParams): absent → default; present but malformed → 400 ----

/** Integer query parameter within [min, max], or the default when absent. */
export function queryInt(q: URLSearchParams, name: string, min: number, max: number, dflt: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (!INT_TEXT.test(raw)) throw badRequest(name, `expected an integer from ${min} to ${max}`);
  const n = Number(raw);
  if (n < min || n > max) throw badRequest(name, `expected an integer from ${min} to ${max}`);
  return n;
}

export function queryEnum<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], dflt: T): T;
export function queryEnum<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[]): T | undefined;
export function queryEnum<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], dflt?: T): T | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (!allowed.includes(raw as T)) throw badRequest(name, `expected one of ${allowed.join(', ')}`);
  return raw as T;
}

/** A comma list where every item is one of `allowed` (e.g. `status=open,filled`). */
export function queryEnumList<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[]): T[] | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const items = raw.split(',').map((s) => s.trim());
  for (const it of items) if (!allowed.includes(it as T)) throw badRequest(name, `expected a comma list of ${allowed.join(', ')}`);
  return items as T[];
}

export function queryAddress(q: URLSearchParams, name: string): LowerAddress | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  return address(raw, name);
}

export function queryBytes32(q: URLSearchParams, name: string): Bytes32 | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  return bytes32(raw, name);
}

export function queryString(q: URLSearchParams, name: string, max = 500): string | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > max) throw badRequest(name, `expected at most ${max} characters`);
  return raw;
}

/** A timestamp query parameter: unix seconds, unix ms or an ISO date → ms since epoch. */
export function queryTime(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (/^\d{1,16}$/.test(raw)) {
    const n = Number(raw);
    return n < 1e11 ? n * 1000 : n; // seconds below year ~5138 in ms terms
  }
  const t = Date.parse(raw);
  if (!Number.isFinite(t)) throw badRequest(name, 'expected unix seconds, unix milliseconds or an ISO date');
  return t;
}

export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') throw badRequest(name, 'expected true or false');
  return raw === 'true';
}
