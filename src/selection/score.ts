/**
 * The rank score of a market (pure: no clock, no I/O). Each term turns one published figure into a
 * number from 0 to 1 by a fixed transform, and the score is Σ weight · term. A figure that is missing
 * or bad drops its term (the term is null, contributes nothing, and the caller logs and counts it).
 *
 *   term                figure (source)                                          transform → 0..1
 *   spread              YES best ask − best bid, cents (market list)             min(1, s / 10¢)
 *   depth               USDC resting within 5¢ of the touch, both sides (book)   d / (d + 500 USDC)
 *   volume              lifetime volume, USDC (market list)                      min(1, log10(1 + v) / 6)       (1 at 1 M USDC)
 *   volume24h           24-hour volume, USDC (market list)                       min(1, log10(1 + v) / 5)       (1 at 100 k USDC)
 *   volatility          std. dev. of successive YES prices, cents (1-day history) σ / (σ + 2¢)
 *   tradeRate           trades in the last hour (market activity, ≤ 100)          n / (n + 20)
 *   timeToDeadline      days to the deadline (market list)                        1 − exp(−days / 7); 0 once past
 *   oracleDisagreement  |oracle probability − YES mid| (latest oracle quote)      min(1, Δ / 0.20)
 *   fee                 fee per share at the mid / half the spread (feeBps)       min(1, fee / (spread / 2)); 0 when feeBps = 0
 *
 * Signs are the weights' business: wide spreads, volume, trades and time left help a maker (positive
 * weights by default); volatility, oracle disagreement (a sign of informed flow) and fees hurt it.
 */
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import { RANK_TERMS, type RankTerm } from '../config/types.ts';

/** The scale constants of the transforms above. */
export const SCALES = {
  /** spread at which the term reaches 1, 1e-6 units (10¢) */
  spreadFull: 100_000,
  /** how far from the best price depth is counted, 1e-6 units (5¢) */
  depthWindow: 50_000,
  /** depth at which the term is ½, USDC */
  depthHalf: 500,
  /** log10 of the volume at which the term reaches 1 (1 M USDC) */
  volumeLog: 6,
  /** …of the 24-hour volume (100 k USDC) */
  volume24hLog: 5,
  /** price std. dev. at which the term is ½, cents */
  volatilityHalf: 2,
  /** trades per hour at which the term is ½ */
  tradeRateHalf: 20,
  /** days over which time-to-deadline rises by 1 − 1/e */
  deadlineDays: 7,
  /** disagreement at which the term reaches 1 (20 points of probability) */
  oracleFull: 0.2,
} as const;

const ONE = 1_000_000;

/** What a market's terms are made from; null = not known (not fetched, missing or bad). */
export interface RankInputs {
  /** YES best bid and ask, 1e-6 units */
  readonly bid: number | null;
  readonly ask: number | null;
  /** YES mid, 1e-6 units (the venue's midPrice, else (bid + ask) / 2) */
  readonly mid: number | null;
  /** USDC within depthWindow of the touch on both sides */
  readonly depthUsdc: number | null;
  /** 1e-6 USDC */
  readonly volume: bigint | null;
  readonly volume24h: bigint | null;
  /** YES prices of the recent history in time order, 1e-6 units */
  readonly history: readonly number[] | null;
  /** trades in the last hour */
  readonly tradesLastHour: number | null;
  /** ms from now to the deadline (negative once past) */
  readonly msToDeadline: number | null;
  /** the oracle's probability of YES, 0..1 */
  readonly oracleProbability: number | null;
  /** the fee rate charged, basis points of notional */
  readonly feeBps: number;
}

export type RankTerms = Readonly<Record<RankTerm, number | null>>;

/** Why a term has no value, for the log and the drop counter. */
export type DropReason = 'missing' | 'bad' | 'error' | 'budget' | 'unsupported';

const clamp01 = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x);
const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The YES figures of the market list entry (a missing YES outcome gives nulls). */
export function listInputs(m: MarketInfo, nowMs: number, feeBps: number): RankInputs {
  const yes = m.outcomePrices.find((p) => p.outcomeIndex === 1);
  const bid = yes?.bestBid ?? null;
  const ask = yes?.bestAsk ?? null;
  const mid = yes?.midPrice ?? (bid !== null && ask !== null ? Math.round((bid + ask) / 2) : null);
  const deadline = m.deadline === null ? NaN : Date.parse(m.deadline);
  return {
    bid,
    ask,
    mid,
    depthUsdc: null,
    volume: m.volume,
    volume24h: m.volume24h,
    history: null,
    tradesLastHour: null,
    msToDeadline: Number.isFinite(deadline) ? deadline - nowMs : null,
    oracleProbability: null,
    feeBps,
  };
}

