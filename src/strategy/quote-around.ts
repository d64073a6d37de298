/**
 * A two-sided quote around an estimate of the fair price, in price units (1e-6):
 *
 *   quotesAround(view, e - halfSpread, e + halfSpread, bidSize, askSize)
 *
 * The bid is rounded down and the ask up to the market's tick (never more aggressive than asked),
 * then held off the book's far side: a bid that would cross is put a tick under the best ask, an ask a
 * tick over the best bid. A side with no size, or whose price falls outside [tick, 1e6 − tick], is left
 * out. Which sizes to ask for (limits, close-only sides) is the strategy's own decision.
 */
import type { DesiredQuote, MarketView } from './types.ts';

export function quotesAround(view: MarketView, bidAt: number, askAt: number, bidSize: number, askSize: number): DesiredQuote[] {
  const tick = view.tick;
  let bid = Math.floor(bidAt / tick + 1e-9) * tick;
  let ask = Math.ceil(askAt / tick - 1e-9) * tick;
  const bestBid = view.book?.bestBid ?? null;
  const bestAsk = view.book?.bestAsk ?? null;
  if (bestAsk !== null) bid = Math.min(bid, bestAsk - tick);
  if (bestBid !== null) ask = Math.max(ask, bestBid + tick);
  const out: DesiredQuote[] = [];
  if (bidSize > 0 && bid >= tick) out.push({ side: 'bid', price: bid, size: bidSize });
  if (askSize > 0 && ask <= 1e6 - tick) out.push({ side: 'ask', price: ask, size: askSize });
  return out;
}
