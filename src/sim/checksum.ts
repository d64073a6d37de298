/** EIP-55 checksummed spelling of an address (answers always carry checksummed addresses). */
import { checksumAddress } from '../exchange/signing/address.ts';
import { cryptoBackend } from '../exchange/signing/backend.ts';
import type { Address } from '../model/order.ts';

const cache = new Map<string, Address>();

export function checksum(addr: string): Address {
  const k = addr.toLowerCase();
  let v = cache.get(k);
  if (!v) {
    v = checksumAddress(k, cryptoBackend().keccak256);
    if (cache.size > 50_000) cache.clear();
    cache.set(k, v);
  }
  return v;
}
