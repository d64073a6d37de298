/**
 * Which wallet an account request is about: an explicit `address` (path, query or body), else the
 * API key's primary wallet. Inside, a wallet is lower-case (../../wire-ids.ts); answers spell it
 * EIP-55 checksummed (../../checksum.ts `checksumOf`).
 */
import type { RequestContext } from '../../context.ts';
import { unauthorized } from '../../http-errors.ts';
import { address as parseAddress } from '../../validate.ts';
import { walletOf, type LowerAddress } from '../../wire-ids.ts';

/** The key's wallet (auth already checked by the router; 401 if absent anyway). */
export function keyWallet(ctx: RequestContext): LowerAddress {
  if (!ctx.key) throw unauthorized();
  return walletOf(ctx.key);
}

/** `raw` validated as an address (400 naming `field`), or the key's wallet when absent. */
export function walletOrKey(ctx: RequestContext, raw: unknown, field: string): LowerAddress {
  if (raw === undefined || raw === null || raw === '') return keyWallet(ctx);
  return parseAddress(raw, field);
}
