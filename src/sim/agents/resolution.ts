/**
 * Resolution of a generated market at its deadline: YES with the hidden fair probability (so fair
 * value was a calibrated forecast), as a resolve command with payoutPcts of 100/0.
 */
import type { EngineCommand } from '../../engine/types.ts';
import type { Rng } from '../rng.ts';

export function resolutionCommand(market: number, endTimeMs: number, rng: Rng, nowMs: number, fairProbability: number): EngineCommand | null {
  if (nowMs < endTimeMs) return null;
  const yes = rng.next() < fairProbability;
  return { type: 'resolve', market, payoutYes: yes ? 1_000_000 : 0, nowMs };
}
