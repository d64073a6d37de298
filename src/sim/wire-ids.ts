/**
 * Addresses as the local exchange keeps them (docs/local-exchange.md#ids-and-addresses): `0x` + 40
 * lower-case hex digits once they have passed `addressOf`, so code inside compares and keys them
 * with `===`. Answers spell them EIP-55 checksummed (./checksum.ts `checksumOf`).
 *
 * Market ids, nonces and hashes are `Bytes32` (src/model/ids.ts `bytes32Of`), the same lower-case
 * rule. Entry points: the validators (./validate.ts), the API keys given at start-up, the seed and
 * state files as they are read.
 */
import { addressOf, bytes32Of, mustAddress } from '../model/ids.ts';
import type { Bytes32, NormalAddress } from '../model/order.ts';

/** An address in the local exchange's one internal spelling (lower-case hex): the bot's NormalAddress. */
export type LowerAddress = NormalAddress;

const NORMAL = /^0x[0-9a-f]{40}$/;

/** `addressOf` (a lower-case address, or null) and `mustAddress` (or throw naming what) are the bot's own. */
export { addressOf, mustAddress };

/** Is `v` an address in the internal spelling (what addressOf returns)? */
export function isLowerAddress(v: unknown): v is LowerAddress {
  return typeof v === 'string' && NORMAL.test(v);
}

/** `v` as a normalised 32-byte id; throws (naming `what`) when it is not one. For trusted files and options. */
export function mustBytes32(v: unknown, what: string): Bytes32 {
  const id = bytes32Of(v);
  if (id === null) throw new Error(`${what}: expected 0x followed by 64 hex digits, got ${JSON.stringify(v)}`);
  return id;
}

const keyWallets = new WeakMap<{ readonly wallet: string }, LowerAddress>();

/**
 * An API key's wallet in the internal spelling. Key records keep the checksummed spelling they are
 * shown in; the lower-case form is made once per record (records come from options, the state file
 * and the migration's restore path) and remembered.
 */
export function walletOf(key: { readonly wallet: string }): LowerAddress {
  let a = keyWallets.get(key);
  if (a === undefined) {
    a = mustAddress(key.wallet, 'api key wallet');
    keyWallets.set(key, a);
  }
  return a;
}
