/**
 * Checks on caller input before anything is sent: a malformed id, address or limit is a BadInputError naming
 * the parameter, not a confusing 400 from the venue.
 */
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Address, Bytes32 } from '../../model/order.ts';

const B32 = /^0x[0-9a-fA-F]{64}$/;
const ADDR = /^0x[0-9a-fA-F]{40}$/;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;

/** `v` as a 32-byte id in normal form (src/model/ids.ts), or a BadInputError naming `field`. */
export function checkBytes32(v: unknown, field: string): Bytes32 {
  const id = bytes32Of(v);
  if (id === null) throw new BadInputError(field, 'a 0x-prefixed 32-byte hex', v);
  return id;
}

/** Public market endpoints take a 0x hash or a slug. */
export function checkMarketRef(v: unknown, field = 'marketId'): string {
  if (typeof v === 'string' && (B32.test(v) || (!v.startsWith('0x') && SLUG.test(v)))) return v;
  throw new BadInputError(field, 'a 0x-prefixed 32-byte market id or a slug', v);
}

export function checkAddress(v: unknown, field: string): Address {
  if (typeof v !== 'string' || !ADDR.test(v)) throw new BadInputError(field, 'a 0x-prefixed 20-byte address', v);
  return v as Address;
}

export function checkOptAddress(v: unknown, field: string): Address | undefined {
  return v === undefined ? undefined : checkAddress(v, field);
}

export function checkInt(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) throw new BadInputError(field, `an integer in [${min}, ${max}]`, v);
  return v;
}

export function checkOptInt(v: unknown, field: string, min: number, max: number): number | undefined {
  return v === undefined ? undefined : checkInt(v, field, min, max);
}

export function checkChoice<T extends string>(v: unknown, field: string, choices: readonly T[]): T {
  if (typeof v !== 'string' || !choices.includes(v as T)) throw new BadInputError(field, `one of ${choices.join(', ')}`, v);
  return v as T;
}

export function checkOptChoice<T extends string>(v: unknown, field: string, choices: readonly T[]): T | undefined {
  return v === undefined ? undefined : checkChoice(v, field, choices);
}

/**
 * A time filter the venue reads as "any date-parseable string": refused here when JavaScript's own date parser
 * cannot read it either, so a typo is not sent on to come back as an unfiltered (or empty) page.
 */
export function checkOptTime(v: unknown, field: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || Number.isNaN(Date.parse(v)))
    throw new BadInputError(field, 'a date-parseable time (ISO 8601 recommended)', v);
  return v;
}

/** A comma list (array or string) whose items are all from `choices`. */
export function checkChoices<T extends string>(v: unknown, field: string, choices: readonly T[]): T[] | undefined {
  if (v === undefined) return undefined;
  const list = typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v;
  if (!Array.isArray(list) || list.length === 0) throw new BadInputError(field, `a list of ${choices.join(', ')}`, v);
  for (const x of list) checkChoice(x, field, choices);
  return list as T[];
}
