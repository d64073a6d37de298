/**
 * bands quote function (after Polymarket's poly-market-maker bands): each band is a margin range
 * [min, max] around the fair price with a target inside it. An own order already inside its band is
 * kept as it is (re-emitted unchanged, so the order manager sends nothing); a band with no order
 * gets one at the target margin. Noise in the fair price therefore moves no orders until one drifts
 * out of its band.
 */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { fairBook } from '../../src/strategy/others-book.ts';
import { edgeAdjust, sideExtraHalf, sideSize, type EdgeAdjustment } from '../../src/strategy/edge-adjust.ts';
import { applyPrintPull } from '../../src/strategy/print-pull.ts';
import { applySweepReact } from '../../src/strategy/sweep-react.ts';
import { applyTouchJoin } from '../../src/strategy/touch-join.ts';
import { snapPrice } from '../../src/strategy/snap-price.ts';
import type { DesiredQuote, MarketView, WorkingQuote } from '../../src/strategy/types.ts';
import type { Band, BandsConfig } from './config.ts';

export function quoteBands(view: MarketView, cfg: BandsConfig): DesiredQuote[] | null {
  const ref = fairPrice(fairBook(view, cfg.fairFrom), cfg.fair);
  if (ref === null) return null; // no two-sided book: no reference to quote around
  const fair = ref - cfg.inventorySkew * (view.position.net / 1e6);
  // toxicity / regime: every margin moves out by the extra half spread, sizes shrink, sides may go
  const adj = edgeAdjust(view, cfg.toxicity);
  const out: DesiredQuote[] = [];
  cfg.bands.forEach((raw, level) => {
    for (const side of ['bid', 'ask'] as const) {
      if (side === 'bid' ? !adj.bid : !adj.ask) continue;
      // per side: the side that reduces the position is spared the cuts (sideExtraHalf, sideSize)
      const band = widened(raw, adj, side, view.minSize);
      if (band.size < view.minSize || band.size === 0) continue;
      const q = bandQuote(view, fair, band, level, side);
      if (q) out.push(q);
    }
  });
  // a side a taker just printed on is left out for a while (afterPrint; off by default)
  // and after a taker sweep, the swept-toward side pulled and the rest moved toward it (afterSweep; off by default)
  // never ahead of the others' touch (touch; off by default)
  return applyTouchJoin(applySweepReact(applyPrintPull(out, view, cfg.afterPrint, cfg.toxicity), view, cfg.afterSweep), view, cfg.touch);
}

function widened(b: Band, adj: EdgeAdjustment, side: 'bid' | 'ask', minSize: number): Band {
  if (adj.extraHalf === 0 && adj.sizeFactor === 1 && adj.reduceExtraHalf === 0) return b;
  const x = sideExtraHalf(adj, side);
  const size = sideSize(b.size, adj, side, minSize);
  if (x === 0 && size === b.size) return b;
  // a tightened side's margins stop at the fair price
  return { minMargin: Math.max(0, b.minMargin + x), targetMargin: Math.max(0, b.targetMargin + x), maxMargin: Math.max(0, b.maxMargin + x), size };
}

function bandQuote(view: MarketView, fair: number, band: Band, level: number, side: 'bid' | 'ask'): DesiredQuote | null {
  const sign = side === 'bid' ? -1 : 1;
  const inner = fair + sign * band.minMargin;
  const outer = fair + sign * band.maxMargin;
  const kept = view.quotes.find((w) => w.side === side && w.level === level && w.state !== 'cancelling' && inBand(w, inner, outer));
  if (kept) return { side, price: kept.price, size: kept.size, level, tag: 'bands' };
  const price = snapPrice(fair + sign * band.targetMargin, side, view.tick);
  // near 0 or 1 the tick clamp pulls a price toward fair: drop it once it is inside the band's
  // minimum margin (it would duplicate an inner band or even quote through fair)
  if (sign * (price - fair) < band.minMargin) return null;
  return { side, price, size: band.size, level, tag: 'bands' };
}

function inBand(w: WorkingQuote, inner: number, outer: number): boolean {
  const lo = Math.min(inner, outer);
  const hi = Math.max(inner, outer);
  return w.price >= lo && w.price <= hi;
}
