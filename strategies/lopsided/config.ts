/** lopsided configuration: distance from the smoothed mid, size, where it opens, its position limit, the smoothing. */
import { ConfigFieldError, at, probToUnits, readNumber, readObject, sharesToUnits } from '../../src/core/fields.ts';

export interface LopsidedConfig {
  /** least distance of a quote from the estimate, 1e-6 USDC */
  readonly halfSpread: number;
  /** shares a quote, 1e-6 shares */
  readonly size: number;
  /** opens a position only where min(E, 1 − E) ≤ maxPQ (probability) */
  readonly maxPQ: number;
  /** |net| at which it opens no more on that side, 1e-6 shares */
  readonly maxPosition: number;
  /** the smoothed mid's time constant, seconds (0: the mid itself) */
  readonly smoothSeconds: number;
  /** a move of the mid beyond which the smoothing restarts at it, 1e-6 USDC */
  readonly jump: number;
}

const KEYS = ['halfSpread', 'size', 'maxPQ', 'maxPosition', 'smoothSeconds', 'jump'];

export function parseLopsidedConfig(raw: unknown, path: string): LopsidedConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const cfg: LopsidedConfig = {
    halfSpread: probToUnits(readNumber(o, 'halfSpread', path, { min: 0, gt: true, max: 0.1, lt: true }, 0.005)),
    size: sharesToUnits(readNumber(o, 'size', path, { min: 0, gt: true, max: 1e6 }, 5)),
    maxPQ: readNumber(o, 'maxPQ', path, { min: 0, gt: true, max: 0.5 }, 0.1),
    maxPosition: sharesToUnits(readNumber(o, 'maxPosition', path, { min: 0, gt: true, max: 1e9 }, 50)),
    smoothSeconds: readNumber(o, 'smoothSeconds', path, { min: 0, max: 60 }, 1),
    jump: probToUnits(readNumber(o, 'jump', path, { min: 0, gt: true, max: 0.5 }, 0.015)),
  };
  if (cfg.size < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', o.size);
  return cfg;
}
