/**
 * binary configuration: probabilities (a price of 0.5 = 50¢), seconds, shares.
 */
import { readNumber, readOptionalNumber } from '../../src/core/fields.ts';
import { FAIR_KEYS, type FairConfig, HORIZON_KEYS, type HorizonConfig, readEwmaLambda, readHorizon, readModelConfig } from '../../src/strategy/model-fields.ts';
import { LADDER_KEYS, type LadderConfig } from '../../src/strategy/ladder-config.ts';

export interface BinaryConfig extends LadderConfig, FairConfig, HorizonConfig {
  readonly gamma: number;
  readonly k: number;
  /** fixed logit volatility per √s; undefined = estimated from the mid history (σ_p / p(1 − p)) */
  readonly sigmaLogit: number | undefined;
  readonly ewmaLambda: number;
  readonly minSigmaLogit: number;
  readonly terminalRisk: number;
  readonly jumpPremium: number;
  /** seconds before the deadline over which terminal risk and jump premium rise to full */
  readonly deadlineWindowSeconds: number;
}

const KEYS = [
  ...FAIR_KEYS,
  'gamma',
  'k',
  'sigmaLogit',
  'ewmaLambda',
  'minSigmaLogit',
  ...HORIZON_KEYS,
  'terminalRisk',
  'jumpPremium',
  'deadlineWindowSeconds',
  ...LADDER_KEYS,
];

export function parseBinaryConfig(raw: unknown, path: string): BinaryConfig {
  return readModelConfig(raw, path, KEYS, 0.02, (o) => ({
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e6 }, 150),
    sigmaLogit: readOptionalNumber(o, 'sigmaLogit', path, { min: 0, gt: true, max: 10 }),
    ewmaLambda: readEwmaLambda(o, path),
    minSigmaLogit: readNumber(o, 'minSigmaLogit', path, { min: 0, max: 10 }, 0.0005),
    ...readHorizon(o, path),
    terminalRisk: readNumber(o, 'terminalRisk', path, { min: 0, max: 1 }, 0.002),
    jumpPremium: readNumber(o, 'jumpPremium', path, { min: 0, max: 0.5 }, 0.02),
    deadlineWindowSeconds: readNumber(o, 'deadlineWindowSeconds', path, { min: 0, max: 31_536_000 }, 3600),
  }));
}
