/**
 * Order-rate token bucket. Each create costs one token; cancels are free because they only ever
 * reduce risk. When the bucket cannot pay for every change, the most valuable changes go first:
 * a quote for an empty slot before any move, and among moves, big price moves of near levels before
 * small moves of far ones (value = ticks moved / (1 + level), plus any size change).
 */
import type { DesiredQuote, WorkingQuote } from '../strategy/types.ts';
import type { OrderRateLimits } from './types.ts';

export function refill(tokens: number, refilledAt: number | null, now: number, rate: OrderRateLimits): number {
  if (!Number.isFinite(tokens) || refilledAt === null) return rate.capacity;
  const elapsed = Math.max(0, now - refilledAt) / 1000;
  return Math.min(rate.capacity, tokens + elapsed * rate.refillPerSecond);
}

/** Value of replacing `old` (same side and level) with `q`; Infinity for a new slot. */
export function requoteValue(q: DesiredQuote, old: WorkingQuote | undefined, tick: number): number {
  return moveValue(q.price, q.size, q.level, old, tick);
}

/** requoteValue from the quote's fields (the gate values trimmed sizes without copying the quote). */
export function moveValue(price: number, size: number, level: number | undefined, old: WorkingQuote | undefined, tick: number): number {
  if (!old) return Number.POSITIVE_INFINITY;
  const ticks = Math.abs(price - old.price) / tick;
  const sizeChange = old.size > 0 ? Math.abs(size - old.size) / old.size : 1;
  return (ticks + sizeChange) / (1 + (level ?? 0));
}

export interface Budgeted {
  readonly granted: boolean[];
  readonly tokens: number;
}

/** Grant tokens to changes by value, highest first; ties keep input order. */
export function allocateBudget(values: readonly number[], tokens: number): Budgeted {
  const granted = new Array<boolean>(values.length).fill(false);
  // the common case, a full enough bucket, grants everything: no need to rank
  if (tokens >= values.length) {
    granted.fill(true);
    let left = tokens;
    for (let k = 0; k < values.length; k++) left -= 1; // one at a time, as below: same float result
    return { granted, tokens: left };
  }
  const order = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]! || a - b);
  let left = tokens;
  for (const i of order) {
    if (left < 1) break;
    granted[i] = true;
    left -= 1;
  }
  return { granted, tokens: left };
}

/** Budget pressure for the metrics gauge: 0 = bucket full, 1 = empty. */
export function ratePressure(tokens: number, rate: OrderRateLimits): number {
  if (!Number.isFinite(tokens) || rate.capacity <= 0) return 0;
  return Math.min(1, Math.max(0, 1 - tokens / rate.capacity));
}
