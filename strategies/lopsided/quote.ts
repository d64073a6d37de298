/**
 * lopsided: a small two-sided quote half a cent from a smoothed mid of the others' book, opened only in
 * markets within `maxPQ` of a bound (README.md; docs/edge-feasibility.md, "A maker that sees only the book").
 */
import { othersBook } from '../../src/strategy/others-book.ts';
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
  const tick = view.tick;
  const net = view.position.net;
  const { bestBid, bestAsk } = view.book;
  let bid = Math.floor((e - cfg.halfSpread) / tick + 1e-9) * tick;
  let ask = Math.ceil((e + cfg.halfSpread) / tick - 1e-9) * tick;
  // never crossing the book: a bid that would is held a tick under the best ask, an ask a tick over the best bid
  if (bestAsk !== null) bid = Math.min(bid, bestAsk - tick);
  if (bestBid !== null) ask = Math.max(ask, bestBid + tick);
  // beyond maxPQ, or at the position limit on a side, that side only takes the position down
  const opens = Math.min(e, 1e6 - e) <= cfg.maxPQ * 1e6;
  const bidSize = opens && net < cfg.maxPosition ? cfg.size : Math.min(cfg.size, Math.max(0, -net));
  const askSize = opens && net > -cfg.maxPosition ? cfg.size : Math.min(cfg.size, Math.max(0, net));
  const out: DesiredQuote[] = [];
  if (bidSize > 0 && bid >= tick) out.push({ side: 'bid', price: bid, size: bidSize });
  if (askSize > 0 && ask <= 1e6 - tick) out.push({ side: 'ask', price: ask, size: askSize });
  return out;
}
