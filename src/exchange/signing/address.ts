/**
 * Ethereum addresses: from public keys, EIP-55 checksums, and checking user-supplied addresses.
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address } from '../../model/order.ts';
import type { KeccakFn } from './keccak.ts';
import { assertAddressShape } from './hex.ts';

/** EIP-55: uppercase each hex letter whose nibble in keccak(lowercase ascii) is ≥ 8. */
export function checksumAddress(addr: string, keccak256: KeccakFn): Address {
  const lower = addr.slice(2).toLowerCase();
  const h = keccak256(Buffer.from(lower, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower.charCodeAt(i);
    const nibble = (h[i >> 1]! >> (i & 1 ? 0 : 4)) & 0x0f;
    out += c >= 97 && nibble >= 8 ? String.fromCharCode(c - 32) : lower[i];
  }
  return out as Address;
}

/** Address of a 64-byte uncompressed public key (x‖y): the last 20 bytes of its keccak. */
export function addressFromPublicKey(pub64: Uint8Array, keccak256: KeccakFn): Address {
  const h = keccak256(pub64);
  return checksumAddress(`0x${Buffer.from(h.buffer, h.byteOffset + 12, 20).toString('hex')}`, keccak256);
}

/**
 * A user-supplied address: right shape, and when it is mixed-case the EIP-55 checksum must hold
 * (a mistyped character in a mixed-case address is then caught, as viem does).
 */
export function assertAddress(v: unknown, field: string, keccak256: KeccakFn): Address {
  const a = assertAddressShape(v, field);
  const body = a.slice(2);
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && checksumAddress(a, keccak256) !== a) {
    throw new BadInputError(field, 'an address with a valid EIP-55 checksum', v);
  }
  return a;
}
