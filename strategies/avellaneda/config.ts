/**
 * avellaneda configuration. Model parameters are in probability space (a price of 0.5 = 50¢) and
 * seconds; order sizes in shares.
 */
import { readNumber, readOptionalNumber } from '../../src/core/fields.ts';
import { FAIR_KEYS, type FairConfig, HORIZON_KEYS, type HorizonConfig, readEwmaLambda, readHorizon, readModelConfig } from '../../src/strategy/model-fields.ts';
import { LADDER_KEYS, type LadderConfig } from '../../src/strategy/ladder-config.ts';

export interface AvellanedaConfig extends LadderConfig, FairConfig, HorizonConfig {
  /** risk aversion γ > 0 */
  readonly gamma: number;
  /** order-arrival intensity decay k > 0 (per unit of probability distance) */
  readonly k: number;
  /** fixed σ (probability / √s); undefined = estimate from the mid history */
  readonly sigma: number | undefined;
  readonly ewmaLambda: number;
  readonly minSigma: number;
}

const KEYS = [...FAIR_KEYS, 'gamma', 'k', 'sigma', 'ewmaLambda', 'minSigma', ...HORIZON_KEYS, ...LADDER_KEYS];

export function parseAvellanedaConfig(raw: unknown, path: string): AvellanedaConfig {
  return readModelConfig(raw, path, KEYS, 0.01, (o) => ({
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e6 }, 150),
    sigma: readOptionalNumber(o, 'sigma', path, { min: 0, gt: true, max: 1 }),
    ewmaLambda: readEwmaLambda(o, path),
    minSigma: readNumber(o, 'minSigma', path, { min: 0, max: 1 }, 0.0001),
    ...readHorizon(o, path),
  }));
}
