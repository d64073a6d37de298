/**
 * Oracle: the summary (spec) and the oracle quotes list / request / latest (docs/venue.md#endpoints, old spec only).
 * A quote request is limited to one per 5 min per market; its 429 may carry `retryAfter` (read by the transport).
 */
import { BadResponseError } from '../../model/errors.ts';
import { requestObject, type ClientContext } from './context.ts';
import { arr, asObject, at, int, nnum, nOneOf, nstr, oneOf, str, sub, type At, type Rec } from './fields.ts';
import { checkMarketRef } from './inputs.ts';
import { seg } from './transport.ts';

export interface OracleSummary {
  lastCheckedAt: string | null;
  confidenceLevel: string | null;
  postsCount: number | null;
  relevantPosts: string[];
  sourcesMonitored: string[];
  decision: string | null;
  shortSummary: string | null;
  expandedSummary: string | null;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** GET /markets/:id/oracle → `{oracle: null | {...}}`. */
export async function getOracle(ctx: ClientContext, marketId: string): Promise<OracleSummary | null> {
  const ep = 'GET /markets/:id/oracle';
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/markets/${seg(checkMarketRef(marketId))}/oracle`, endpoint: ep });
  if (!('oracle' in o)) throw new BadResponseError(ep, 'oracle', 'an object or null', undefined);
  if (o.oracle === null) return null;
  const oa = sub(a, 'oracle');
  const or = asObject(o.oracle, oa);
  const ev = or.evidenceCollected && typeof or.evidenceCollected === 'object' ? (or.evidenceCollected as Rec) : {};
  const sm = or.summary && typeof or.summary === 'object' ? (or.summary as Rec) : {};
  return {
    lastCheckedAt: nstr(or, 'lastCheckedAt', oa),
    confidenceLevel: nstr(or, 'confidenceLevel', oa),
    postsCount: nnum(ev, 'postsCount', sub(oa, 'evidenceCollected'), 0),
    relevantPosts: stringList(ev.relevantPosts),
    sourcesMonitored: stringList(or.sourcesMonitored),
    decision: nstr(sm, 'decision', sub(oa, 'summary')),
    shortSummary: nstr(sm, 'shortSummary', sub(oa, 'summary')),
    expandedSummary: nstr(sm, 'expandedSummary', sub(oa, 'summary')),
  };
}

export type OracleQuoteStatus = 'pending' | 'processing' | 'completed' | 'failed';
const QUOTE_STATUSES: readonly OracleQuoteStatus[] = ['pending', 'processing', 'completed', 'failed'];

export interface OracleQuote {
  id: string | number;
  status: OracleQuoteStatus;
  /** 0..1 as the venue sends it (a probability for models, not money) */
  probability: number | null;
  confidence: 'low' | 'medium' | 'high' | null;
  reasoning: string | null;
  referenceMarketsCount: number;
  createdAt: string;
  completedAt: string | null;
}

function idOf(o: Rec, a: At): string | number {
  return typeof o.id === 'number' ? int(o, 'id', a) : str(o, 'id', a);
}

export function parseOracleQuote(v: unknown, a: At): OracleQuote {
  const o = asObject(v, a);
  return {
    id: idOf(o, a),
    status: oneOf(o, 'status', a, QUOTE_STATUSES),
    probability: nnum(o, 'probability', a, 0, 1),
    confidence: nOneOf(o, 'confidence', a, ['low', 'medium', 'high'] as const),
    reasoning: nstr(o, 'reasoning', a),
    referenceMarketsCount: o.referenceMarketsCount === undefined ? 0 : int(o, 'referenceMarketsCount', a),
    createdAt: str(o, 'createdAt', a),
    completedAt: nstr(o, 'completedAt', a),
  };
}

export async function listOracleQuotes(ctx: ClientContext, marketId: string): Promise<OracleQuote[]> {
  const ep = 'GET /markets/:id/oracle/quotes';
  const res = await ctx.t.request({ method: 'GET', path: `/markets/${seg(checkMarketRef(marketId))}/oracle/quotes`, endpoint: ep });
  const a = at(ep);
  return arr(asObject(res.json, a), 'quotes', a, parseOracleQuote);
}

export async function latestOracleQuote(ctx: ClientContext, marketId: string): Promise<OracleQuote | null> {
  const ep = 'GET /markets/:id/oracle/quotes/latest';
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/markets/${seg(checkMarketRef(marketId))}/oracle/quotes/latest`, endpoint: ep });
  return o.quote === null || o.quote === undefined ? null : parseOracleQuote(o.quote, sub(a, 'quote'));
}

/** POST /markets/:id/oracle/quotes `{}` → 202 `{id, status, createdAt}`. Not idempotent (each call asks anew). */
export async function requestOracleQuote(ctx: ClientContext, marketId: string): Promise<{ id: string | number; status: OracleQuoteStatus; createdAt: string }> {
  const ep = 'POST /markets/:id/oracle/quotes';
  const { o, a } = await requestObject(ctx, { method: 'POST', path: `/markets/${seg(checkMarketRef(marketId))}/oracle/quotes`, endpoint: ep, body: {} });
  return { id: idOf(o, a), status: oneOf(o, 'status', a, QUOTE_STATUSES), createdAt: str(o, 'createdAt', a) };
}
