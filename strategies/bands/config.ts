/**
 * bands configuration. Margins are probability distances from the fair price (0.02 = 2¢), sizes
 * are shares; both are converted to integer units once here.
 */
import { ConfigFieldError, at, readEnum, readList, readNumber, readObject, sharesToUnits } from '../../src/core/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from '../../src/strategy/edge-adjust.ts';
import { parsePrintPull, type PrintPullConfig } from '../../src/strategy/print-pull.ts';
import { parseSweepReact, type SweepReactConfig } from '../../src/strategy/sweep-react.ts';
import { parseTouchJoin, type TouchJoinConfig } from '../../src/strategy/touch-join.ts';

export interface Band {
  /** 1e-6 price units */
  readonly minMargin: number;
  readonly targetMargin: number;
  readonly maxMargin: number;
  /** 1e-6 shares */
  readonly size: number;
}

export interface BandsConfig {
  readonly fair: FairSource;
  /** the book the fair price is taken from: the others' (own quotes taken out, default) or the whole book */
  readonly fairFrom: FairFrom;
  readonly bands: readonly Band[];
  /** fair-price shift per share of net position, 1e-6 price units per share (long → lower) */
  readonly inventorySkew: number;
  /** adverse-selection helper (src/strategy/edge-adjust.ts); off by default */
  readonly toxicity: EdgeGuardConfig;
  /** pull a side after a taker print on it (src/strategy/print-pull.ts); off by default */
  readonly afterPrint: PrintPullConfig;
  /** the reaction to a taker sweep (src/strategy/sweep-react.ts); absent = off (the default) */
  readonly afterSweep?: SweepReactConfig;
  /** join the others' touch, never improve on it (src/strategy/touch-join.ts); off by default */
  readonly touch: TouchJoinConfig;
}

const KEYS = ['fair', 'fairFrom', 'bands', 'inventorySkew', 'toxicity', 'afterPrint', 'afterSweep', 'touch'];
const BAND_KEYS = ['minMargin', 'targetMargin', 'maxMargin', 'size'];

export function parseBandsConfig(raw: unknown, path: string): BandsConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const fair = readEnum<FairSource>(o, 'fair', path, ['mid', 'microprice'], 'microprice');
  const fairFrom = readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others');
  const list = o.bands === undefined ? DEFAULT_BANDS : readList(o, 'bands', path, { min: 1, max: 20 });
  const bands = list.map((b, i) => parseBand(b, at(at(path, 'bands'), i)));
  for (let i = 1; i < bands.length; i++) {
    // Overlapping bands would both claim the same order and churn it between levels.
    if (bands[i]!.minMargin < bands[i - 1]!.maxMargin) {
      throw new ConfigFieldError(
        at(at(at(path, 'bands'), i), 'minMargin'),
        `a margin >= the previous band's maxMargin (${bands[i - 1]!.maxMargin / 1e6})`,
        bands[i]!.minMargin / 1e6,
      );
    }
  }
  const skew = readNumber(o, 'inventorySkew', path, { min: 0, max: 0.01 }, 0);
  return {
    fair,
    fairFrom,
    bands,
    inventorySkew: skew * 1e6,
    toxicity: parseEdgeGuard(o.toxicity, at(path, 'toxicity')),
    afterPrint: parsePrintPull(o.afterPrint, at(path, 'afterPrint')),
    touch: parseTouchJoin(o.touch, at(path, 'touch')),
    // only when given, so a config without it reads (and reports) as before
    ...(o.afterSweep === undefined ? {} : { afterSweep: parseSweepReact(o.afterSweep, at(path, 'afterSweep')) }),
  };
}

const DEFAULT_BANDS = [
  { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 },
  { minMargin: 0.03, targetMargin: 0.05, maxMargin: 0.07, size: 20 },
];

function parseBand(raw: unknown, path: string): Band {
  const o = readObject(raw, path, BAND_KEYS);
  const min = readNumber(o, 'minMargin', path, { min: 0, max: 0.5, lt: true });
  const target = readNumber(o, 'targetMargin', path, { min, max: 0.5, gt: false, lt: true });
  const max = readNumber(o, 'maxMargin', path, { min: target, max: 0.5 });
  const size = readNumber(o, 'size', path, { min: 0, gt: true, max: 1e9 });
  if (sharesToUnits(size) < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', size);
  return { minMargin: Math.round(min * 1e6), targetMargin: Math.round(target * 1e6), maxMargin: Math.round(max * 1e6), size: sharesToUnits(size) };
}
