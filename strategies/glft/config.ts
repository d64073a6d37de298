/**
 * glft configuration: the fill intensity (A per second, k per tick) as fitted by `bookmaker
 * calibrate`, risk aversion, volatility (estimated from the mid history unless fixed), sizes in
 * shares, spreads in probability.
 */
import { readNumber, readOptionalNumber } from '../../src/core/fields.ts';
import { FAIR_KEYS, type FairConfig, readEwmaLambda, readModelConfig } from '../../src/strategy/model-fields.ts';
import { LADDER_KEYS, type LadderConfig } from '../../src/strategy/ladder-config.ts';

export interface GlftConfig extends LadderConfig, FairConfig {
  /** fill intensity at the mid, per second (bookmaker calibrate) */
  readonly A: number;
  /** intensity decay per tick (bookmaker calibrate) */
  readonly k: number;
  readonly gamma: number;
  /** value-function penalty ξ; undefined = γ */
  readonly xi: number | undefined;
  /** fixed σ (probability / √s); undefined = estimate from the mid history */
  readonly sigma: number | undefined;
  readonly ewmaLambda: number;
  readonly minSigma: number;
}

const KEYS = [...FAIR_KEYS, 'A', 'k', 'gamma', 'xi', 'sigma', 'ewmaLambda', 'minSigma', ...LADDER_KEYS];

export function parseGlftConfig(raw: unknown, path: string): GlftConfig {
  return readModelConfig(raw, path, KEYS, 0.01, (o) => ({
    A: readNumber(o, 'A', path, { min: 0, gt: true, max: 1e6 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e3 }, 0.5),
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.05),
    xi: readOptionalNumber(o, 'xi', path, { min: 0, gt: true, max: 1000 }),
    sigma: readOptionalNumber(o, 'sigma', path, { min: 0, gt: true, max: 1 }),
    ewmaLambda: readEwmaLambda(o, path),
    minSigma: readNumber(o, 'minSigma', path, { min: 0, max: 1 }, 0.0001),
  }));
}
