/** Throwaway secp256k1 keys for tests, without loading viem (docs/performance.md#start-up). */
import { randomBytes } from 'node:crypto';
import { pureEcdsa } from '../../src/exchange/signing/ecdsa.ts';
import type { Hex } from '../../src/model/order.ts';

export { addressOfPrivateKey } from '../../src/exchange/signing/text-hash.ts';

/** A random valid private key as 0x + 64 hex digits (viem's generatePrivateKey). */
export function randomPrivateKey(): Hex {
  for (;;) {
    const k = randomBytes(32);
    if (pureEcdsa.isValidPrivateKey(k)) return `0x${k.toString('hex')}`;
  }
}
