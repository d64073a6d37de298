/**
 * The quote-ladder settings the model strategies share (avellaneda, glft, binary): inventory unit,
 * spread bounds, level size, count and spacing, and the toxicity guard. Parsed in one place so their
 * bounds, defaults and errors cannot drift apart; each strategy spreads the result after its own keys.
 */
import { ConfigFieldError, at, readNumber, sharesToUnits, type Obj } from '../core/fields.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from './edge-adjust.ts';

export interface LadderConfig {
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
  /** adverse-selection helper (src/strategy/edge-adjust.ts) */
  readonly toxicity: EdgeGuardConfig;
}

export const LADDER_KEYS = ['inventoryUnit', 'minSpread', 'maxSpread', 'size', 'levels', 'levelSpacing', 'toxicity'];

export function parseLadder(o: Obj, path: string, minSpreadDefault: number): LadderConfig {
  const minSpread = readNumber(o, 'minSpread', path, { min: 0, max: 1, lt: true }, minSpreadDefault);
  const cfg: LadderConfig = {
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
