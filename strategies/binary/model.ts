/**
 * A market-making model for binary (0/1) outcomes, in probability space:
 *
 *   variance       σ_p = σ_L · p(1 − p): the price moves as a logit random walk with volatility σ_L
 *                  per √s, so a price near 0 or 1 moves less (and its payoff variance p(1 − p) is
 *                  smaller) than one near ½;
 *   inventory      the risk of holding q units to the horizon τ (seconds, to the deadline, capped) is
 *                  γ·σ_p²·τ (Avellaneda–Stoikov), plus the terminal risk of a 0/1 payoff, which grows
 *                  as the deadline nears: γ_T·p(1 − p)·w(t), w rising linearly from 0 to 1 over the last
 *                  `deadlineWindow` seconds; reservation r = p − q·(γσ_p²τ + γ_T·p(1 − p)·w);
 *   spread         half = max(minHalf, γσ_p²τ/2 + (1/γ)·ln(1 + γ/k)) + jump premium;
 *   jump premium   near resolution the price can jump to 0 or 1: π·√(p(1 − p))·w(t), added to the
 *                  half spread;
 *   bounds         quotes are kept inside [tick, 1 − tick] (src/strategy/ladder.ts).
 */
import type { MidSeries } from '../../src/strategy/types.ts';

export interface BinaryInputs {
  /** fair probability in (0, 1) */
  readonly p: number;
  /** inventory in units */
  readonly q: number;
  readonly gamma: number;
  readonly k: number;
  /** logit volatility per √s */
  readonly sigmaLogit: number;
  /** seconds to the horizon (deadline, capped) */
  readonly tau: number;
  /** terminal risk weight γ_T (probability per unit of q at w = 1) */
  readonly terminalRisk: number;
  /** jump premium π (probability at p = ½, w = 1) */
  readonly jumpPremium: number;
  /** 0 far from the deadline → 1 at it */
  readonly w: number;
}

export function priceSigma(p: number, sigmaLogit: number): number {
  return sigmaLogit * p * (1 - p);
}

export function reservation(i: BinaryInputs): number {
  const s = priceSigma(i.p, i.sigmaLogit);
  return i.p - i.q * (i.gamma * s * s * i.tau + i.terminalRisk * i.p * (1 - i.p) * i.w);
}

export function halfSpread(i: BinaryInputs): number {
  const s = priceSigma(i.p, i.sigmaLogit);
  return (i.gamma * s * s * i.tau) / 2 + (1 / i.gamma) * Math.log1p(i.gamma / i.k);
}

export function jumpPremium(i: BinaryInputs): number {
  return i.jumpPremium * Math.sqrt(i.p * (1 - i.p)) * i.w;
}

/**
 * The logit volatility σ_L per √s of a mid history: an EWMA of squared logit changes over their
 * interval (`var ← λ·var + (1 − λ)·Δlogit²/Δt`), mids kept within [1e-4, 1 − 1e-4]; `min` without
 * two samples.
 */
export function ewmaLogitSigma(history: MidSeries, lambda: number, min: number): number {
  const logit = (mid: number) => {
    const p = Math.min(1 - 1e-4, Math.max(1e-4, mid / 1_000_000));
    return Math.log(p / (1 - p));
  };
  let variance = -1;
  for (let i = 1; i < history.length; i++) {
    const a = history.at(i - 1)!;
    const b = history.at(i)!;
    const dt = (b.ts - a.ts) / 1000;
    if (!(dt > 0)) continue;
    const r = logit(b.mid) - logit(a.mid);
    const inst = (r * r) / dt;
    variance = variance < 0 ? inst : lambda * variance + (1 - lambda) * inst;
  }
  if (variance < 0 || !Number.isFinite(variance)) return min;
  return Math.max(min, Math.sqrt(variance));
}

/** The deadline weight: 0 while more than `window` seconds remain, rising linearly to 1 at the deadline (1 after it). */
export function deadlineWeight(now: number, deadline: number | null, windowSeconds: number): number {
  if (deadline === null || !(windowSeconds > 0)) return 0;
  const left = (deadline - now) / 1000;
  if (left <= 0) return 1;
  return Math.max(0, 1 - left / windowSeconds);
}
