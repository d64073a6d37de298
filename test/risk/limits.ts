/** Generous default limits for risk tests; each case tightens what it exercises. */
import type { RiskLimits } from '../../src/risk/types.ts';

export const S = 1_000_000;

export function limits(o: Partial<RiskLimits> = {}): RiskLimits {
  return {
    maxPosition: 1000 * S,
    maxNotional: 1_000_000 * S,
    maxTotalPosition: 0,
    maxTotalNotional: 0,
    maxOrderSize: 1000 * S,
    maxDistanceFromFair: 0,
    allowCrossing: false,
    reduceOnly: false,
    halted: false,
    maxBookAgeMs: 10_000,
    maxStreamSilenceMs: 15_000,
    pauseBeforeDeadlineMs: 0,
    orderRate: { capacity: 1000, refillPerSecond: 100 },
    ...o,
  };
}
