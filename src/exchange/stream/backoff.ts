/**
 * Exponential back-off with jitter for stream reconnects. Jitter spreads the reconnects of many streams
 * (one per market and outcome) so a venue restart is not met by a synchronised thundering herd.
 */
export interface BackoffPolicy {
  /** delay before the first retry, ms */
  initialMs: number;
  /** cap, ms */
  maxMs: number;
  /** growth per failed attempt */
  factor: number;
  /** 0..1: the fraction of the delay that is randomised away (0 = none, 1 = "full jitter") */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 30_000, factor: 2, jitter: 0.5 };

/** Delay before retry number `attempt` (1-based): min(max, initial·factor^(attempt−1)) minus up to `jitter` of it. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  // Cap the exponent so a long outage cannot overflow to Infinity before the min() applies.
  const raw = policy.initialMs * Math.pow(policy.factor, Math.min(n - 1, 60));
  const capped = Math.min(policy.maxMs, raw);
  const j = Math.min(1, Math.max(0, policy.jitter));
  return Math.max(0, Math.round(capped * (1 - j * random())));
}
