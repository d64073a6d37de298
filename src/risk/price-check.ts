/**
 * Per-quote price checks: well-formed, on the tick grid inside [tick, 1e6 − tick], not crossing the
 * book (unless allowed), not too far from fair, and no self-trade against our own resting orders
 * or the other side of the desired set.
 */
import { isOnGrid } from '../strategy/snap-price.ts';
import type { DesiredQuote, MarketView } from '../strategy/types.ts';
import type { GuardTrip } from './market-guard.ts';
import type { RiskLimits } from './types.ts';

export interface PriceContext {
  /** lowest own resting (or in-flight) ask and highest own bid, null when none */
  readonly ownBestAsk: number | null;
  readonly ownBestBid: number | null;
  /** lowest desired ask and highest desired bid (the set must not cross itself) */
  readonly wantBestAsk: number | null;
  readonly wantBestBid: number | null;
  readonly fair: number | null;
}

export function priceContext(view: MarketView, quotes: readonly DesiredQuote[]): PriceContext {
  const ownAsks = view.quotes.filter((q) => q.side === 'ask').map((q) => q.price);
  const ownBids = view.quotes.filter((q) => q.side === 'bid').map((q) => q.price);
  // malformed entries (denied as BAD_QUOTE) must not poison the min/max with NaN
  const valid = quotes.filter(isWellFormed);
  const wantAsks = valid.filter((q) => q.side === 'ask').map((q) => q.price);
  const wantBids = valid.filter((q) => q.side === 'bid').map((q) => q.price);
  return {
    ownBestAsk: ownAsks.length ? Math.min(...ownAsks) : null,
    ownBestBid: ownBids.length ? Math.max(...ownBids) : null,
    wantBestAsk: wantAsks.length ? Math.min(...wantAsks) : null,
    wantBestBid: wantBids.length ? Math.max(...wantBids) : null,
    fair: view.book?.microprice ?? view.book?.mid ?? null,
  };
}

export function isWellFormed(q: DesiredQuote): boolean {
  return (q.side === 'bid' || q.side === 'ask') && Number.isSafeInteger(q.price) && Number.isSafeInteger(q.size) && q.size > 0;
}

export function priceCheck(q: DesiredQuote, view: MarketView, limits: RiskLimits, ctx: PriceContext): GuardTrip | null {
  if (!isWellFormed(q)) return { reason: 'BAD_QUOTE', detail: 'side, integer price and positive integer size required' };
  if (!isOnGrid(q.price, view.tick)) return { reason: 'PRICE_OUT_OF_RANGE', detail: `price ${q.price} is off the tick ${view.tick} grid or outside [tick, 1e6 − tick]` };
  const bid = q.side === 'bid';
  const opp = bid ? view.book?.bestAsk : view.book?.bestBid;
  if (!limits.allowCrossing && opp != null && (bid ? q.price >= opp : q.price <= opp)) {
    return { reason: 'CROSSES_BOOK', detail: `${q.side} ${q.price} crosses best ${bid ? 'ask' : 'bid'} ${opp}` };
  }
  if (limits.maxDistanceFromFair > 0 && ctx.fair !== null && Math.abs(q.price - ctx.fair) > limits.maxDistanceFromFair) {
    return { reason: 'FAR_FROM_FAIR', detail: `${q.price} is more than ${limits.maxDistanceFromFair} from fair ${Math.round(ctx.fair)}` };
  }
  const own = bid ? ctx.ownBestAsk : ctx.ownBestBid;
  const want = bid ? ctx.wantBestAsk : ctx.wantBestBid;
  for (const p of [own, want]) {
    if (p !== null && (bid ? q.price >= p : q.price <= p)) return { reason: 'SELF_TRADE', detail: `${q.side} ${q.price} would match own ${bid ? 'ask' : 'bid'} ${p}` };
  }
  return null;
}
