/**
 * Error replies of the local exchange: every non-2xx answer is `{ message, code }` (the spec's
 * PublicApiError allows extra properties), plus `field` when one input field is at fault.
 *
 * Documented codes (stable; clients may switch on them):
 *
 * | status | code                 | when                                                             |
 * |--------|----------------------|------------------------------------------------------------------|
 * | 400    | INVALID_JSON         | the body is not JSON                                             |
 * | 400    | VALIDATION_ERROR     | a body, query or path field is malformed (`field` names it)      |
 * | 400    | INVALID_SIGNATURE    | the recovered EIP-712 signer is not the trader                   |
 * | 400    | BATCH_TOO_LARGE      | a bulk call carries more items than the batch limit              |
 * | 400    | INSUFFICIENT_BALANCE | the order's reservation (collateral or tokens) is not available  |
 * | 401    | UNAUTHORIZED         | no `Authorization: Bearer KEY`, or an unknown key                |
 * | 403    | FORBIDDEN            | the key lacks a permission, or acts for another wallet           |
 * | 404    | NOT_FOUND            | unknown path, market, order, submission...                       |
 * | 405    | METHOD_NOT_ALLOWED   | the path exists with another method                              |
 * | 409    | nonce_already_used   | the trader already used this nonce (lower case, as the venue)     |
 * | 409    | MIGRATION_REQUIRED   | trading is blocked while the wallet's migration is active         |
 * | 409    | CONFLICT             | another state conflict (e.g. market not active)                   |
 * | 408    | REQUEST_TIMEOUT      | the body did not arrive within the body timeout (then closed)     |
 * | 413    | PAYLOAD_TOO_LARGE    | the body exceeds the size limit                                   |
 * | 415    | UNSUPPORTED_MEDIA    | a body that is not application/json                                |
 * | 429    | RATE_LIMITED         | the key's token bucket (or an endpoint quota) is empty            |
 * | 500    | INTERNAL_ERROR       | a bug; never carries internals                                    |
 * | 503    | SERVICE_UNAVAILABLE  | an injected fault; too many bodies in flight; the journal failed   |
 */
export type HttpErrorCode =
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'INVALID_SIGNATURE'
  | 'BATCH_TOO_LARGE'
  | 'INSUFFICIENT_BALANCE'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'nonce_already_used'
  | 'MIGRATION_REQUIRED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'UNSUPPORTED_MEDIA'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

/** Thrown by handlers (and validators) to answer with a typed error reply. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: HttpErrorCode;
  readonly field: string | undefined;
  /** extra JSON properties merged into the body (e.g. `retryAfter`) */
  readonly extra: Record<string, unknown> | undefined;
  /** extra response headers (e.g. `Retry-After`) */
  readonly headers: Record<string, string> | undefined;
  constructor(
    status: number,
    code: HttpErrorCode,
    message: string,
    opts: { field?: string; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.field = opts.field;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }

  /** The JSON body of the reply. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { message: this.message, code: this.code };
    if (this.field !== undefined) body.field = this.field;
    if (this.extra) Object.assign(body, this.extra);
    return body;
  }
}

export const badRequest = (field: string, message: string): HttpError => new HttpError(400, 'VALIDATION_ERROR', `${field}: ${message}`, { field });
export const invalidSignature = (field = 'signature'): HttpError =>
  new HttpError(400, 'INVALID_SIGNATURE', `${field}: the recovered signer is not the trader`, { field });
export const unauthorized = (): HttpError => new HttpError(401, 'UNAUTHORIZED', 'missing or unknown API key');
export const forbidden = (message: string): HttpError => new HttpError(403, 'FORBIDDEN', message);
export const notFound = (what: string): HttpError => new HttpError(404, 'NOT_FOUND', `${what} not found`);
export const nonceUsed = (): HttpError => new HttpError(409, 'nonce_already_used', 'nonce already used by this trader', { field: 'nonce' });
export const conflict = (message: string): HttpError => new HttpError(409, 'CONFLICT', message);
export const rateLimited = (retryAfterSeconds: number): HttpError =>
  new HttpError(429, 'RATE_LIMITED', 'rate limit exceeded', {
    extra: { retryAfter: retryAfterSeconds },
    headers: { 'Retry-After': String(Math.max(0, Math.ceil(retryAfterSeconds))) },
  });
export const internalError = (): HttpError => new HttpError(500, 'INTERNAL_ERROR', 'internal error');
