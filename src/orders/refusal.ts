/**
 * Venue refusals, classified for people and for metrics.
 *
 *   refusalLabel(o)   → the metric label: the venue's `code` when it is one of a bounded, documented
 *                       set, `other` for any other venue code, else the client's classifier reason
 *                       (network, timeout, server-error, …) when the venue never answered with a code.
 *   fatalRefusal(o)   → { cause, fix } when the refusal cannot succeed on retry for ANY create (bad key,
 *                       a key acting for another wallet, an invalid signature): the runtime halts, exit 4.
 *   fatalVoid(r, n)   → the same for an order the venue accepted and then voided for a reason every
 *                       order of the wallet would meet (no operator approval, an invalid signature).
 *
 * Pure: no clock, no I/O. Messages carry only public values (status, code, the venue's message).
 */
import { BookmakerError } from '../model/errors.ts';
import type { VoidReason } from '../model/order.ts';
import type { VenueFailure } from '../model/venue.ts';

/** Venue codes kept as metric labels (docs/venue.md#authentication-errors-and-retries and the local exchange's documented codes). */
export const VENUE_REFUSAL_CODES: ReadonlySet<string> = new Set([
  'INVALID_JSON',
  'VALIDATION_ERROR',
  'INVALID_SIGNATURE',
  'BATCH_TOO_LARGE',
  'INSUFFICIENT_BALANCE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'nonce_already_used',
  'MIGRATION_REQUIRED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SELF_TRADE',
  'MARKET_NOT_ACTIVE',
]);

/** Failures with no venue answer naming a code (the call failed, or the item was not answered or not applied). */
const LOCAL_REASONS: ReadonlySet<VenueFailure> = new Set<VenueFailure>([
  'network',
  'timeout',
  'server-error',
  'rate-limited',
  'bad-response',
  'not-idempotent',
  'not-applied',
  'no-answer',
  'migration-required',
  'unknown',
]);

/** The parts of a refused create this module reads. */
export interface Refusal {
  /** why, in the failure vocabulary (see CreateOutcome.code) */
  readonly code: VenueFailure;
  readonly message: string;
  /** HTTP status of the venue's answer, when there was one */
  readonly status?: number | undefined;
  /** the venue's own `code`, when its answer had one */
  readonly venueCode?: string | undefined;
}

export function refusalLabel(o: Refusal): string {
  if (o.venueCode) return VENUE_REFUSAL_CODES.has(o.venueCode) ? o.venueCode : 'other';
  if (LOCAL_REASONS.has(o.code)) return o.code;
  // a classifier reason for a venue answer without a code: name it by status class
  if (o.status !== undefined) return statusLabel(o.status);
  return 'other';
}

function statusLabel(status: number): string {
  switch (status) {
    case 400:
      return 'VALIDATION_ERROR';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'other';
  }
}

export interface FatalRefusal {
  readonly cause: string;
  readonly fix: string;
}

const WALLET_MISMATCH = /wallet/i;
const SIGNATURE = /signature/i;

/**
 * A refusal no retry and no other order can get past: every create would meet it. Returns the cause
 * and the operator's fix, or null for refusals that concern this order only (balance, price, …).
 */
export function fatalRefusal(o: Refusal): FatalRefusal | null {
  const what = `${o.status ?? '-'} ${o.venueCode ?? o.code}: ${o.message}`;
  const signature = o.code === 'invalid-signature' || o.venueCode === 'INVALID_SIGNATURE' || (o.status === 400 && SIGNATURE.test(o.message));
  if (signature) {
    return {
      cause: `the venue rejects this bot's order signatures (${what})`,
      fix: "check that the private key (BOOKMAKER_PRIVATE_KEY / --key-file) is the trading wallet's and that the chain (venue.chain) matches the venue",
    };
  }
  const unauthorized = o.status === 401 || o.venueCode === 'UNAUTHORIZED' || o.code === 'unauthorized';
  if (unauthorized) {
    return {
      cause: `the venue does not accept the API key (${what})`,
      fix: 'set a valid API key for this venue (BOOKMAKER_API_KEY, --api-key or wallet.apiKeyFile)',
    };
  }
  const forbidden = o.status === 403 || o.venueCode === 'FORBIDDEN' || o.code === 'forbidden';
  if (forbidden) {
    if (WALLET_MISMATCH.test(o.message)) {
      return {
        cause: `the API key belongs to another wallet than the private key's (${what})`,
        fix: 'use the API key issued for the signing wallet, or the private key of the wallet the API key belongs to',
      };
    }
    return {
      cause: `the venue forbids this API key to place orders (${what})`,
      fix: 'give the API key the trading permission at the venue, or use a key that has it',
    };
  }
  return null;
}

/**
 * A void that every order of this wallet would meet: the venue accepted the create and then voided it
 * for a reason of the wallet, not of the order. Returns the cause and the operator's fix, or null for
 * voids of this order only (under-collateralised, an IOC that did not fill, a resolved market, …).
 */
export function fatalVoid(reason: VoidReason, nonce: string): FatalRefusal | null {
  if (reason === 'MISSING_OPERATOR_APPROVAL')
    return {
      cause: `the venue voided order ${nonce} because Settlement V2 is not an approved operator of this wallet (MISSING_OPERATOR_APPROVAL)`,
      fix: "approve Settlement V2 as operator of the wallet's Holdings (the venue's account set-up, or the start-up migration for a legacy wallet; `bookmaker doctor` checks it), then start again",
    };
  if (reason === 'INVALID_SIGNATURE')
    return {
      cause: `the venue voided order ${nonce} for an invalid signature (INVALID_SIGNATURE)`,
      fix: "check that the private key (BOOKMAKER_PRIVATE_KEY / --key-file) is the trading wallet's and that the chain (venue.chain) matches the venue",
    };
  return null;
}

/** The halt error of a fatal refusal: its message names the cause and the fix. */
export class VenueRefusedError extends BookmakerError {
  readonly refusal: string;
  readonly fix: string;
  constructor(f: FatalRefusal) {
    super('VENUE_ERROR', `${f.cause}. Fix: ${f.fix}`);
    this.refusal = f.cause;
    this.fix = f.fix;
  }
}
