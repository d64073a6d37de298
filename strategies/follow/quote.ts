/** follow quote function: after a sweep, one order across the touch toward a position of `size` in its direction. */
import { sweepSide } from '../../src/strategy/sweep.ts';
import { othersBook } from '../../src/strategy/others-book.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { FollowConfig } from './config.ts';

const ONE = 1_000_000;

export function quoteFollow(view: MarketView, cfg: FollowConfig): DesiredQuote[] | null {
  const book = othersBook(view);
  if (book === null || book.bestBid === null || book.bestAsk === null || cfg.size < view.minSize) return null;
  const side = sweepSide(view, cfg.sweep);
  if (side === null) return [];
  const net = view.position.net;
  const reach = cfg.ticks * view.tick;
  if (side === 'buy') {
    const want = cfg.size - net;
    if (want < view.minSize) return [];
    return [{ side: 'bid', price: Math.min(ONE - view.tick, book.bestAsk + reach), size: want, level: 0, tag: 'follow' }];
  }
  const want = cfg.size + net;
  if (want < view.minSize) return [];
  return [{ side: 'ask', price: Math.max(view.tick, book.bestBid - reach), size: want, level: 0, tag: 'follow' }];
}
