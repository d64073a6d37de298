/**
 * follow quote function: after a sweep, one order across the touch toward a position of `size` in
 * its direction, at the others' best price; with `chaseTicks`, never more than that beyond the
 * furthest price the sweep itself reached (a book the sweep emptied is not chased).
 */
import { newestSweep } from '../../src/strategy/sweep.ts';
import { othersBook } from '../../src/strategy/others-book.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { FollowConfig } from './config.ts';

const ONE = 1_000_000;

export function quoteFollow(view: MarketView, cfg: FollowConfig): DesiredQuote[] | null {
  const book = othersBook(view);
  if (book === null || book.bestBid === null || book.bestAsk === null || cfg.size < view.minSize) return null;
  const sweep = newestSweep(view, cfg.sweep);
  if (sweep === null) return [];
  const net = view.position.net;
  const capped = Number.isFinite(cfg.chaseTicks);
  const reach = cfg.chaseTicks * view.tick;
  if (sweep.side === 'buy') {
    const want = cfg.size - net;
    if (want < view.minSize) return [];
    const price = Math.min(ONE - view.tick, book.bestAsk, capped ? sweep.price + reach : ONE);
    return [{ side: 'bid', price, size: want, level: 0, tag: 'follow' }];
  }
  const want = cfg.size + net;
  if (want < view.minSize) return [];
  const price = Math.max(view.tick, book.bestBid, capped ? sweep.price - reach : 0);
  return [{ side: 'ask', price, size: want, level: 0, tag: 'follow' }];
}
