/**
 * Volatility of the YES mid in probability units per √second, from the view's mid history.
 * A time-aware EWMA of squared returns normalised by their interval, so irregular samples (books
 * update when they update) weigh correctly: var ← λ·var + (1 − λ)·(Δp)²/Δt.
 *
 * Entry points:
 *   ewmaSigma(history, opts) → σ          the whole history, every call
 *   viewSigma(view, opts) → σ             the same number for a view's mid history, carried forward
 *                                          with the market's memo (below)
 *
 * Why viewSigma: the store's mid history only grows by one sample at a time (until it reaches its
 * bound), and the EWMA over a history one sample longer is the EWMA of the shorter one stepped once.
 * The memo (the view's `memo`, src/state/market-memo.ts) keeps the variance of the last history
 * seen, so a tick whose history gained a sample costs one step instead of a walk over every sample
 * (the walk was most of a model strategy's tick). Each step is the same floating-point expression
 * in the same order as the walk's, so the result is the walk's to the last bit (the tests compare
 * them exactly). Anything else (a history that dropped its oldest sample at the bound, a different
 * λ, a view without a memo) walks the whole history as before.
 */
import type { MarketView, MidSample, MidSeries, SigmaMemo } from './types.ts';

/** a history that tells whether another is itself with one sample appended (the store's, src/state/mid-history.ts) */
interface AppendAware {
  isAppendedBy(next: MidSeries): boolean;
}

/** a history that keeps each sample's increment (instantVariance from the one before: the store's) and walks them itself */
interface IncrementAware extends MidSeries {
  incrementAt(index: number): number;
  ewmaVariance(lambda: number): number;
}

export interface EwmaOptions {
  /** decay per sample in (0, 1); 0.94 is RiskMetrics' classic daily value */
  readonly lambda: number;
  /** floor for the result, probability / √s */
  readonly minSigma: number;
}

/** σ per √second; `minSigma` when fewer than two usable samples. */
export function ewmaSigma(history: MidSeries, opts: EwmaOptions): number {
  return sigmaOf(ewmaVariance(history, opts.lambda), opts.minSigma);
}

/**
 * The EWMA variance over the whole history; -1 when no interval carried time information. The
 * store's history keeps each sample's increment and walks them itself (src/state/mid-history.ts
 * ewmaVariance: one multiply-add per sample, the same expression); any other series computes them as
 * it goes (the same numbers).
 */
function ewmaVariance(history: MidSeries, lambda: number): number {
  if (typeof (history as Partial<IncrementAware>).ewmaVariance === 'function') return (history as IncrementAware).ewmaVariance(lambda);
  let variance = -1;
  for (let i = 1; i < history.length; i++) variance = step(variance, instantVariance(history.at(i - 1)!, history.at(i)!), lambda);
  return variance;
}

/**
 * The squared return per second from sample `a` to sample `b` (the EWMA's increment), or -1 when
 * the interval carries no time information (same-ms or out-of-order samples).
 */
export function instantVariance(a: MidSample, b: MidSample): number {
  const dt = (b.ts - a.ts) / 1000;
  if (!(dt > 0)) return -1;
  const r = (b.mid - a.mid) / 1_000_000;
  return (r * r) / dt;
}

/** One sample more, by its increment (-1: no time information, skipped): the walk's loop body, the same expression, so the same bits. */
function step(variance: number, inst: number, lambda: number): number {
  if (inst < 0) return variance;
  return variance < 0 ? inst : lambda * variance + (1 - lambda) * inst;
}

/** The increment into the newest sample of `history` (at least two samples). */
function newestIncrement(history: MidSeries): number {
  const n = history.length;
  return typeof (history as Partial<IncrementAware>).incrementAt === 'function'
    ? (history as IncrementAware).incrementAt(n - 1)
    : instantVariance(history.at(n - 2)!, history.at(n - 1)!);
}

function sigmaOf(variance: number, minSigma: number): number {
  if (variance < 0 || !Number.isFinite(variance)) return minSigma;
  return Math.max(minSigma, Math.sqrt(variance));
}

/**
 * `next` is `last` with one sample appended: one longer, and the same sample objects before it.
 * The store's histories share their samples and their buffer (src/state/mid-history.ts), so one
 * pushed from the other says it at once; otherwise a reference comparison of the samples (a few ns
 * a sample, against the walk's arithmetic); a history that dropped its oldest sample fails at the
 * first one.
 */
function appendsOne(last: MidSeries, next: MidSeries): boolean {
  const own = (last as Partial<AppendAware>).isAppendedBy;
  if (own !== undefined) return own.call(last, next);
  const n = last.length;
  if (next.length !== n + 1) return false;
  for (let i = 0; i < n; i++) if (next.at(i) !== last.at(i)) return false;
  return true;
}

/** ewmaSigma(view.midHistory, opts), carried forward with the view's memo (see the header). */
export function viewSigma(view: MarketView, opts: EwmaOptions): number {
  const history = view.midHistory;
  const memo = view.memo;
  if (memo === undefined) return ewmaSigma(history, opts);
  const last = memo.sigma;
  const lambda = opts.lambda;
  let variance: number;
  if (last !== null && last.lambda === lambda && last.history === history) variance = last.variance;
  else if (last !== null && last.lambda === lambda && appendsOne(last.history, history))
    variance = history.length < 2 ? last.variance : step(last.variance, newestIncrement(history), lambda);
  else variance = ewmaVariance(history, lambda);
  if (last === null) memo.sigma = { history, lambda, variance } satisfies SigmaMemo;
  else {
    last.history = history;
    last.lambda = lambda;
    last.variance = variance;
  }
  return sigmaOf(variance, opts.minSigma);
}
