/**
 * The simulated oracle: a per-market summary (what GET /markets/:id/oracle answers) that the
 * counterparty timers update, and oracle quotes requested by clients (202, at most one per market
 * every 5 minutes) that complete a couple of seconds later with the book's current chance.
 * Kept in `state.ext.oracle`, so it is saved with the rest.
 */
import type { Bytes32 } from '../model/order.ts';
import { extData, type ExchangeState } from './context.ts';

export const ORACLE_EXT_KEY = 'oracle';
export const QUOTE_INTERVAL_MS = 5 * 60_000;
const QUOTE_PROCESSING_MS = 2_000;

export interface OracleSummary {
  lastCheckedAt: number;
  confidenceLevel: string | null;
  postsCount: number;
  relevantPosts: string[];
  sourcesMonitored: string[];
  decision: string;
  shortSummary: string;
  expandedSummary: string;
}

export interface OracleQuote {
  id: number;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  probability: number | null;
  confidence: 'low' | 'medium' | 'high' | null;
  reasoning: string | null;
  referenceMarketsCount: number;
  createdAt: number;
  completedAt: number | null;
}

export interface OracleData {
  nextQuoteId: number;
  /** by market id (lower-case, as every id inside) */
  markets: Record<string, { summary: OracleSummary | null; quotes: OracleQuote[]; lastRequestAt: number | null }>;
}

export function oracleData(state: ExchangeState): OracleData {
  return extData<OracleData>(state, ORACLE_EXT_KEY, () => ({ nextQuoteId: 1, markets: {} }));
}

export function marketOracle(state: ExchangeState, marketId: Bytes32): OracleData['markets'][string] {
  const d = oracleData(state);
  let m = d.markets[marketId];
  if (!m) {
    m = { summary: null, quotes: [], lastRequestAt: null };
    d.markets[marketId] = m;
  }
  return m;
}

/** Record an oracle check (counterparty timers call this) and log `oracle_update`. */
export function oracleUpdate(state: ExchangeState, marketId: Bytes32, now: number, chance: number | null, posts: number): void {
  const m = marketOracle(state, marketId);
  const confidence = posts > 8 ? 'high' : posts > 3 ? 'medium' : 'low';
  const decision = chance === null ? 'undetermined' : chance >= 0.5 ? 'leaning yes' : 'leaning no';
  m.summary = {
    lastCheckedAt: now,
    confidenceLevel: confidence,
    postsCount: posts,
    relevantPosts: Array.from({ length: Math.min(posts, 3) }, (_, i) => `https://example.invalid/post/${marketId.slice(2, 10)}-${now}-${i}`),
    sourcesMonitored: ['news', 'social'],
    decision,
    shortSummary: `Evidence is ${decision}.`,
    expandedSummary: `Simulated oracle check: ${posts} relevant posts, ${decision}${chance === null ? '' : ` (book chance ${(chance * 100).toFixed(1)}%)`}.`,
  };
  state.services.addActivity({ type: 'oracle_update', marketId, ts: now, data: { confidence: chance, status: decision } });
}

/** Advance pending quotes whose processing time has passed (lazy, at read time). */
export function settleQuotes(m: OracleData['markets'][string], now: number, chance: () => number | null): void {
  for (const q of m.quotes) {
    if (q.status === 'completed' || q.status === 'failed') continue;
    if (now - q.createdAt >= QUOTE_PROCESSING_MS) {
      const p = chance();
      q.status = p === null ? 'failed' : 'completed';
      q.probability = p;
      q.confidence = p === null ? null : 'medium';
      q.reasoning = p === null ? 'no market data yet' : 'derived from the order book and recent trades';
      q.referenceMarketsCount = 1;
      q.completedAt = now;
    } else if (now - q.createdAt >= QUOTE_PROCESSING_MS / 2) q.status = 'processing';
  }
}

export function quoteJson(q: OracleQuote): Record<string, unknown> {
  return { ...q, createdAt: new Date(q.createdAt).toISOString(), completedAt: q.completedAt === null ? null : new Date(q.completedAt).toISOString() };
}

export function summaryJson(s: OracleSummary | null): Record<string, unknown> | null {
  if (!s) return null;
  return {
    lastCheckedAt: new Date(s.lastCheckedAt).toISOString(),
    confidenceLevel: s.confidenceLevel,
    evidenceCollected: { postsCount: s.postsCount, relevantPosts: s.relevantPosts },
    sourcesMonitored: s.sourcesMonitored,
    summary: { decision: s.decision, shortSummary: s.shortSummary, expandedSummary: s.expandedSummary },
  };
}
