/**
 * Per-key token buckets for the local exchange's rate limit. A request takes `cost` tokens; an
 * empty bucket answers 429 with X-RateLimit-Limit / -Remaining / -Reset (unix seconds when the
 * bucket is full again), the headers the spec declares.
 */
export interface BucketState {
  tokens: number;
  /** ms of the last refill */
  at: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** unix seconds when the bucket is full again */
  reset: number;
  /** seconds until one request would pass (0 when allowed) */
  retryAfter: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, BucketState>();
  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
  ) {}

  /** buckets held (bounded: full buckets are forgotten once there are many) */
  get size(): number {
    return this.buckets.size;
  }

  take(id: string, now: number, cost = 1): RateDecision {
    let b = this.buckets.get(id);
    if (!b) {
      if (this.buckets.size >= 10_000) this.prune(now);
      b = { tokens: this.capacity, at: now };
      this.buckets.set(id, b);
    }
    const elapsed = Math.max(0, now - b.at) / 1000;
    b.tokens = Math.min(this.capacity, b.tokens + elapsed * this.refillPerSecond);
    b.at = now;
    const allowed = b.tokens >= cost;
    if (allowed) b.tokens -= cost;
    const missing = this.capacity - b.tokens;
    const reset = Math.ceil((now + (missing / this.refillPerSecond) * 1000) / 1000);
    const retryAfter = allowed ? 0 : (cost - b.tokens) / this.refillPerSecond;
    return { allowed, limit: this.capacity, remaining: Math.max(0, Math.floor(b.tokens)), reset, retryAfter };
  }

  /** Forget buckets that have refilled completely (a new bucket starts full: nothing changes for their clients). */
  private prune(now: number): void {
    const fullAfterMs = (this.capacity / this.refillPerSecond) * 1000;
    for (const [k, b] of this.buckets) if (now - b.at >= fullAfterMs) this.buckets.delete(k);
  }

  /** Empty a bucket (fault injection: a 429 burst). */
  drain(id: string, now: number): void {
    this.buckets.set(id, { tokens: 0, at: now });
  }
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.reset),
  };
}
