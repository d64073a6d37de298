/** oracle-anchored configuration: weights and spreads in probability, ages in seconds, sizes in shares. */
import { ConfigFieldError, at, readBoolean, readEnum, readNumber, readObject, sharesToUnits } from '../../src/core/fields.ts';
import type { FairSource } from '../../src/strategy/fair-price.ts';
import { FAIR_FROM, type FairFrom } from '../../src/strategy/others-book.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from '../../src/strategy/edge-adjust.ts';
import { parsePrintPull, type PrintPullConfig } from '../../src/strategy/print-pull.ts';
import { parseSweepReact, type SweepReactConfig } from '../../src/strategy/sweep-react.ts';

export interface OracleAnchoredConfig {
  readonly book: FairSource;
  /** the book the book price is taken from: the others' (own quotes taken out, default) or the whole book */
  readonly fairFrom: FairFrom;
  /** weight of a fresh, fully confident oracle in the blend, [0, 1] */
  readonly oracleWeight: number;
  /** an oracle older than this is stale (weight 0), ms; the weight decays linearly up to it */
  readonly maxOracleAgeMs: number;
  /** with a stale or missing oracle: pull every quote instead of quoting on the book alone */
  readonly pullWhenStale: boolean;
  /** half spread around the fair value, probability */
  readonly halfSpread: number;
  /** |oracle − book| above this widens the spread, probability */
  readonly disagreeThreshold: number;
  /** half spread multiplier while they disagree */
  readonly widenFactor: number;
  /** fair shift per share of net position, probability (long → lower) */
  readonly inventorySkew: number;
  readonly size: number;
  readonly levels: number;
  readonly levelSpacing: number;
  /** adverse-selection helper (src/strategy/edge-adjust.ts); off by default */
  readonly toxicity: EdgeGuardConfig;
  /** pull a side after a taker print on it (src/strategy/print-pull.ts); off by default */
  readonly afterPrint: PrintPullConfig;
  /** the reaction to a taker sweep (src/strategy/sweep-react.ts); absent = off (the default) */
  readonly afterSweep?: SweepReactConfig;
}

const KEYS = [
  'book',
  'fairFrom',
  'oracleWeight',
  'maxOracleAgeSeconds',
  'pullWhenStale',
  'halfSpread',
  'disagreeThreshold',
  'widenFactor',
  'inventorySkew',
  'size',
  'levels',
  'levelSpacing',
  'toxicity',
  'afterPrint',
  'afterSweep',
];

export function parseOracleAnchoredConfig(raw: unknown, path: string): OracleAnchoredConfig {
  const o = readObject(raw ?? {}, path, KEYS);
  const cfg: OracleAnchoredConfig = {
    book: readEnum<FairSource>(o, 'book', path, ['mid', 'microprice'], 'microprice'),
    fairFrom: readEnum<FairFrom>(o, 'fairFrom', path, FAIR_FROM, 'others'),
    oracleWeight: readNumber(o, 'oracleWeight', path, { min: 0, max: 1 }, 0.5),
    maxOracleAgeMs: readNumber(o, 'maxOracleAgeSeconds', path, { min: 0, gt: true, max: 31_536_000 }, 300) * 1000,
    pullWhenStale: readBoolean(o, 'pullWhenStale', path, false),
    halfSpread: readNumber(o, 'halfSpread', path, { min: 0, gt: true, max: 0.5 }, 0.02),
    disagreeThreshold: readNumber(o, 'disagreeThreshold', path, { min: 0, max: 1 }, 0.05),
    widenFactor: readNumber(o, 'widenFactor', path, { min: 1, max: 100 }, 2),
    inventorySkew: readNumber(o, 'inventorySkew', path, { min: 0, max: 0.01 }, 0),
    size: sharesToUnits(readNumber(o, 'size', path, { min: 0, gt: true, max: 1e9 }, 10)),
    levels: readNumber(o, 'levels', path, { min: 1, max: 10, integer: true }, 1),
    levelSpacing: readNumber(o, 'levelSpacing', path, { min: 0, max: 0.5 }, 0.01),
    toxicity: parseEdgeGuard(o.toxicity, at(path, 'toxicity')),
    afterPrint: parsePrintPull(o.afterPrint, at(path, 'afterPrint')),
    // only when given, so a config without it reads (and reports) as before
    ...(o.afterSweep === undefined ? {} : { afterSweep: parseSweepReact(o.afterSweep, at(path, 'afterSweep')) }),
  };
  if (cfg.size < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', o.size);
  return cfg;
}
