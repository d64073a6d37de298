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
  // Index loops rather than filter/map/Math.min(...spread): this runs on every tick. A NaN price
  // makes the extreme NaN, as Math.min/Math.max would.
  let ownBestAsk: number | null = null;
  let ownBestBid: number | null = null;
  for (const q of view.quotes) {
    if (q.side === 'ask') ownBestAsk = ownBestAsk === null ? q.price : min(ownBestAsk, q.price);
    else if (q.side === 'bid') ownBestBid = ownBestBid === null ? q.price : max(ownBestBid, q.price);
  }
  // malformed entries (denied as BAD_QUOTE) must not poison the min/max with NaN
  let wantBestAsk: number | null = null;
  let wantBestBid: number | null = null;
  for (const q of quotes) {
    if (!isWellFormed(q)) continue;
    if (q.side === 'ask') wantBestAsk = wantBestAsk === null ? q.price : min(wantBestAsk, q.price);
    else wantBestBid = wantBestBid === null ? q.price : max(wantBestBid, q.price);
  }
  return { ownBestAsk, ownBestBid, wantBestAsk, wantBestBid, fair: view.book?.microprice ?? view.book?.mid ?? null };
}

// Math.min/Math.max of two, spelled out so a NaN sticks without going through the variadic builtins
const min = (a: number, b: number): number => (a !== a || b !== b ? Number.NaN : b < a ? b : a === b && b === 0 && 1 / b < 0 ? b : a);
const max = (a: number, b: number): number => (a !== a || b !== b ? Number.NaN : b > a ? b : a === b && b === 0 && 1 / b > 0 ? b : a);

export function isWellFormed(q: DesiredQuote): boolean {
  return (q.side === 'bid' || q.side === 'ask') && Number.isSafeInteger(q.price) && Number.isSafeInteger(q.size) && q.size > 0;
}

export function priceCheck(q: DesiredQuote, view: MarketView, limits: RiskLimits, ctx: PriceContext): GuardTrip | null {
  if (!isWellFormed(q)) return { reason: 'BAD_QUOTE', detail: 'side, integer price and positive integer size required' };
  if (!isOnGrid(q.price, view.tick))
    return { reason: 'PRICE_OUT_OF_RANGE', detail: `price ${q.price} is off the tick ${view.tick} grid or outside [tick, 1e6 − tick]` };
  const bid = q.side === 'bid';
  if (!limits.allowCrossing && crossesBook(q, view) && !reducing(q, view)) {
    return { reason: 'CROSSES_BOOK', detail: `${q.side} ${q.price} crosses best ${bid ? 'ask' : 'bid'} ${bid ? view.book?.bestAsk : view.book?.bestBid}` };
  }
  if (limits.maxDistanceFromFair > 0 && ctx.fair !== null && Math.abs(q.price - ctx.fair) > limits.maxDistanceFromFair) {
    return { reason: 'FAR_FROM_FAIR', detail: `${q.price} is more than ${limits.maxDistanceFromFair} from fair ${Math.round(ctx.fair)}` };
  }
  const own = bid ? ctx.ownBestAsk : ctx.ownBestBid;
  if (own !== null && (bid ? q.price >= own : q.price <= own)) return selfTrade(q, bid, own);
  const want = bid ? ctx.wantBestAsk : ctx.wantBestBid;
  if (want !== null && (bid ? q.price >= want : q.price <= want)) return selfTrade(q, bid, want);
  return null;
}

/** bid at or above the others' best ask, or ask at or below their best bid */
export function crossesBook(q: DesiredQuote, view: MarketView): boolean {
  const bid = q.side === 'bid';
  const opp = bid ? view.book?.bestAsk : view.book?.bestBid;
  return opp != null && (bid ? q.price >= opp : q.price <= opp);
}

/** A quote flagged `reduce` on the side that takes the net position down, at most the position's size: it may cross. */
function reducing(q: DesiredQuote, view: MarketView): boolean {
  const net = view.position.net;
  return q.reduce === true && (q.side === 'ask' ? net > 0 : net < 0) && q.size <= Math.abs(net);
}

function selfTrade(q: DesiredQuote, bid: boolean, p: number): GuardTrip {
  return { reason: 'SELF_TRADE', detail: `${q.side} ${q.price} would match own ${bid ? 'ask' : 'bid'} ${p}` };
}
