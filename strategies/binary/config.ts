/**
 * binary configuration: probabilities (a price of 0.5 = 50¢), seconds, shares.
 */
import { readEnum, readNumber, readObject, readOptionalNumber } from '../../src/core/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { LADDER_KEYS, parseLadder, type LadderConfig } from '../../src/strategy/ladder-config.ts';

export interface BinaryConfig extends LadderConfig {
  readonly fair: FairSource;
  readonly fairFrom: FairFrom;
  readonly gamma: number;
  readonly k: number;
  /** fixed logit volatility per √s; undefined = estimated from the mid history (σ_p / p(1 − p)) */
  readonly sigmaLogit: number | undefined;
  readonly ewmaLambda: number;
  readonly minSigmaLogit: number;
  /** the horizon τ is the time to the deadline clamped into [floor, cap] seconds (the cap without one) */
  readonly horizonFloorSeconds: number;
  readonly horizonCapSeconds: number;
  readonly terminalRisk: number;
  readonly jumpPremium: number;
  /** seconds before the deadline over which terminal risk and jump premium rise to full */
  readonly deadlineWindowSeconds: number;
}

const KEYS = [
  'fair',
  'fairFrom',
  'gamma',
  'k',
  'sigmaLogit',
  'ewmaLambda',
  'minSigmaLogit',
  'horizonFloorSeconds',
  'horizonCapSeconds',
  'terminalRisk',
  'jumpPremium',
  'deadlineWindowSeconds',
  ...LADDER_KEYS,
];

export function parseBinaryConfig(raw: unknown, path: string): BinaryConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const floor = readNumber(o, 'horizonFloorSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 60);
  const ladder = parseLadder(o, path, 0.02);
  const cfg: BinaryConfig = {
    fair: readEnum<FairSource>(o, 'fair', path, ['mid', 'microprice'], 'mid'),
    fairFrom: readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others'),
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e6 }, 150),
    sigmaLogit: readOptionalNumber(o, 'sigmaLogit', path, { min: 0, gt: true, max: 10 }),
    ewmaLambda: readNumber(o, 'ewmaLambda', path, { min: 0, gt: true, max: 1, lt: true }, 0.94),
    minSigmaLogit: readNumber(o, 'minSigmaLogit', path, { min: 0, max: 10 }, 0.0005),
    horizonFloorSeconds: floor,
    horizonCapSeconds: readNumber(o, 'horizonCapSeconds', path, { min: floor, max: 31_536_000 }, Math.max(floor, 3600)),
    terminalRisk: readNumber(o, 'terminalRisk', path, { min: 0, max: 1 }, 0.002),
    jumpPremium: readNumber(o, 'jumpPremium', path, { min: 0, max: 0.5 }, 0.02),
    deadlineWindowSeconds: readNumber(o, 'deadlineWindowSeconds', path, { min: 0, max: 31_536_000 }, 3600),
    ...ladder,
  };
  return cfg;
}
