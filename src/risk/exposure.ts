/**
 * Worst-case exposure of one market: every working, in-flight and cancelling order assumed filled
 * (a cancel is not final until the venue confirms it). YES-terms bids add to the net position and
 * asks subtract, whatever venue form they take (src/strategy/to-orders.ts), so
 *   worst long  = net + Σ bid sizes        worst short = −net + Σ ask sizes
 * Notional values each worst side at what could be lost: a long at the mark, a short at 1 − mark.
 */
import type { DesiredQuote, MarketView, WorkingQuote } from '../strategy/types.ts';

export interface Exposure {
  /** worst-case long YES, 1e-6 shares (may be negative when the net is short) */
  readonly long: number;
  /** worst-case short YES, 1e-6 shares */
  readonly short: number;
}

export function exposureOf(net: number, quotes: readonly (WorkingQuote | DesiredQuote)[]): Exposure {
  let bids = 0;
  let asks = 0;
  for (const q of quotes) {
    if (q.side === 'bid') bids += q.size;
    else asks += q.size;
  }
  return { long: net + bids, short: -net + asks };
}

/** max(|worst long|, |worst short|) clipped at 0: the figure position limits bound. */
export function worstPosition(e: Exposure): number {
  return Math.max(0, e.long, e.short);
}

/** 1e-6 USDC at risk at worst case, valuing YES at `mark` (1e-6 units). */
export function worstNotional(e: Exposure, mark: number): number {
  const longN = (Math.max(0, e.long) * mark) / 1e6;
  const shortN = (Math.max(0, e.short) * (1e6 - mark)) / 1e6;
  return Math.ceil(Math.max(longN, shortN));
}

/**
 * One market's share of the account-wide worst case that maxTotalPosition and maxTotalNotional
 * bound. A market whose payout is known (resolved) adds nothing: its position is worth its payout
 * (claimable at the venue), not at risk, and its orders can no longer fill. Its PnL still counts.
 */
export function accountShare(e: Exposure, mark: number, payoutKnown: boolean): { position: number; notional: number } {
  if (payoutKnown) return { position: 0, notional: 0 };
  return { position: worstPosition(e), notional: worstNotional(e, mark) };
}

/**
 * The mark used for notional: the mid, else 50¢ (maximum uncertainty). The mid rather than the
 * microprice so that this market's figure matches what the store sums into the account totals.
 */
export function markPrice(view: MarketView): number {
  return view.book?.mid ?? 500_000;
}

/** This market's current worst-case contribution to the account totals (for the state store). */
export function marketWorstCase(view: MarketView): { position: number; notional: number } {
  const e = exposureOf(view.position.net, view.quotes);
  return { position: worstPosition(e), notional: worstNotional(e, markPrice(view)) };
}
