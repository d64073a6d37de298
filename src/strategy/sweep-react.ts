/**
 * A market maker's reaction to a taker sweep (src/strategy/sweep.ts), for any quoting strategy:
 * for `seconds` after the newest sweep, (a) the side the sweep moved toward is pulled (after a
 * buying sweep the asks, which the informed takers lift next; after a selling sweep the bids) and
 * (b) the remaining quotes move toward the sweep's furthest price by `shift` (0 … 1: a fraction of
 * the distance from the book's mid; 1 = all the way), so the maker trades with the noise takers at
 * the new level instead of the stale mid. A moved quote never crosses the book: a bid stays at least
 * a tick below the best ask, an ask a tick above the best bid. With `maxPosition`, a quote whose side
 * would take the net position beyond it is left out (at any time while the option is on). With
 * `only`, nothing is quoted outside a reaction: the maker trades only behind a sweep. Off by
 * default (`seconds: 0`). Pure: a function of the view's recent trades, book and position.
 * The measured effect on each flow is in docs/edge.md, "A market maker that reacts to sweeps".
 */
import { readBoolean, readNumber, readOptionalObject, sharesToUnits } from '../core/fields.ts';
import { parseSweep, sweepEndingAt, SWEEP_KEYS, type Sweep, type SweepConfig } from './sweep.ts';
import type { DesiredQuote, MarketView } from './types.ts';

const ONE = 1_000_000;

export interface SweepReactConfig {
  /** 0 = off; how long after a sweep's last print the reaction lasts, ms */
  readonly holdMs: number;
  /** the fraction of the way from the mid to the sweep's furthest price the quotes move, [0, 1] */
  readonly shift: number;
  /** what makes a sweep (sweepShares, sweepSeconds) */
  readonly sweep: SweepConfig;
  /** net position beyond which the side that grows it is left out, 1e-6 shares (Infinity: none) */
  readonly maxPosition: number;
  /** quote only while a reaction lasts (no quote without a recent sweep) */
  readonly only: boolean;
}

export const SWEEP_REACT_OFF: SweepReactConfig = Object.freeze({
  holdMs: 0,
  shift: 0,
  sweep: Object.freeze({ windowMs: 2_000, minShares: 300_000_000 }),
  maxPosition: Infinity,
  only: false,
});

/** `afterSweep: { seconds, shift, sweepShares, sweepSeconds, maxPosition, only }` (absent or `seconds: 0`: off). */
export function parseSweepReact(raw: unknown, path: string): SweepReactConfig {
  if (raw === undefined || raw === null) return SWEEP_REACT_OFF;
  const o = readOptionalObject(raw, path, ['seconds', 'shift', 'maxPosition', 'only', ...SWEEP_KEYS]);
  const seconds = readNumber(o, 'seconds', path, { min: 0, max: 3600 }, 0);
  const max = o.maxPosition === undefined ? Infinity : sharesToUnits(readNumber(o, 'maxPosition', path, { min: 0, max: 1e9 }));
  return {
    holdMs: Math.round(seconds * 1000),
    shift: readNumber(o, 'shift', path, { min: 0, max: 1 }, 1),
    sweep: parseSweep(o, path),
    maxPosition: max,
    only: readBoolean(o, 'only', path, false),
  };
}

/** The newest sweep whose last print is within the hold, or null (also when the option is off). */
export function activeSweep(view: MarketView, cfg: SweepReactConfig): Sweep | null {
  if (cfg.holdMs <= 0) return null;
  const since = view.now - cfg.holdMs;
  const trades = view.trades;
  for (let j = trades.length - 1; j >= 0; j--) {
    const t = trades[j]!;
    if (t.ts < since) break;
    const s = sweepEndingAt(trades, j, t.ts, cfg.sweep);
    if (s !== null) return s;
  }
  return null;
}

/**
 * The quote move a sweep asks for, 1e-6 price units in whole ticks toward the sweep (+ up after a
 * buying sweep, − down after a selling one); 0 when the mid is already past the sweep's price.
 */
export function sweepShift(view: MarketView, sweep: Sweep, cfg: SweepReactConfig): number {
  const mid = view.book?.mid ?? null;
  if (mid === null || cfg.shift === 0) return 0;
  const gap = sweep.side === 'buy' ? Math.max(0, sweep.price - mid) : Math.min(0, sweep.price - mid);
  return Math.trunc((gap * cfg.shift) / view.tick) * view.tick;
}

/** `quotes` after the reaction: the swept-toward side pulled, the rest moved, the position limit kept. */
export function applySweepReact(quotes: DesiredQuote[], view: MarketView, cfg: SweepReactConfig | undefined): DesiredQuote[] {
  if (cfg === undefined || cfg.holdMs <= 0) return quotes;
  const net = view.position.net;
  let out = quotes;
  if (cfg.maxPosition !== Infinity) out = out.filter((q) => (q.side === 'bid' ? net + q.size <= cfg.maxPosition : net - q.size >= -cfg.maxPosition));
  const sweep = activeSweep(view, cfg);
  if (sweep === null) return cfg.only ? [] : out;
  const keep = sweep.side === 'buy' ? 'bid' : 'ask';
  const move = sweepShift(view, sweep, cfg);
  const bestBid = view.book?.bestBid ?? null;
  const bestAsk = view.book?.bestAsk ?? null;
  const res: DesiredQuote[] = [];
  for (const q of out) {
    if (q.side !== keep) continue;
    if (move === 0) {
      res.push(q);
      continue;
    }
    let price = q.price + move;
    if (q.side === 'bid') price = Math.min(price, bestAsk === null ? ONE - view.tick : bestAsk - view.tick, ONE - view.tick);
    else price = Math.max(price, bestBid === null ? view.tick : bestBid + view.tick, view.tick);
    // never move a quote away from the sweep (a book already past it) nor out of (0, 1)
    price = q.side === 'bid' ? Math.max(price, q.price) : Math.min(price, q.price);
    res.push(price === q.price ? q : { ...q, price });
  }
  return res;
}
