/**
 * The venue's `X-RateLimit-*` headers (declared on a few endpoints; read wherever they appear), kept as the
 * latest known state, plus optional client-side pacing so a bot does not run into 429s in the first place.
 */
import { header, parseRateLimitReset, type HeaderBag } from './retry-after.ts';

export interface RateLimitState {
  limit: number | null;
  remaining: number | null;
  /** unix ms at which the window resets, null when unknown */
  resetAtMs: number | null;
  /** local time the headers were read */
  observedAtMs: number;
}

/**
 * Client-side pacing, off unless the client is given a `pacing` object: the venue declares `X-RateLimit-*` on
 * a few endpoints only (market creation, questions, the test mint) and the state kept here is client-wide, so waiting on
 * it by default would hold every read because one rare write used up its own budget. 429s are honoured
 * (Retry-After, X-RateLimit-Reset) with or without pacing.
 */
export interface PacingOptions {
  /** minimum spacing between request starts, ms (default 0 = off) */
  minIntervalMs?: number;
  /** when the venue said remaining = 0, wait for its reset before the next request (default true) */
  waitOnExhausted?: boolean;
}

function int(v: string | undefined): number | null {
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : null;
}

/** Read the headers; null when none of the three is present. */
export function readRateLimit(h: HeaderBag, nowMs: number): RateLimitState | null {
  const limit = int(header(h, 'x-ratelimit-limit'));
  const remaining = int(header(h, 'x-ratelimit-remaining'));
  const resetIn = parseRateLimitReset(header(h, 'x-ratelimit-reset'), nowMs);
  if (limit === null && remaining === null && resetIn === null) return null;
  return { limit, remaining, resetAtMs: resetIn === null ? null : nowMs + resetIn, observedAtMs: nowMs };
}

/** How long to wait before starting a request now, given the last state and the last request start. */
export function pacingDelay(state: RateLimitState | null, lastStartMs: number | null, nowMs: number, opts: PacingOptions): number {
  let wait = 0;
  const gap = opts.minIntervalMs ?? 0;
  if (gap > 0 && lastStartMs !== null) wait = Math.max(wait, lastStartMs + gap - nowMs);
  if ((opts.waitOnExhausted ?? true) && state && state.remaining === 0 && state.resetAtMs !== null) {
    wait = Math.max(wait, state.resetAtMs - nowMs);
  }
  return Math.max(0, wait);
}
