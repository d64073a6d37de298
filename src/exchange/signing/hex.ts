/**
 * Strict validation of the hex and integer fields that end up inside signed data. Buffer's own hex
 * decoder stops silently at the first bad character, so every value is checked before it is written.
 */
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Address, Bytes32, Hex } from '../../model/order.ts';

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DEC_INT = /^(?:0|[1-9]\d*)$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/** 0x + 64 hex digits in any case (the shape; `assertBytes32` gives the normal form). */
export function isBytes32(v: unknown): v is Hex {
  return typeof v === 'string' && BYTES32.test(v);
}

export function isAddressShape(v: unknown): v is Address {
  return typeof v === 'string' && ADDRESS.test(v);
}

/** `v` as a 32-byte value in normal form (lower-case hex, src/model/ids.ts), or a BadInputError naming `field`. */
export function assertBytes32(v: unknown, field: string): Bytes32 {
  const id = bytes32Of(v);
  if (id === null) throw new BadInputError(field, '0x followed by 64 hex digits', v);
  return id;
}

/** Address shape only (0x + 40 hex). Checksums are checked by `assertAddress` in ./address.ts. */
export function assertAddressShape(v: unknown, field: string): Address {
  if (!isAddressShape(v)) throw new BadInputError(field, 'an address (0x followed by 40 hex digits)', v);
  return v;
}

/**
 * A uint256 given as a decimal string (wire form), a non-negative safe integer or a bigint.
 * Leading zeros are refused in strings so that one value has one wire spelling.
 */
export function toUint256(v: unknown, field: string): bigint {
  let b: bigint;
  if (typeof v === 'string') {
    if (!DEC_INT.test(v) || v.length > 78) throw new BadInputError(field, 'a decimal integer string', v);
    b = BigInt(v);
  } else if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new BadInputError(field, 'a non-negative safe integer', v);
    b = BigInt(v);
  } else if (typeof v === 'bigint') {
    if (v < 0n) throw new BadInputError(field, 'a non-negative integer', v);
    b = v;
  } else {
    throw new BadInputError(field, 'a non-negative integer', v);
  }
  if (b > MAX_UINT256) throw new BadInputError(field, 'a value below 2^256', v);
  return b;
}

/** A small enum field (JSON number) within 0..max. */
export function assertEnum(v: unknown, field: string, allowed: readonly number[]): number {
  if (typeof v !== 'number' || !allowed.includes(v)) throw new BadInputError(field, `one of ${allowed.join(', ')}`, v);
  return v;
}

export function bytesToHex(b: Uint8Array): Hex {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

/** 0x-hex → bytes; the caller has validated the shape. */
export function hexToBuffer(h: string): Buffer {
  return Buffer.from(h.slice(2), 'hex');
}
