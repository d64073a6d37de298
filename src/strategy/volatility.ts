/**
 * Volatility of the YES mid in probability units per √second, from the view's mid history.
 * A time-aware EWMA of squared returns normalised by their interval, so irregular samples (books
 * update when they update) weigh correctly: var ← λ·var + (1 − λ)·(Δp)²/Δt.
 */
import type { MidSample } from './types.ts';

export interface EwmaOptions {
  /** decay per sample in (0, 1); 0.94 is RiskMetrics' classic daily value */
  readonly lambda: number;
  /** floor for the result, probability / √s */
  readonly minSigma: number;
}

/** σ per √second; `minSigma` when fewer than two usable samples. */
export function ewmaSigma(history: readonly MidSample[], opts: EwmaOptions): number {
  let variance = -1;
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1]!;
    const b = history[i]!;
    const dt = (b.ts - a.ts) / 1000;
    if (!(dt > 0)) continue; // same-ms or out-of-order samples carry no time information
    const r = (b.mid - a.mid) / 1_000_000;
    const inst = (r * r) / dt;
    variance = variance < 0 ? inst : opts.lambda * variance + (1 - opts.lambda) * inst;
  }
  if (variance < 0 || !Number.isFinite(variance)) return opts.minSigma;
  return Math.max(opts.minSigma, Math.sqrt(variance));
}
