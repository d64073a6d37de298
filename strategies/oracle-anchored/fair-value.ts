/**
 * Blend of the oracle probability and the book price. The oracle's weight is
 *   w = oracleWeight · confidence · freshness,  freshness = 1 − age / maxAge  (0 once stale)
 * so an old or unsure oracle fades into the book instead of switching off abruptly.
 */
import type { ViewOracle } from '../../src/strategy/types.ts';

export interface Blend {
  /** probability */
  readonly fair: number;
  readonly weight: number;
  /** |oracle − book| when both exist, else 0 */
  readonly disagreement: number;
  readonly stale: boolean;
}

export function oracleWeight(oracle: ViewOracle | null, baseWeight: number, maxAgeMs: number): number {
  if (!oracle || !(oracle.ageMs < maxAgeMs)) return 0;
  const freshness = 1 - Math.max(0, oracle.ageMs) / maxAgeMs;
  const conf = Math.min(1, Math.max(0, oracle.confidence));
  return baseWeight * conf * freshness;
}

/** null when there is nothing to anchor on (no book price and no usable oracle). */
export function blendFair(book: number | null, oracle: ViewOracle | null, baseWeight: number, maxAgeMs: number): Blend | null {
  const stale = !oracle || !(oracle.ageMs < maxAgeMs);
  const w = oracleWeight(oracle, baseWeight, maxAgeMs);
  const p = oracle ? Math.min(1, Math.max(0, oracle.probability)) : 0;
  if (book === null) return w > 0 ? { fair: p, weight: 1, disagreement: 0, stale } : null;
  const disagreement = stale ? 0 : Math.abs(p - book);
  return { fair: w * p + (1 - w) * book, weight: w, disagreement, stale };
}
