/**
 * avellaneda configuration. Model parameters are in probability space (a price of 0.5 = 50¢) and
 * seconds; order sizes in shares.
 */
import { ConfigFieldError, at, readEnum, readNumber, readObject, readOptionalNumber, sharesToUnits } from '../../src/config/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from '../../src/strategy/edge-adjust.ts';

export interface AvellanedaConfig {
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
  /** net position is measured in units of this many 1e-6 shares (q = net / inventoryUnit) */
  readonly inventoryUnit: number;
  /** full spread bounds, probability */
  readonly minSpread: number;
  readonly maxSpread: number;
  /** 1e-6 shares per level */
  readonly size: number;
  readonly levels: number;
  /** extra distance per level, probability */
  readonly levelSpacing: number;
  /** adverse-selection helper (src/strategy/edge-adjust.ts); off by default */
  readonly toxicity: EdgeGuardConfig;
}

const KEYS = ['fair', 'fairFrom', 'gamma', 'k', 'sigma', 'ewmaLambda', 'minSigma', 'horizonFloorSeconds', 'horizonCapSeconds', 'inventoryUnit', 'minSpread', 'maxSpread', 'size', 'levels', 'levelSpacing', 'toxicity'];

export function parseAvellanedaConfig(raw: unknown, path: string): AvellanedaConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const floor = readNumber(o, 'horizonFloorSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 60);
  const minSpread = readNumber(o, 'minSpread', path, { min: 0, max: 1, lt: true }, 0.01);
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
    inventoryUnit: sharesToUnits(readNumber(o, 'inventoryUnit', path, { min: 0, gt: true, max: 1e9 }, 10)),
    minSpread,
    maxSpread: readNumber(o, 'maxSpread', path, { min: minSpread, max: 1 }, 0.2),
    size: sharesToUnits(readNumber(o, 'size', path, { min: 0, gt: true, max: 1e9 }, 10)),
    levels: readNumber(o, 'levels', path, { min: 1, max: 10, integer: true }, 1),
    levelSpacing: readNumber(o, 'levelSpacing', path, { min: 0, max: 0.5 }, 0.01),
    toxicity: parseEdgeGuard(o.toxicity, at(path, 'toxicity')),
  };
  if (cfg.size < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', o.size);
  if (cfg.inventoryUnit < 1) throw new ConfigFieldError(at(path, 'inventoryUnit'), 'at least 0.000001 shares', o.inventoryUnit);
  return cfg;
}
