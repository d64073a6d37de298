/** EIP-55 checksummed spelling of an address (answers always carry checksummed addresses). */
import { checksumAddress } from '../exchange/signing/address.ts';
import { cryptoBackend } from '../exchange/signing/backend.ts';
import type { Address } from '../model/order.ts';
import { mustAddress, type LowerAddress } from './wire-ids.ts';

const cache = new Map<LowerAddress, Address>();

/** The checksummed spelling of an address kept inside (cached: answers spell the same few often). */
export function checksumOf(addr: LowerAddress): Address {
  let v = cache.get(addr);
  if (!v) {
    v = checksumAddress(addr, cryptoBackend().keccak256);
    if (cache.size > 50_000) cache.clear();
    cache.set(addr, v);
  }
  return v;
}

/** The checksummed spelling of an address in any case (throws when `addr` is not one). */
export function checksum(addr: string): Address {
  return checksumOf(mustAddress(addr, 'address'));
}
