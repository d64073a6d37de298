/**
 * binary configuration: probabilities (a price of 0.5 = 50¢), seconds, shares.
 */
import { ConfigFieldError, at, readEnum, readNumber, readObject, readOptionalNumber, sharesToUnits } from '../../src/config/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from '../../src/strategy/edge-adjust.ts';

export interface BinaryConfig {
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
  readonly inventoryUnit: number;
  readonly minSpread: number;
  readonly maxSpread: number;
  readonly size: number;
  readonly levels: number;
  readonly levelSpacing: number;
  readonly toxicity: EdgeGuardConfig;
}

const KEYS = ['fair', 'fairFrom', 'gamma', 'k', 'sigmaLogit', 'ewmaLambda', 'minSigmaLogit', 'horizonFloorSeconds', 'horizonCapSeconds', 'terminalRisk', 'jumpPremium', 'deadlineWindowSeconds', 'inventoryUnit', 'minSpread', 'maxSpread', 'size', 'levels', 'levelSpacing', 'toxicity'];

export function parseBinaryConfig(raw: unknown, path: string): BinaryConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const floor = readNumber(o, 'horizonFloorSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 60);
  const minSpread = readNumber(o, 'minSpread', path, { min: 0, max: 1, lt: true }, 0.02);
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
