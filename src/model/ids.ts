/**
 * Ids normalised where they enter (docs/architecture.md#ids-at-the-boundary): a market id, order
 * nonce or other 32-byte value is `0x` + 64 lower-case hex digits once it has passed one of these,
 * so code inside compares ids with `===`.
 *
 * Addresses likewise: `addressOf(v)` → `0x` + 40 lower-case hex digits (NormalAddress) or null; the
 * EIP-55 form, where one is shown or sent, is made at that exit (src/exchange/signing/address.ts).
 *
 * Entry points: `bytes32Of(v)` → the normalised id or null (not a 32-byte hex string);
 * `isBytes32(v)` checks the normal form. Venue responses (src/exchange/client/fields.ts), book
 * payloads (src/exchange/client/normalize-orderbook.ts) and config selectors
 * (src/config/parse-markets.ts) go through them.
 */
import type { Bytes32, NormalAddress } from './order.ts';

const ANY_CASE = /^0x[0-9a-fA-F]{64}$/;
const NORMAL = /^0x[0-9a-f]{64}$/;
const ADDRESS_ANY_CASE = /^0x[0-9a-fA-F]{40}$/;
const ADDRESS_NORMAL = /^0x[0-9a-f]{40}$/;

/** `v` as a normalised 32-byte id (lower-case hex), or null when it is not one. */
export function bytes32Of(v: unknown): Bytes32 | null {
  if (typeof v !== 'string' || !ANY_CASE.test(v)) return null;
  // ids arrive lower-case almost always: no copy then
  return (NORMAL.test(v) ? v : v.toLowerCase()) as Bytes32;
}

/** Is `v` a 32-byte id in normal form (what bytes32Of returns)? */
export function isBytes32(v: unknown): v is Bytes32 {
  return typeof v === 'string' && NORMAL.test(v);
}

/** `v` as an address in normal form (lower-case hex), or null when it is not 0x + 40 hex digits. */
export function addressOf(v: unknown): NormalAddress | null {
  if (typeof v !== 'string' || !ADDRESS_ANY_CASE.test(v)) return null;
  return (ADDRESS_NORMAL.test(v) ? v : v.toLowerCase()) as NormalAddress;
}

/** addressOf for a value that must be an address (a constant, the signer's own): throws naming `what`. */
export function mustAddress(v: unknown, what: string): NormalAddress {
  const a = addressOf(v);
  if (a === null) throw new Error(`${what}: expected an address (0x followed by 40 hex digits), got ${JSON.stringify(v)}`);
  return a;
}
