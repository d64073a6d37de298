/**
 * Exponential back-off with full jitter ("Exponential Backoff And Jitter", AWS): the n-th wait is uniform in
 * [0, min(cap, base·2^n)], which spreads a crowd of clients instead of having them retry in lock-step.
 */
export interface RetryPolicy {
  /** total attempts including the first (default 5) */
  maxAttempts: number;
  /** first back-off ceiling, ms (default 200) */
  baseDelayMs: number;
  /** largest back-off ceiling, ms (default 10 000) */
  maxDelayMs: number;
  /** give up when the next wait would end later than this after the first attempt, ms (default 30 000) */
  maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, maxTotalMs: 30_000 };

/** attempt = 1 after the first failure. `random` in [0, 1). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The wait before the next attempt: the venue's Retry-After when it gave one (never less, so we honour it),
 * otherwise the jittered back-off.
 */
export function nextDelay(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random?: () => number): number {
  const jitter = backoffDelay(attempt, policy, random);
  return retryAfterMs !== undefined ? Math.max(retryAfterMs, 0) : jitter;
}
