/**
 * glft configuration: the fill intensity (A per second, k per tick) as fitted by `bookmaker
 * calibrate`, risk aversion, volatility (estimated from the mid history unless fixed), sizes in
 * shares, spreads in probability.
 */
import { ConfigFieldError, at, readEnum, readNumber, readObject, readOptionalNumber, sharesToUnits } from '../../src/config/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from '../../src/strategy/edge-adjust.ts';

export interface GlftConfig {
  readonly fair: FairSource;
  readonly fairFrom: FairFrom;
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
  /** 1e-6 shares per inventory unit q (and order-size unit Δ = 1) */
  readonly inventoryUnit: number;
  /** full spread bounds, probability */
  readonly minSpread: number;
  readonly maxSpread: number;
  /** 1e-6 shares per level */
  readonly size: number;
  readonly levels: number;
  readonly levelSpacing: number;
  readonly toxicity: EdgeGuardConfig;
}

const KEYS = ['fair', 'fairFrom', 'A', 'k', 'gamma', 'xi', 'sigma', 'ewmaLambda', 'minSigma', 'inventoryUnit', 'minSpread', 'maxSpread', 'size', 'levels', 'levelSpacing', 'toxicity'];

export function parseGlftConfig(raw: unknown, path: string): GlftConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const minSpread = readNumber(o, 'minSpread', path, { min: 0, max: 1, lt: true }, 0.01);
  const cfg: GlftConfig = {
    fair: readEnum<FairSource>(o, 'fair', path, ['mid', 'microprice'], 'mid'),
    fairFrom: readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others'),
    A: readNumber(o, 'A', path, { min: 0, gt: true, max: 1e6 }, 0.5),
    k: readNumber(o, 'k', path, { min: 0, gt: true, max: 1e3 }, 0.5),
    gamma: readNumber(o, 'gamma', path, { min: 0, gt: true, max: 1000 }, 0.05),
    xi: readOptionalNumber(o, 'xi', path, { min: 0, gt: true, max: 1000 }),
    sigma: readOptionalNumber(o, 'sigma', path, { min: 0, gt: true, max: 1 }),
    ewmaLambda: readNumber(o, 'ewmaLambda', path, { min: 0, gt: true, max: 1, lt: true }, 0.94),
    minSigma: readNumber(o, 'minSigma', path, { min: 0, max: 1 }, 0.0001),
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
