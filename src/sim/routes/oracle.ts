/**
 * Oracle routes: summary, quotes list, quote request (202; one per market per 5 minutes, else 429
 * with `retryAfter`), latest quote.
 */
import type { ExchangeState, RequestContext } from '../context.ts';
import { HttpError, notFound } from '../http-errors.ts';
import { QUOTE_INTERVAL_MS, marketOracle, oracleData, quoteJson, settleQuotes, summaryJson, type OracleQuote } from '../oracle.ts';
import type { Bytes32 } from '../../model/order.ts';
import { ONE } from '../../model/units.ts';
import { json, type Reply, type Router } from '../router.ts';
import { bookTop, marketParam } from './markets.ts';

/** The YES chance (0–1) the book implies now, else the last trade, else null. */
export function bookChance(state: ExchangeState, marketId: Bytes32): number | null {
  const t = bookTop(state, marketId);
  if (t.bestBid !== null && t.bestAsk !== null) return (t.bestBid + t.bestAsk) / 2 / ONE;
  const m = state.services.market(marketId);
  return m?.lastPrice != null ? m.lastPrice / ONE : null;
}

function summary(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  return json(200, { oracle: summaryJson(marketOracle(ctx.state, m.id).summary) });
}

function settled(ctx: RequestContext) {
  const m = marketParam(ctx);
  const o = marketOracle(ctx.state, m.id);
  settleQuotes(o, ctx.now, () => bookChance(ctx.state, m.id));
  return o;
}

function listQuotes(ctx: RequestContext): Reply {
  const o = settled(ctx);
  return json(200, { quotes: [...o.quotes].reverse().map(quoteJson) });
}

function latestQuote(ctx: RequestContext): Reply {
  const o = settled(ctx);
  const q = o.quotes[o.quotes.length - 1];
  if (!q) throw notFound('oracle quote');
  return json(200, { quote: quoteJson(q) });
}

function requestQuote(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  const o = marketOracle(ctx.state, m.id);
  if (o.lastRequestAt !== null && ctx.now - o.lastRequestAt < QUOTE_INTERVAL_MS) {
    const retryAfter = Math.ceil((QUOTE_INTERVAL_MS - (ctx.now - o.lastRequestAt)) / 1000);
    throw new HttpError(429, 'RATE_LIMITED', 'one oracle quote per market every 5 minutes', {
      extra: { retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  const d = oracleData(ctx.state);
  const q: OracleQuote = {
    id: d.nextQuoteId++,
    status: 'pending',
    probability: null,
    confidence: null,
    reasoning: null,
    referenceMarketsCount: 0,
    createdAt: ctx.now,
    completedAt: null,
  };
  o.quotes.push(q);
  if (o.quotes.length > 100) o.quotes.splice(0, o.quotes.length - 100);
  o.lastRequestAt = ctx.now;
  return json(202, { id: q.id, status: q.status, createdAt: new Date(q.createdAt).toISOString() });
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/markets/:id/oracle', auth: false, handler: summary });
  router.add({ method: 'GET', path: '/markets/:id/oracle/quotes', auth: false, handler: listQuotes });
  router.add({ method: 'GET', path: '/markets/:id/oracle/quotes/latest', auth: false, handler: latestQuote });
  router.add({ method: 'POST', path: '/markets/:id/oracle/quotes', auth: false, optionalAuth: true, handler: requestQuote });
}
