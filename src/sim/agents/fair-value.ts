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
  /**
   * keep the probability a martingale (default true): a walk in logit space drifts toward ½ in
   * probability (a jump of ±0.9 in logit from p = 0.8 lands at 0.62 or 0.91, 0.76 on average), so
   * holding toward ½ would earn by itself; a market's probability of an event does not drift. With it,
   * the diffusion carries the drift ½σ²(2p − 1) in logit and each jump the mean that makes the
   * expected probability after it the one before it (the same random draws either way). `false`
   * gives the plain logit walk of earlier versions (docs/edge.md, "The fair value is a martingale").
   */
  martingale: boolean;
}

export const DEFAULT_FAIR_VALUE: Readonly<FairValueConfig> = Object.freeze({
  volPerSqrtSec: 0.01,
  jumpRatePerSec: 1 / 600,
  jumpStd: 0.6,
  bound: 0.02,
  martingale: true,
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
  const drift = cfg.martingale ? 0.5 * cfg.volPerSqrtSec ** 2 * (2 * sigmoid(s.logit) - 1) * dt : 0;
  let x = s.logit + drift + cfg.volPerSqrtSec * Math.sqrt(dt) * gaussian(rng);
  let nextJumpMs = s.nextJumpMs;
  while (nextJumpMs <= nowMs) {
    const lim = -logit(cfg.bound);
    x += (cfg.martingale ? martingaleJumpMean(Math.min(lim, Math.max(-lim, x)), cfg.jumpStd, lim) : 0) + cfg.jumpStd * gaussian(rng);
    nextJumpMs += Math.max(1, exponential(rng, cfg.jumpRatePerSec) * 1000);
  }
  const lo = logit(cfg.bound);
  x = Math.min(-lo, Math.max(lo, x));
  return { logit: x, lastMs: nowMs, nextJumpMs };
}

export function fairProbability(s: FairValueState): number {
  return sigmoid(s.logit);
}

// E[f(Z)], Z ~ N(0, 1), on a grid of 241 points over ±6 (weights the normal density, normalised)
const GRID = ((): { z: Float64Array; w: Float64Array } => {
  const n = 241;
  const z = new Float64Array(n);
  const w = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    z[i] = -6 + (12 * i) / (n - 1);
    w[i] = Math.exp(-0.5 * z[i]! * z[i]!);
    sum += w[i]!;
  }
  for (let i = 0; i < n; i++) w[i] = w[i]! / sum;
  return { z, w };
})();

/** E[sigmoid(clamp(x + m + sd·Z))], the clamp to [−lim, lim] */
function meanAfterJump(x: number, m: number, sd: number, lim: number): number {
  let e = 0;
  for (let i = 0; i < GRID.z.length; i++) e += GRID.w[i]! * sigmoid(Math.min(lim, Math.max(-lim, x + m + sd * GRID.z[i]!)));
  return e;
}

/**
 * The mean m of a jump of `sd` in logit from `x` with E[sigmoid(clamp(x + m + sd·Z))] = sigmoid(x),
 * the clamp to [−lim, lim] as the walk keeps it (bisection; |x| < lim).
 */
export function martingaleJumpMean(x: number, sd: number, lim: number): number {
  const target = sigmoid(x);
  let lo = -2 * lim - 6 * sd;
  let hi = 2 * lim + 6 * sd;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (meanAfterJump(x, mid, sd, lim) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
