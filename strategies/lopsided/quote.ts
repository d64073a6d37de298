/**
 * lopsided: a small two-sided quote half a cent from a smoothed mid of the others' book, opened only in
 * markets within `maxPQ` of a bound (README.md; docs/edge-feasibility.md, "A maker that sees only the book").
 */
import { othersBook } from '../../src/strategy/others-book.ts';
import { quotesAround } from '../../src/strategy/quote-around.ts';
import { type SmoothMidMemory, smoothMid } from '../../src/strategy/smooth-mid.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { LopsidedConfig } from './config.ts';

// the smoothed mid's memory, one per parsed configuration (a run parses its own; src/strategy/smooth-mid.ts)
const memories = new WeakMap<LopsidedConfig, Map<string, SmoothMidMemory>>();

export function quoteLopsided(view: MarketView, cfg: LopsidedConfig): DesiredQuote[] | null {
  const mid = othersBook(view)?.mid ?? null;
  if (mid === null || view.status !== 'active' || view.book === null) return null;
  let memory = memories.get(cfg);
  if (memory === undefined) memories.set(cfg, (memory = new Map()));
  const e = smoothMid(memory, view.marketId, view.now, mid, cfg.smoothSeconds, cfg.jump);
  const net = view.position.net;
  // beyond maxPQ, or at the position limit on a side, that side only takes the position down
  const opens = Math.min(e, 1e6 - e) <= cfg.maxPQ * 1e6;
  const bidSize = opens && net < cfg.maxPosition ? cfg.size : Math.min(cfg.size, Math.max(0, -net));
  const askSize = opens && net > -cfg.maxPosition ? cfg.size : Math.min(cfg.size, Math.max(0, net));
  return quotesAround(view, e - cfg.halfSpread, e + cfg.halfSpread, bidSize, askSize);
}
