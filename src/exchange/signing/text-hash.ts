/**
 * Small keccak / hex / address helpers for deterministic ids and demo wallets (the local exchange,
 * imported market ids, the doctor's messages). They give the same bytes as viem's `keccak256(toHex(s))`,
 * `toHex(s)`, `getAddress(a)` and `privateKeyToAccount(k).address`, using the keccak and secp256k1
 * this directory already loads, so a process that needs only these does not load viem
 * (docs/performance.md#start-up).
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address, Bytes32, Hex } from '../../model/order.ts';
import { checksumAddress, addressFromPublicKey } from './address.ts';
import { nativeEcdsa, pureEcdsa } from './ecdsa.ts';
import { isAddressShape } from './hex.ts';
import { nativeKeccak256, pureKeccak256, type KeccakFn } from './keccak.ts';

const keccak: KeccakFn = nativeKeccak256 ?? pureKeccak256;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** A string's UTF-8 bytes as 0x hex (viem's `toHex(string)`; a lone surrogate encodes as U+FFFD, as there). */
export function utf8Hex(text: string): Hex {
  return `0x${Buffer.from(text, 'utf8').toString('hex')}`;
}

/** keccak256 of bytes as lower-case 0x hex: a Bytes32 in normal form. */
export function keccakHex(data: Uint8Array): Bytes32 {
  const h = keccak(data);
  return `0x${Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('hex')}` as Bytes32;
}

/** keccak256 of a string's UTF-8 bytes (viem's `keccak256(toHex(text))` and `keccak256(toBytes(text))`). */
export function keccakText(text: string): Bytes32 {
  return keccakHex(Buffer.from(text, 'utf8'));
}

/** The EIP-55 form of an address (viem's `getAddress` for a well-formed one); a BadInputError otherwise. */
export function eip55(address: string): Address {
  if (!isAddressShape(address)) throw new BadInputError('address', 'an address (0x followed by 40 hex digits)', address);
  return checksumAddress(address, keccak);
}

/** The EIP-55 address of a 32-byte private key given as 0x hex (viem's `privateKeyToAccount(k).address`). */
export function addressOfPrivateKey(privateKey: string): Address {
  if (!PRIVATE_KEY.test(privateKey)) throw new BadInputError('privateKey', '0x followed by 64 hex digits', '(hidden)');
  const ecdsa = nativeEcdsa ?? pureEcdsa;
  const key = Buffer.from(privateKey.slice(2), 'hex');
  if (!ecdsa.isValidPrivateKey(key)) throw new BadInputError('privateKey', 'a valid secp256k1 private key', '(hidden)');
  return addressFromPublicKey(ecdsa.publicKey(key), keccak);
}
