/**
 * When may we call again? Reads `Retry-After` (delta seconds or an HTTP date), then `X-RateLimit-Reset`
 * (unix seconds, as the venue's spec declares it), then a `retryAfter` body field (the oracle-quote 429).
 * Pure: the current time is passed in.
 */
export type HeaderBag = Record<string, string | string[] | undefined>;

export function header(h: HeaderBag, name: string): string | undefined {
  const v = h[name] ?? h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const t = Date.parse(s);
  if (Number.isFinite(t)) return Math.max(0, t - nowMs);
  return null;
}

/** X-RateLimit-Reset: unix seconds; a small value (< 1e9) is taken as seconds-from-now, as some servers send. */
export function parseRateLimitReset(value: string | undefined, nowMs: number): number | null {
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value.trim())) return null;
  const n = Number(value);
  if (n < 1e9) return Math.round(n * 1000);
  return Math.max(0, Math.round(n * 1000 - nowMs));
}

export function retryAfterMsOf(headers: HeaderBag, body: unknown, nowMs: number): number | null {
  const ra = parseRetryAfter(header(headers, 'retry-after'), nowMs);
  if (ra !== null) return ra;
  const reset = parseRateLimitReset(header(headers, 'x-ratelimit-reset'), nowMs);
  if (reset !== null) return reset;
  if (body && typeof body === 'object') {
    const b = (body as { retryAfter?: unknown }).retryAfter;
    if (typeof b === 'number' && Number.isFinite(b) && b >= 0) return Math.round(b * 1000);
  }
  return null;
}
