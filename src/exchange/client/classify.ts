/**
 * The one error classifier (docs/architecture.md#habits (habit 5)), used by the client's retry loop and by the order manager.
 *
 *   retry   — transient; try again soon with jittered back-off (5xx, network, timeout) — only when the call is
 *             a read or an idempotent write; a non-idempotent write may have been applied, so it is 'fail'.
 *   backoff — the venue asked us to slow down (429); wait at least its Retry-After, then retry. Safe for every
 *             call: a 429 means the request was refused, not applied.
 *   halt    — continuing would be wrong: an invalid signature (our signing or key is broken) or a wallet that
 *             must migrate first. Stop trading on this path; the caller decides (cancel all, run migration).
 *   fail    — a permanent answer for this request (400/401/403/404, other 409s, malformed bodies).
 *
 * 409 rule (the venue publishes no code list, docs/venue.md#endpoints): a 409 whose code or message mentions migration
 * ("migrat…") is 'migration-required'; one whose code or message mentions a nonce or a duplicate
 * ("nonce", "duplicate", "already exists", "already used", e.g. code `nonce_already_used`) is 'duplicate'.
 * Migration is checked first because a migration message may mention orders that "already exist" elsewhere.
 * Any other 409 is a plain 'conflict' → fail.
 * Invalid signature: a 400 (or 401) whose code or message mentions "signature" → halt.
 */
import { BadResponseError, BookmakerError, type ErrorCode } from '../../model/errors.ts';
import type { ErrorReason, VenueFailure } from '../../model/venue.ts';
import { NetworkError, TimeoutError, VenueError } from './errors.ts';

export type ErrorAction = 'retry' | 'backoff' | 'halt' | 'fail';

export type { ErrorReason };

export interface Classification {
  action: ErrorAction;
  reason: ErrorReason;
  /** for 'backoff': the venue's requested wait, when it gave one */
  retryAfterMs?: number;
}

export interface ClassifyContext {
  /** the request is a read, or a write that is safe to resend unchanged (default true) */
  idempotent?: boolean;
}

const MIGRATION = /migrat/i;
const DUPLICATE = /nonce|duplicate|already[ _-]?(exists|used|placed|submitted)/i;
const SIGNATURE = /signature/i;

function text(e: VenueError): string {
  return `${e.venueCode ?? ''} ${e.venueMessage}`;
}

/** Decide what to do about a failed venue call. Total: any thrown value gets an answer. */
export function classify(err: unknown, ctx: ClassifyContext = {}): Classification {
  const idempotent = ctx.idempotent ?? true;
  if (err instanceof VenueError) return classifyVenue(err, idempotent);
  if (err instanceof TimeoutError) return idempotent ? { action: 'retry', reason: 'timeout' } : { action: 'fail', reason: 'not-idempotent' };
  if (err instanceof NetworkError) return idempotent ? { action: 'retry', reason: 'network' } : { action: 'fail', reason: 'not-idempotent' };
  if (err instanceof BadResponseError) return { action: 'fail', reason: 'bad-response' };
  if (err instanceof BookmakerError) return { action: 'fail', reason: 'unknown' };
  return { action: 'fail', reason: 'unknown' };
}

function classifyVenue(e: VenueError, idempotent: boolean): Classification {
  const s = e.status;
  if (s === 429)
    return e.retryAfterMs !== null
      ? { action: 'backoff', reason: 'rate-limited', retryAfterMs: e.retryAfterMs }
      : { action: 'backoff', reason: 'rate-limited' };
  if (s === 409) {
    const t = text(e);
    if (MIGRATION.test(t)) return { action: 'halt', reason: 'migration-required' };
    if (DUPLICATE.test(t)) return { action: 'fail', reason: 'duplicate' };
    return { action: 'fail', reason: 'conflict' };
  }
  if ((s === 400 || s === 401) && SIGNATURE.test(text(e))) return { action: 'halt', reason: 'invalid-signature' };
  if (s === 400 || s === 422) return { action: 'fail', reason: 'bad-request' };
  if (s === 401) return { action: 'fail', reason: 'unauthorized' };
  if (s === 403) return { action: 'fail', reason: 'forbidden' };
  if (s === 404) return { action: 'fail', reason: 'not-found' };
  if (s === 408 || s >= 500) return idempotent ? { action: 'retry', reason: 'server-error' } : { action: 'fail', reason: 'not-idempotent' };
  return { action: 'fail', reason: 'unknown' };
}

/** Our own typed errors a venue call may throw (a rate limiter, the signer), in the failure vocabulary. */
const FAILURE_OF_CODE: Partial<Record<ErrorCode, VenueFailure>> = {
  RATE_LIMITED: 'rate-limited',
  SIGNING: 'invalid-signature',
  MIGRATION_REQUIRED: 'migration-required',
  DUPLICATE: 'duplicate',
  NETWORK: 'network',
  TIMEOUT: 'timeout',
  BAD_RESPONSE: 'bad-response',
};

/**
 * A failed call in the failure vocabulary (src/model/venue.ts VenueFailure): the classifier's reason,
 * or, for one of our own errors the classifier knows no more of, the reason its code names.
 */
export function failureOf(err: unknown, c: Classification = classify(err)): VenueFailure {
  if (c.reason !== 'unknown' || !(err instanceof BookmakerError)) return c.reason;
  return FAILURE_OF_CODE[err.code] ?? 'unknown';
}
