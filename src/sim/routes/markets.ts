/**
 * Market routes: list (filters, sort, cursor), search (q, limit, offset → hasMore) and get.
 * Market figures come from the live book (best bid/ask), the last trade and the trade history.
 */
import type { ExchangeState, RequestContext } from '../context.ts';
import { badRequest, notFound } from '../http-errors.ts';
import { internalsOf } from '../internals.ts';
import { marketJson, type BookTop } from '../market-json.ts';
import type { MarketRecord } from '../records.ts';
import { json, type Reply, type Router } from '../router.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import * as v from '../validate.ts';
import type { Bytes32 } from '../../model/order.ts';

export function bookTop(state: ExchangeState, marketId: Bytes32): BookTop {
  const idx = state.engine.marketIndex(marketId);
  if (idx === undefined) return { bestBid: null, bestAsk: null };
  const b = state.engine.engine.bestBid(idx);
  const a = state.engine.engine.bestAsk(idx);
  return { bestBid: b > 0 ? b : null, bestAsk: a > 0 ? a : null };
}

export function renderMarket(state: ExchangeState, m: MarketRecord, now: number): Record<string, unknown> {
  return marketJson(m, bookTop(state, m.id), internalsOf(state).stats.volume24h(m.id, now), state.chain.chainId);
}

/** The market of a path `:id` (0x id or slug), else 404. */
export function marketParam(ctx: RequestContext, name = 'id'): MarketRecord {
  const id = ctx.params[name] ?? '';
  if (id.length === 0 || id.length > 200) throw badRequest(name, 'expected a market id or slug');
  const m = ctx.state.services.findMarket(id);
  if (!m) throw notFound(`market ${id}`);
  return m;
}

const SORT_BY = ['trending', 'new', 'ending', 'chance', 'volume'] as const;
const STATUSES = ['active', 'pending', 'resolved', 'closed'] as const;
const RESOLUTION = ['none', 'pending', 'resolved'] as const;

function chance(state: ExchangeState, m: MarketRecord): number {
  const t = bookTop(state, m.id);
  if (t.bestBid !== null && t.bestAsk !== null) return (t.bestBid + t.bestAsk) / 2;
  return m.lastPrice ?? t.bestBid ?? t.bestAsk ?? 0;
}

function listMarkets(ctx: RequestContext): Reply {
  const q = ctx.query;
  const sortBy = v.queryEnum(q, 'sortBy', SORT_BY, 'new');
  const sort = v.queryEnum(q, 'sort', ['asc', 'desc'] as const, 'desc');
  const limit = v.queryInt(q, 'limit', 1, 50, 50);
  const offset = decodeCursor(q.get('cursor')) ?? 0;
  // free text (search, category) matches case-insensitively; the creator is an address, normalised by the validator
  const search = v.queryString(q, 'search', 200)?.toLowerCase();
  const statuses = v.queryEnumList(q, 'status', STATUSES);
  const resolution = v.queryEnumList(q, 'resolutionStatus', RESOLUTION);
  const creator = v.queryAddress(q, 'creator');
  const category = v.queryString(q, 'category', 100)?.toLowerCase();
  const visibility = v.queryEnum(q, 'visibility', ['all', 'hidden', 'visible'] as const, 'visible');
  const createdAfterRaw = q.get('createdAfter');
  let createdAfter: number | undefined;
  if (createdAfterRaw !== null && createdAfterRaw !== '') {
    if (/^\d{1,16}(\.\d+)?$/.test(createdAfterRaw)) {
      const n = Number(createdAfterRaw);
      createdAfter = n < 1e11 ? n * 1000 : n; // unix seconds (or ms, told apart by size)
    } else if (/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(createdAfterRaw) && Number.isFinite(Date.parse(createdAfterRaw))) {
      createdAfter = Date.parse(createdAfterRaw); // an ISO date, as the venue's SDK sends it
    } else throw badRequest('createdAfter', 'expected unix seconds or an ISO 8601 date');
  }
  const now = ctx.now;
  const stats = internalsOf(ctx.state).stats;
  let list = [...ctx.state.stores.markets.values()].filter(
    (m) =>
      (!statuses || statuses.includes(m.status)) &&
      (!resolution || resolution.includes(m.resolutionStatus)) &&
      (!creator || m.creator === creator) &&
      (!category || m.category.toLowerCase() === category) &&
      (visibility === 'all' || (visibility === 'visible') === (m.visibility === 'public')) &&
      (createdAfter === undefined || m.createdAt > createdAfter) &&
      (!search || m.question.toLowerCase().includes(search) || m.slug.includes(search)),
  );
  const key = (m: MarketRecord): number | bigint => {
    switch (sortBy) {
      case 'new':
        return m.createdAt;
      case 'ending':
        return m.deadline;
      case 'volume':
        return m.volume;
      case 'trending':
        return stats.volume24h(m.id, now);
      case 'chance':
        return chance(ctx.state, m);
    }
  };
  const keyed = list.map((m) => ({ m, k: key(m) }));
  keyed.sort((a, b) => {
    const c = a.k < b.k ? -1 : a.k > b.k ? 1 : a.m.id < b.m.id ? -1 : 1; // id breaks ties: stable pages
    return sort === 'asc' ? c : -c;
  });
  list = keyed.map((x) => x.m);
  const page = list.slice(offset, offset + limit);
  const cursor = offset + limit < list.length ? encodeCursor(offset + limit) : null;
  return json(200, { markets: page.map((m) => renderMarket(ctx.state, m, now)), cursor }, cursor ? { 'X-Next-Cursor': cursor } : undefined);
}

