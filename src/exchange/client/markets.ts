/** Markets: list (filters, cursor), search (q, offset + hasMore), get (by hash or slug). */
import { BadInputError } from '../../model/errors.ts';
import type { Address } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { arr, bool, pageCursor, sub } from './fields.ts';
import { checkChoice, checkChoices, checkMarketRef, checkOptAddress, checkOptChoice, checkOptInt } from './inputs.ts';
import { iterateByCursor, paginateOffset } from './paginate.ts';
import { MARKET_STATUSES, parseMarket, type MarketInfo, type MarketStatus, type ResolutionStatus } from './parse-market.ts';
import { seg } from './transport.ts';

export type MarketSortBy = 'trending' | 'new' | 'ending' | 'chance' | 'volume';

export interface ListMarketsParams {
  sortBy?: MarketSortBy;
  sort?: 'asc' | 'desc';
  /** 1–50 */
  limit?: number;
  cursor?: string;
  search?: string;
  status?: MarketStatus[];
  resolutionStatus?: ResolutionStatus[];
  creator?: Address;
  category?: string;
  visibility?: 'all' | 'hidden' | 'visible';
  /** unix seconds */
  createdAfter?: number;
}

export interface MarketPage {
  markets: MarketInfo[];
  cursor: string | null;
}

function listQuery(p: ListMarketsParams): Record<string, string | number | readonly string[] | undefined> {
  return {
    sortBy: checkOptChoice(p.sortBy, 'sortBy', ['trending', 'new', 'ending', 'chance', 'volume'] as const),
    sort: checkOptChoice(p.sort, 'sort', ['asc', 'desc'] as const),
    limit: checkOptInt(p.limit, 'limit', 1, 50),
    cursor: p.cursor,
    search: p.search,
    status: checkChoices(p.status, 'status', MARKET_STATUSES),
    resolutionStatus: checkChoices(p.resolutionStatus, 'resolutionStatus', ['none', 'pending', 'resolved'] as const),
    creator: checkOptAddress(p.creator, 'creator'),
    category: p.category,
    visibility: p.visibility === undefined ? undefined : checkChoice(p.visibility, 'visibility', ['all', 'hidden', 'visible'] as const),
    createdAfter: checkOptInt(p.createdAfter, 'createdAfter', 0, Number.MAX_SAFE_INTEGER),
  };
}

export async function listMarkets(ctx: ClientContext, params: ListMarketsParams = {}): Promise<MarketPage> {
  const ep = 'GET /markets';
  const { o, a, res } = await requestObject(ctx, { method: 'GET', path: '/markets', endpoint: ep, query: listQuery(params) });
  return { markets: arr(o, 'markets', a, (v, aa) => parseMarket(v, aa, ctx.priceUnits)), cursor: pageCursor(o, a, res.headers) };
}

export function iterateMarkets(ctx: ClientContext, params: Omit<ListMarketsParams, 'cursor'> = {}): AsyncGenerator<MarketInfo> {
  return iterateByCursor((q) => listMarkets(ctx, q), params, 'markets');
}

export interface SearchMarketsParams {
  q: string;
  limit?: number;
  offset?: number;
}

export async function searchMarkets(ctx: ClientContext, params: SearchMarketsParams): Promise<{ markets: MarketInfo[]; hasMore: boolean }> {
  const ep = 'GET /markets/search';
  if (typeof params.q !== 'string' || params.q.trim() === '') throw new BadInputError('q', 'a non-empty search text', params.q);
  const { o, a } = await requestObject(ctx, {
    method: 'GET',
    path: '/markets/search',
    endpoint: ep,
    query: { q: params.q, limit: checkOptInt(params.limit, 'limit', 1, 100), offset: checkOptInt(params.offset, 'offset', 0, Number.MAX_SAFE_INTEGER) },
  });
  return { markets: arr(o, 'markets', a, (v, aa) => parseMarket(v, aa, ctx.priceUnits)), hasMore: bool(o, 'hasMore', a) };
}

export function iterateSearch(ctx: ClientContext, params: Omit<SearchMarketsParams, 'offset'>): AsyncGenerator<MarketInfo> {
  return paginateOffset(async (offset) => {
    const p = await searchMarkets(ctx, { ...params, offset });
    return { items: p.markets, hasMore: p.hasMore };
  });
}

/** GET /markets/:id → `{market}` (a bare Market is accepted too). */
export async function getMarket(ctx: ClientContext, id: string): Promise<MarketInfo> {
  const ep = 'GET /markets/:id';
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/markets/${seg(checkMarketRef(id, 'id'))}`, endpoint: ep });
  return o.market !== undefined ? parseMarket(o.market, sub(a, 'market'), ctx.priceUnits) : parseMarket(o, a, ctx.priceUnits);
}
