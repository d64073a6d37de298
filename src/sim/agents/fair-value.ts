/**
 * The hidden fair value of a market: a random walk in logit space (so it never leaves (0, 1)) with
 * Poisson jumps. Agents trade around it; the venue never publishes it.
 */
import type { Rng } from '../rng.ts';
import { exponential, gaussian } from './random-draws.ts';

export interface FairValueConfig {
  /** diffusion, logit units per √second (default 0.01) */
  volPerSqrtSec: number;
  /** jumps per second (default 1/600) */
  jumpRatePerSec: number;
  /** standard deviation of a jump in logit units (default 0.6) */
  jumpStd: number;
  /** the probability is kept within [bound, 1 − bound] (default 0.02) */
  bound: number;
}

export const DEFAULT_FAIR_VALUE: Readonly<FairValueConfig> = Object.freeze({
  volPerSqrtSec: 0.01,
  jumpRatePerSec: 1 / 600,
  jumpStd: 0.6,
  bound: 0.02,
});

export interface FairValueState {
  logit: number;
  lastMs: number;
  /** when the next jump happens */
  nextJumpMs: number;
}

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function initFairValue(probability: number, cfg: FairValueConfig, rng: Rng, nowMs: number): FairValueState {
  const p = Math.min(1 - cfg.bound, Math.max(cfg.bound, probability));
  return { logit: logit(p), lastMs: nowMs, nextJumpMs: nowMs + exponential(rng, cfg.jumpRatePerSec) * 1000 };
}

/** Advance to nowMs: diffusion for the elapsed time plus every jump due in between. */
export function stepFairValue(s: FairValueState, cfg: FairValueConfig, rng: Rng, nowMs: number): FairValueState {
  if (nowMs <= s.lastMs) return s;
  const dt = (nowMs - s.lastMs) / 1000;
  let x = s.logit + cfg.volPerSqrtSec * Math.sqrt(dt) * gaussian(rng);
  let nextJumpMs = s.nextJumpMs;
  while (nextJumpMs <= nowMs) {
    x += cfg.jumpStd * gaussian(rng);
    nextJumpMs += Math.max(1, exponential(rng, cfg.jumpRatePerSec) * 1000);
  }
  const lo = logit(cfg.bound);
  x = Math.min(-lo, Math.max(lo, x));
  return { logit: x, lastMs: nowMs, nextJumpMs };
}

export function fairProbability(s: FairValueState): number {
  return sigmoid(s.logit);
}
