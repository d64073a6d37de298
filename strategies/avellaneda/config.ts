/**
 * avellaneda configuration. Model parameters are in probability space (a price of 0.5 = 50¢) and
 * seconds; order sizes in shares.
 */
import { readEnum, readNumber, readObject, readOptionalNumber } from '../../src/core/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { LADDER_KEYS, parseLadder, type LadderConfig } from '../../src/strategy/ladder-config.ts';

export interface AvellanedaConfig extends LadderConfig {
  readonly fair: FairSource;
  /** the book the fair price is taken from: the others' (own quotes taken out, default) or the whole book */
  readonly fairFrom: FairFrom;
  /** risk aversion γ > 0 */
  readonly gamma: number;
  /** order-arrival intensity decay k > 0 (per unit of probability distance) */
  readonly k: number;
  /** fixed σ (probability / √s); undefined = estimate from the mid history */
  readonly sigma: number | undefined;
  readonly ewmaLambda: number;
  readonly minSigma: number;
  /** T − t is clamped into [floor, cap] seconds; cap is also the horizon without a deadline */
  readonly horizonFloorSeconds: number;
  readonly horizonCapSeconds: number;
}

const KEYS = ['fair', 'fairFrom', 'gamma', 'k', 'sigma', 'ewmaLambda', 'minSigma', 'horizonFloorSeconds', 'horizonCapSeconds', ...LADDER_KEYS];

export function parseAvellanedaConfig(raw: unknown, path: string): AvellanedaConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const floor = readNumber(o, 'horizonFloorSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 60);
  const ladder = parseLadder(o, path, 0.01);
  const cfg: AvellanedaConfig = {
    fair: readEnum<FairSource>(o, 'fair', path, ['mid', 'microprice'], 'mid'),
    fairFrom: readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others'),
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e6 }, 150),
    sigma: readOptionalNumber(o, 'sigma', path, { min: 0, gt: true, max: 1 }),
    ewmaLambda: readNumber(o, 'ewmaLambda', path, { min: 0, gt: true, max: 1, lt: true }, 0.94),
    minSigma: readNumber(o, 'minSigma', path, { min: 0, max: 1 }, 0.0001),
    horizonFloorSeconds: floor,
    horizonCapSeconds: readNumber(o, 'horizonCapSeconds', path, { min: floor, max: 31_536_000 }, Math.max(floor, 3600)),
    ...ladder,
  };
  return cfg;
}
