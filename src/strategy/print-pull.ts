/**
 * Pull a side after a taker print on it: a taker who bought (lifted an ask) within the last
 * `windowMs` says the ask side may be priced below what the informed think it is worth, so asks at
 * or below the highest such print plus `ticks` ticks are left out; a taker sale likewise for bids
 * at or above the lowest sale print minus `ticks`. Where the book learns slowly and most prints come
 * from informed takers (the fitted `calibrated` flow, the Polymarket capture: docs/edge.md, "Where
 * they lose"), a print on a side is followed by more on it while the book catches up, and a quote
 * that stays there is picked off. Pure: a function of the view's recent trades and the parameters.
 */
import { readBoolean, readNumber, readOptionalObject } from '../core/fields.ts';
import { markoutsAdverse, type EdgeGuardConfig } from './edge-adjust.ts';
import type { DesiredQuote, MarketView } from './types.ts';

export interface PrintPullConfig {
  /** 0 = off; how long a print pulls its side, ms */
  readonly windowMs: number;
  /** how far past the print price the pull reaches, in ticks (a large number: the whole side) */
  readonly ticks: number;
  /** only while the bot's own markouts are shown adverse (the toxicity helper's gate, src/strategy/edge-adjust.ts) */
  readonly gated: boolean;
  /**
   * only the newest print in the window pulls its side: a sale after a buy gives the ask back (the
   * newest print is the better guess of which side of the book the fair value is on)
   */
  readonly latest: boolean;
  /** quote only behind a print: with no print in the window, both sides are pulled */
  readonly requirePrint: boolean;
}

export const PRINT_PULL_OFF: PrintPullConfig = Object.freeze({ windowMs: 0, ticks: 0, gated: false, latest: false, requirePrint: false });

/** `afterPrint: { seconds, ticks, gated, latest, requirePrint }` (absent or `seconds: 0`: off). */
export function parsePrintPull(raw: unknown, path: string): PrintPullConfig {
  if (raw === undefined || raw === null) return PRINT_PULL_OFF;
  const o = readOptionalObject(raw, path, ['seconds', 'ticks', 'gated', 'latest', 'requirePrint']);
  const seconds = readNumber(o, 'seconds', path, { min: 0, max: 3600 }, 0);
  const ticks = readNumber(o, 'ticks', path, { min: 0, max: 1000, integer: true }, 1000);
  return {
    windowMs: Math.round(seconds * 1000),
    ticks,
    gated: readBoolean(o, 'gated', path, false),
    latest: readBoolean(o, 'latest', path, false),
    requirePrint: readBoolean(o, 'requirePrint', path, false),
  };
}

/** The limits a recent print puts on the quotes: asks must be above `askAbove`, bids below `bidBelow` (1e-6 price units). */
export function printLimits(view: MarketView, cfg: PrintPullConfig): { askAbove: number; bidBelow: number } {
  let askAbove = -Infinity;
  let bidBelow = Infinity;
  if (cfg.windowMs <= 0) return { askAbove, bidBelow };
  const since = view.now - cfg.windowMs;
  const reach = cfg.ticks * view.tick;
  for (let i = view.trades.length - 1; i >= 0; i--) {
    const t = view.trades[i]!;
    if (t.ts < since) break;
    if (t.takerSide === 'buy') askAbove = Math.max(askAbove, t.price + reach);
    else bidBelow = Math.min(bidBelow, t.price - reach);
    if (cfg.latest) break;
  }
  if (cfg.requirePrint && askAbove === -Infinity && bidBelow === Infinity) return { askAbove: Infinity, bidBelow: -Infinity };
  return { askAbove, bidBelow };
}

/**
 * `quotes` without those a recent print pulls; with `gated`, only while the bot's markouts are
 * adverse by the gate of `guard` (the strategy's toxicity parameters: confidence, minFills).
 */
export function applyPrintPull(quotes: DesiredQuote[], view: MarketView, cfg: PrintPullConfig, guard: EdgeGuardConfig): DesiredQuote[] {
  if (cfg.windowMs <= 0) return quotes;
  if (cfg.gated && (view.edge === undefined || !markoutsAdverse(view.edge, guard))) return quotes;
  const { askAbove, bidBelow } = printLimits(view, cfg);
  if (askAbove === -Infinity && bidBelow === Infinity) return quotes;
  return quotes.filter((q) => (q.side === 'ask' ? q.price > askAbove : q.price < bidBelow));
}
