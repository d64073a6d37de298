/**
 * Errors of the venue HTTP client. `BadResponseError` (a malformed answer) lives in src/model/errors.ts
 * and is re-used here. Messages carry the endpoint and public values only, never a key or a header.
 */
import { BookmakerError } from '../../model/errors.ts';

/** The venue answered with a non-2xx status. */
export class VenueError extends BookmakerError {
  readonly status: number;
  /** the venue's `code` when its body has one (e.g. "nonce_already_used"), else null */
  readonly venueCode: string | null;
  /** e.g. "POST /orders" */
  readonly endpoint: string;
  /** from Retry-After / X-RateLimit-Reset / a `retryAfter` body field; null when the venue gave none */
  readonly retryAfterMs: number | null;
  /** the parsed error body (null when it was not JSON); kept for callers that need `errors[]` of a bulk call */
  readonly body: unknown;
  constructor(args: { status: number; venueCode: string | null; message: string; endpoint: string; retryAfterMs: number | null; body: unknown }) {
    super(
      args.status === 429 ? 'RATE_LIMITED' : 'VENUE_ERROR',
      `${args.endpoint}: HTTP ${args.status}${args.venueCode ? ` ${args.venueCode}` : ''}: ${args.message}`,
    );
    this.status = args.status;
    this.venueCode = args.venueCode;
    this.endpoint = args.endpoint;
    this.retryAfterMs = args.retryAfterMs;
    this.body = args.body;
  }
  /** the venue's own message, without the endpoint/status prefix */
  get venueMessage(): string {
    const b = this.body as { message?: unknown; error?: unknown } | null;
    if (b && typeof b.message === 'string') return b.message;
    if (b && typeof b.error === 'string') return b.error;
    return '';
  }
}

/** The request never got an HTTP answer (connection refused/reset, DNS, socket closed). */
export class NetworkError extends BookmakerError {
  readonly endpoint: string;
  /** undici / libuv error code when known, e.g. ECONNREFUSED, UND_ERR_SOCKET */
  readonly errno: string | null;
  constructor(endpoint: string, message: string, errno: string | null, options?: { cause?: unknown }) {
    super('NETWORK', `${endpoint}: network error${errno ? ` ${errno}` : ''}: ${message}`, options);
    this.endpoint = endpoint;
    this.errno = errno;
  }
}

/** No complete answer within the per-request timeout. */
export class TimeoutError extends BookmakerError {
  readonly endpoint: string;
  readonly timeoutMs: number;
  constructor(endpoint: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('TIMEOUT', `${endpoint}: no answer within ${timeoutMs} ms`, options);
    this.endpoint = endpoint;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Build a VenueError from a status and body. The venue's error body is `{message, code?}`;
 * GET /balance sends `{error, message}` (then `error` is the short code-like label).
 */
export function venueErrorFromBody(status: number, body: unknown, endpoint: string, retryAfterMs: number | null): VenueError {
  let message = `request failed with status ${status}`;
  let code: string | null = null;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (typeof b.message === 'string' && b.message) message = b.message;
    else if (typeof b.error === 'string' && b.error) message = b.error;
    if (typeof b.code === 'string' && b.code) code = b.code;
    else if (typeof b.error === 'string' && b.error && typeof b.message === 'string') code = b.error;
  } else if (typeof body === 'string' && body) {
    message = body.length > 200 ? body.slice(0, 197) + '...' : body;
  }
  return new VenueError({ status, venueCode: code, message, endpoint, retryAfterMs, body });
}
