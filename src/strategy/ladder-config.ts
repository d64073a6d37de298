/**
 * The quote-ladder settings the model strategies share (avellaneda, glft, binary): inventory unit,
 * spread bounds, level size, count and spacing, and the toxicity guard. Parsed in one place so their
 * bounds, defaults and errors cannot drift apart; each strategy spreads the result after its own keys.
 */
import { ConfigFieldError, at, readNumber, sharesToUnits, type Obj } from '../core/fields.ts';
import { parseEdgeGuard, type EdgeGuardConfig } from './edge-adjust.ts';
import { parseSweepReact, type SweepReactConfig } from './sweep-react.ts';
import type { MarketView } from './types.ts';

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
  /**
   * lean on the taker flow: the quotes' center moves by flowLean × the decayed taker-flow imbalance
   * (−1 … +1, the view's `edge.flowImbalance`), probability; 0 = off (the default). Takers who bought
   * lately predict a rising mid on an informed book: leaning with them quotes less of what they
   * are about to pick off (docs/edge.md)
   */
  readonly flowLean: number;
  /** the reaction to a taker sweep (src/strategy/sweep-react.ts); absent = off (the default) */
  readonly afterSweep?: SweepReactConfig;
}

export const LADDER_KEYS = ['inventoryUnit', 'minSpread', 'maxSpread', 'size', 'levels', 'levelSpacing', 'toxicity', 'flowLean', 'afterSweep'];

/** The shift of the quotes' center from the taker flow, probability (0 without a flow lean or a flow). */
export function flowLeanShift(view: MarketView, cfg: Pick<LadderConfig, 'flowLean'>): number {
  if (cfg.flowLean === 0 || !view.edge) return 0;
  const x = view.edge.flowImbalance;
  return Number.isFinite(x) ? cfg.flowLean * Math.min(1, Math.max(-1, x)) : 0;
}

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
    flowLean: readNumber(o, 'flowLean', path, { min: 0, max: 0.5 }, 0),
    // only when given, so a config without it reads (and reports) as before
    ...(o.afterSweep === undefined ? {} : { afterSweep: parseSweepReact(o.afterSweep, at(path, 'afterSweep')) }),
  };
  if (cfg.size < 1) throw new ConfigFieldError(at(path, 'size'), 'at least 0.000001 shares', o.size);
  if (cfg.inventoryUnit < 1) throw new ConfigFieldError(at(path, 'inventoryUnit'), 'at least 0.000001 shares', o.inventoryUnit);
  return cfg;
}
