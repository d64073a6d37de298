/**
 * A taker sweep: the newest run of same-side taker prints within the last `windowMs`, when it adds
 * up to at least `minShares`. On a book that learns slowly, a large one-sided run of prints is
 * news acted on before the makers move, and the book stays on the wrong side of the news for
 * seconds after it; docs/edge.md ("Following sweeps", "The sweeps, and the refit") measures how
 * much of that the Polymarket capture and the `calibrated` flow show. Pure: a function of the
 * view's recent trades and the parameters.
 */
import { ConfigFieldError, at, readNumber, sharesToUnits, type Obj } from '../core/fields.ts';
import type { MarketView } from './types.ts';

export interface SweepConfig {
  /** how far back the run of prints may reach, ms */
  readonly windowMs: number;
  /** the run's total that makes it a sweep, 1e-6 shares */
  readonly minShares: number;
}

export const SWEEP_KEYS = ['sweepShares', 'sweepSeconds'];

/** `sweepShares` (default 300) and `sweepSeconds` (default 2) of a strategy's params. */
export function parseSweep(o: Obj, path: string): SweepConfig {
  const minShares = sharesToUnits(readNumber(o, 'sweepShares', path, { min: 0, gt: true, max: 1e9 }, 300));
  const seconds = readNumber(o, 'sweepSeconds', path, { min: 0, gt: true, max: 3600 }, 2);
  if (minShares < 1) throw new ConfigFieldError(at(path, 'sweepShares'), 'at least 0.000001 shares', o.sweepShares);
  return { windowMs: Math.round(seconds * 1000), minShares };
}

export interface Sweep {
  /** 'buy': takers lifted asks; 'sell': they hit bids */
  readonly side: 'buy' | 'sell';
  /** the furthest price the run reached (the highest buy, the lowest sale), YES terms, 1e-6 USDC */
  readonly price: number;
}

/**
 * The newest sweep, if there is one: the prints from the newest back while they are on the newest
 * print's side and inside the window, totalled; a sweep when the total reaches `minShares`, else
 * null. A print on the other side ends the run.
 */
export function newestSweep(view: MarketView, cfg: SweepConfig): Sweep | null {
  return sweepEndingAt(view.trades, view.trades.length - 1, view.now, cfg);
}

/** The sweep made by the run of prints ending at `trades[end]`, looking back `windowMs` from `now`; null when it falls short. */
export function sweepEndingAt(trades: MarketView['trades'], end: number, now: number, cfg: SweepConfig): Sweep | null {
  const since = now - cfg.windowMs;
  let side: 'buy' | 'sell' | null = null;
  let total = 0;
  let price = 0;
  for (let i = end; i >= 0; i--) {
    const t = trades[i]!;
    if (t.ts < since) break;
    if (side === null) {
      side = t.takerSide;
      price = t.price;
    } else if (t.takerSide !== side) break;
    total += t.size;
    price = side === 'buy' ? Math.max(price, t.price) : Math.min(price, t.price);
  }
  return side !== null && total >= cfg.minShares ? { side, price } : null;
}