/** USDC resting within `window` of each side's best price (YES terms; bids desc, asks asc). */
export function depthNearTouch(
  bids: readonly { price: number; size: number }[],
  asks: readonly { price: number; size: number }[],
  window = SCALES.depthWindow,
): number | null {
  let usdc = 0;
  const side = (levels: readonly { price: number; size: number }[], within: (p: number) => boolean): boolean => {
    for (const l of levels) {
      if (!finite(l.price) || !finite(l.size) || l.price <= 0 || l.price >= ONE || l.size < 0) return false;
      if (!within(l.price)) break;
      usdc += (l.price / ONE) * (l.size / ONE);
    }
    return true;
  };
  const b0 = bids[0]?.price;
  const a0 = asks[0]?.price;
  if (b0 !== undefined && !side(bids, (p) => p >= b0 - window)) return null;
  if (a0 !== undefined && !side(asks, (p) => p <= a0 + window)) return null;
  return usdc;
}

/** Std. dev. of successive differences of a price series, cents; null with fewer than 3 points. */
export function priceVolatilityCents(prices: readonly number[]): number | null {
  if (prices.length < 3) return null;
  const d: number[] = [];
  for (let i = 1; i < prices.length; i++) d.push((prices[i]! - prices[i - 1]!) / 10_000);
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  const v = d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length;
  return Math.sqrt(v);
}

function logScale(v: bigint | null, full: number): number | null {
  if (v === null || v < 0n) return null;
  return clamp01(Math.log10(1 + Number(v) / ONE) / full);
}

/**
 * Every term from its inputs; a term is null when its figure is unknown or bad (bad: a crossed or
 * out-of-range book, a price outside 0..1, a negative count). `bad` lists the terms whose figure was
 * present but unusable, so the caller can tell `bad` from `missing`.
 */
export function rankTerms(x: RankInputs): { terms: RankTerms; bad: RankTerm[] } {
  const bad: RankTerm[] = [];
  const spreadOk = finite(x.bid) && finite(x.ask) && x.bid > 0 && x.ask < ONE && x.ask > x.bid;
  if (x.bid !== null && x.ask !== null && !spreadOk) bad.push('spread');
  const spread = spreadOk ? (x.ask as number) - (x.bid as number) : null;
  const mid = finite(x.mid) && x.mid > 0 && x.mid < ONE ? x.mid : null;
  // a count or amount ≥ 0 → v / (v + half): 0.5 at `half`, toward 1 above; null when unknown, bad when negative
  const saturating = (v: number | null, half: number, term: RankTerm): number | null => {
    if (v === null) return null;
    if (finite(v) && v >= 0) return v / (v + half);
    bad.push(term);
    return null;
  };
  const depth = saturating(x.depthUsdc, SCALES.depthHalf, 'depth');
  let volatility: number | null = null;
  if (x.history !== null) {
    if (x.history.every((p) => finite(p) && p >= 0 && p <= ONE)) {
      const s = priceVolatilityCents(x.history);
      volatility = s === null ? null : s / (s + SCALES.volatilityHalf);
    } else bad.push('volatility');
  }
  const tradeRate = saturating(x.tradesLastHour, SCALES.tradeRateHalf, 'tradeRate');
  let timeToDeadline: number | null = null;
  if (x.msToDeadline !== null) {
    if (finite(x.msToDeadline)) timeToDeadline = x.msToDeadline <= 0 ? 0 : 1 - Math.exp(-x.msToDeadline / 86_400_000 / SCALES.deadlineDays);
    else bad.push('timeToDeadline');
  }
  let oracle: number | null = null;
  if (x.oracleProbability !== null) {
    if (finite(x.oracleProbability) && x.oracleProbability >= 0 && x.oracleProbability <= 1 && mid !== null)
      oracle = clamp01(Math.abs(x.oracleProbability - mid / ONE) / SCALES.oracleFull);
    else if (mid !== null) bad.push('oracleDisagreement');
  }
  let fee: number | null;
  if (!finite(x.feeBps) || x.feeBps < 0) {
    fee = null;
    bad.push('fee');
  } else if (x.feeBps === 0) fee = 0;
  else fee = spread !== null && mid !== null ? clamp01(((x.feeBps / 10_000) * mid) / (spread / 2)) : null;
  const volume = logScale(x.volume, SCALES.volumeLog);
  if (x.volume !== null && volume === null) bad.push('volume');
  const volume24h = logScale(x.volume24h, SCALES.volume24hLog);
  if (x.volume24h !== null && volume24h === null) bad.push('volume24h');
  return {
    terms: {
      spread: spread === null ? null : clamp01(spread / SCALES.spreadFull),
      depth,
      volume,
      volume24h,
      volatility,
      tradeRate,
      timeToDeadline,
      oracleDisagreement: oracle,
      fee,
    },
    bad,
  };
}

/** Σ weight · term over the known terms (a null term contributes nothing). */
export function scoreOf(terms: RankTerms, weights: Readonly<Record<RankTerm, number>>): number {
  let s = 0;
  for (const t of RANK_TERMS) {
    const v = terms[t];
    if (v !== null && weights[t] !== 0) s += weights[t] * v;
  }
  return s;
}
