/**
 * Config fields the model strategies share, read one way: the fair price (`fair`, `fairFrom`), the
 * volatility estimate's decay (`ewmaLambda`) and the horizon clamp of the deadline-aware models
 * (`horizonFloorSeconds`, `horizonCapSeconds`); and the frame of a model's config parser
 * (readModelConfig).
 */
import { readEnum, readNumber, readObject, type Obj } from '../core/fields.ts';
import type { FairSource } from './fair-price.ts';
import { parseLadder, type LadderConfig } from './ladder-config.ts';
import { FAIR_FROM, type FairFrom } from './others-book.ts';

export interface FairConfig {
  readonly fair: FairSource;
  /** the book the fair price is taken from: the others' (own quotes taken out, default) or the whole book */
  readonly fairFrom: FairFrom;
}

export const FAIR_KEYS = ['fair', 'fairFrom'] as const;

export function readFair(o: Obj, path: string): FairConfig {
  return {
    fair: readEnum<FairSource>(o, 'fair', path, ['mid', 'microprice'], 'mid'),
    fairFrom: readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others'),
  };
}

/** The EWMA decay of the volatility estimate from the mid history, in (0, 1); default 0.94. */
export function readEwmaLambda(o: Obj, path: string): number {
  return readNumber(o, 'ewmaLambda', path, { min: 0, gt: true, max: 1, lt: true }, 0.94);
}

export interface HorizonConfig {
  /** the time to the deadline is clamped into [floor, cap] seconds; the cap is the horizon without a deadline */
  readonly horizonFloorSeconds: number;
  readonly horizonCapSeconds: number;
}

export const HORIZON_KEYS = ['horizonFloorSeconds', 'horizonCapSeconds'] as const;

/** floor in (0, 1 year], default 60 s; cap in [floor, 1 year], default max(floor, 1 h). */
export function readHorizon(o: Obj, path: string): HorizonConfig {
  const floor = readNumber(o, 'horizonFloorSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 60);
  return {
    horizonFloorSeconds: floor,
    horizonCapSeconds: readNumber(o, 'horizonCapSeconds', path, { min: floor, max: 31_536_000 }, Math.max(floor, 3600)),
  };
}

/**
 * A model strategy's config from `raw`: only `keys` allowed, its ladder (minSpread default
 * `minSpread`), the fair-price fields, then the model's own fields as `own` reads them.
 */
export function readModelConfig<T>(raw: unknown, path: string, keys: readonly string[], minSpread: number, own: (o: Obj) => T): FairConfig & T & LadderConfig {
  const o = readObject(raw ?? {}, path, keys);
  const ladder = parseLadder(o, path, minSpread);
  return { ...readFair(o, path), ...own(o), ...ladder };
}
