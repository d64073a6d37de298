/**
 * Which wallet an account request is about: an explicit `address` (path, query or body), else the
 * API key's primary wallet. Answers use EIP-55 checksummed addresses.
 */
import { getAddress } from 'viem';
import type { RequestContext } from '../../context.ts';
import { unauthorized } from '../../http-errors.ts';
import { address as parseAddress } from '../../validate.ts';
import type { Address } from '../../../model/order.ts';

export function checksum(a: string): Address {
  return getAddress(a) as Address;
}

/** The key's wallet (auth already checked by the router; 401 if absent anyway). */
export function keyWallet(ctx: RequestContext): Address {
  if (!ctx.key) throw unauthorized();
  return checksum(ctx.key.wallet);
}

/** `raw` validated as an address (400 naming `field`), or the key's wallet when absent. */
export function walletOrKey(ctx: RequestContext, raw: unknown, field: string): Address {
  if (raw === undefined || raw === null || raw === '') return keyWallet(ctx);
  return checksum(parseAddress(raw, field));
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
