/**
 * Venue `Market` → `MarketInfo`. Money in integer units (volume as bigint 1e-6 USDC), outcome prices in
 * 1e-6 units per `quote-units.ts` (their units are unstated by the venue; 'auto' decided per market).
 * Only the fields a market maker relies on are required; descriptive extras are optional.
 */
import type { BookPriceUnits } from '../../model/book.ts';
import type { Address, Bytes32, OutcomeIndex } from '../../model/order.ts';
import { arrIfPresent, address, arr, asObject, big, bytes32, fieldName, int, nint, nnum, nOneOf, nstr, oneOf, str, sub, type At, type Rec } from './fields.ts';
import { quotePrice, resolvePriceUnits } from './quote-units.ts';

export type MarketStatus = 'active' | 'pending' | 'resolved' | 'closed';
export const MARKET_STATUSES: readonly MarketStatus[] = ['active', 'pending', 'resolved', 'closed'];
export type ResolutionStatus = 'none' | 'pending' | 'resolved';

export interface OutcomePrices {
  outcomeIndex: OutcomeIndex;
  bestBid: number | null;
  bestAsk: number | null;
  spread: number | null;
  midPrice: number | null;
  lastPrice: number | null;
  sellPrice: number | null;
  buyPrice: number | null;
}

export interface MarketInfo {
  id: Bytes32;
  question: string;
  shortQuestion: string;
  slug: string | null;
  status: MarketStatus;
  resolutionStatus: ResolutionStatus | null;
  outcomePrices: OutcomePrices[];
  outcomeTokens: Address[];
  /** 1e-6 USDC */
  volume: bigint;
  volume24h: bigint;
  participantCount: number | null;
  deadline: string | null;
  createdAt: string | null;
  /** winning outcome once resolved */
  outcome: number | null;
  creator: Address | null;
  oracle: Address | null;
  categories: string[];
}

const PRICE_KEYS = ['bestBid', 'bestAsk', 'spread', 'midPrice', 'lastPrice', 'sellPrice', 'buyPrice'] as const;

function parseOutcomePrices(m: Rec, a: At, units: BookPriceUnits): OutcomePrices[] {
  const raw = arr(m, 'outcomePrices', a, (v, aa) => {
    const o = asObject(v, aa);
    const vals = PRICE_KEYS.map((k) => nnum(o, k, aa, 0));
    return { o, aa, vals };
  });
  const u = resolvePriceUnits(
    units,
    raw.flatMap((r) => r.vals),
  );
  return raw.map(({ o, aa, vals }) => {
    const conv = (i: number): number | null => quotePrice(vals[i]!, u, aa.ep, fieldName(aa, PRICE_KEYS[i]!));
    return {
      outcomeIndex: oneOf(o, 'outcomeIndex', aa, [0, 1] as const),
      bestBid: conv(0),
      bestAsk: conv(1),
      spread: conv(2),
      midPrice: conv(3),
      lastPrice: conv(4),
      sellPrice: conv(5),
      buyPrice: conv(6),
    };
  });
}

function optBig(o: Rec, k: string, a: At): bigint {
  return o[k] === undefined || o[k] === null ? 0n : big(o, k, a);
}

function slugOf(m: Rec, a: At): string | null {
  if (typeof m.slug === 'string') return m.slug;
  const md = m.metadata;
  if (md && typeof md === 'object' && !Array.isArray(md)) return nstr(md as Rec, 'slug', sub(a, 'metadata'));
  return null;
}

function categoriesOf(m: Rec): string[] {
  const md = m.metadata as Rec | undefined;
  const c = md && typeof md === 'object' ? md.categories : undefined;
  return Array.isArray(c) ? c.filter((x): x is string => typeof x === 'string') : [];
}

export function parseMarket(v: unknown, a: At, units: BookPriceUnits = 'auto'): MarketInfo {
  const m = asObject(v, a);
  return {
    id: bytes32(m, 'id', a),
    question: str(m, 'question', a),
    shortQuestion: typeof m.shortQuestion === 'string' ? m.shortQuestion : str(m, 'question', a),
    slug: slugOf(m, a),
    status: oneOf(m, 'status', a, MARKET_STATUSES),
    resolutionStatus: nOneOf(m, 'resolutionStatus', a, ['none', 'pending', 'resolved'] as const),
    outcomePrices: m.outcomePrices === undefined ? [] : parseOutcomePrices(m, a, units),
    outcomeTokens: arrIfPresent(m, 'outcomeTokens', a, (t, aa) => address({ t }, 't', aa)),
    volume: optBig(m, 'volume', a),
    volume24h: optBig(m, 'volume24h', a),
    participantCount: nint(m, 'participantCount', a),
    deadline: nstr(m, 'deadline', a),
    createdAt: nstr(m, 'createdAt', a),
    outcome: m.outcome === undefined || m.outcome === null ? null : int(m, 'outcome', a, 0, 255),
    creator: m.creator === undefined || m.creator === null ? null : address(m, 'creator', a),
    oracle: m.oracle === undefined || m.oracle === null ? null : address(m, 'oracle', a),
    categories: categoriesOf(m),
  };
}