function searchMarkets(ctx: RequestContext): Reply {
  const q = ctx.query;
  const text = q.get('q');
  if (text === null || text.trim() === '') throw badRequest('q', 'expected a non-empty search query');
  if (text.length > 200) throw badRequest('q', 'expected at most 200 characters');
  const limit = v.queryInt(q, 'limit', 1, 50, 20);
  const offset = v.queryInt(q, 'offset', 0, 1_000_000, 0);
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = [...ctx.state.stores.markets.values()]
    .filter((m) => m.visibility === 'public')
    .filter((m) => {
      const hay = `${m.question} ${m.shortQuestion} ${m.slug} ${m.category}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    })
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  const page = hits.slice(offset, offset + limit);
  return json(200, { markets: page.map((m) => renderMarket(ctx.state, m, ctx.now)), hasMore: offset + limit < hits.length });
}

function getMarket(ctx: RequestContext): Reply {
  return json(200, { market: renderMarket(ctx.state, marketParam(ctx), ctx.now) });
}

/** Local-exchange only (not a venue path): resolve a market, `{outcome: "yes"|"no"}` or `{payoutYes: 0..1000000}`. */
function resolve(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  const b = v.object(ctx.body ?? {}, 'body');
  let payoutYes: number;
  if (b.payoutYes !== undefined) payoutYes = v.int(b.payoutYes, 'payoutYes', 0, 1_000_000);
  else payoutYes = v.oneOf(b.outcome, 'outcome', ['yes', 'no'] as const) === 'yes' ? 1_000_000 : 0;
  const evidence = v.optionalString(b.evidence, 'evidence', { max: 1000 }) ?? null;
  const r = ctx.state.services.resolveMarket(m.id, payoutYes, ctx.now, evidence);
  return json(200, { market: renderMarket(ctx.state, r, ctx.now) });
}

export function register(router: Router): void {
  router.add({ method: 'POST', path: '/markets/:id/resolve', auth: true, permission: 'admin', handler: resolve });
  router.add({ method: 'GET', path: '/markets', auth: false, handler: listMarkets });
  router.add({ method: 'GET', path: '/markets/search', auth: false, handler: searchMarkets });
  router.add({ method: 'GET', path: '/markets/:id', auth: false, handler: getMarket });
}
