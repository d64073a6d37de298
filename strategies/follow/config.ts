/** follow configuration: the sweep (shares, seconds), the position to take in shares, how far beyond the sweep's prints to pay in ticks. */
import { ConfigFieldError, at, readNumber, readObject, readOptionalNumber, sharesToUnits } from '../../src/core/fields.ts';
import { parseSweep, SWEEP_KEYS, type SweepConfig } from '../../src/strategy/sweep.ts';

export interface FollowConfig {
  readonly sweep: SweepConfig;
  /** the position taken in a sweep's direction, 1e-6 shares */
  readonly size: number;
  /** how far beyond the sweep's furthest print the order may pay, in ticks (Infinity: as far as the book) */
  readonly chaseTicks: number;
}

const KEYS = [...SWEEP_KEYS, 'size', 'chaseTicks'];

export function parseFollowConfig(raw: unknown, path: string): FollowConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const cfg: FollowConfig = {
    sweep: parseSweep(o, path),
    size: sharesToUnits(readNumber(o, 'size', path, { min: 0, gt: true, max: 1e9 }, 10)),
    chaseTicks: readOptionalNumber(o, 'chaseTicks', path, { min: 0, max: 100, integer: true }) ?? Number.POSITIVE_INFINITY,
  };
  if (cfg.size < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', o.size);
  // the bot's own taker print is part of the market's prints: at or above the sweep size it would count as one
  if (cfg.size >= cfg.sweep.minShares) throw new ConfigFieldError(at(path, 'size'), `below sweepShares (${cfg.sweep.minShares / 1e6})`, o.size);
  return cfg;
}
