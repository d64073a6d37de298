/**
 * Activity feeds: GET /activity and GET /markets/:id/activity → `{marketId?, activity[], pagination:{cursor,
 * hasMore}}`. Items have no published schema, so each is checked to be an object and its common fields
 * (type, marketId, timestamp) are lifted out; the rest is kept as `data` for the activity feed to interpret.
 */
import type { Bytes32 } from '../../model/order.ts';
import type { ClientContext } from './context.ts';
import { arr, asObject, at, bool, cursor, nbytes32, nstr, sub, type At, type Rec } from './fields.ts';
import { checkChoices, checkMarketRef, checkOptInt, checkOptTime } from './inputs.ts';
import { paginateCursor, withCursor } from './paginate.ts';
import { seg } from './transport.ts';

export type ActivityType = 'trade' | 'oracle_update' | 'resolution' | 'market_created';
export const ACTIVITY_TYPES: readonly ActivityType[] = ['trade', 'oracle_update', 'resolution', 'market_created'];

export interface ActivityParams {
  cursor?: string;
  /** 1–100 */
  limit?: number;
  types?: ActivityType[];
  /** any date-parseable string (ISO recommended) */
  startTime?: string;
  endTime?: string;
}

export interface ActivityItem {
  type: string | null;
  marketId: Bytes32 | null;
  timestamp: string | null;
  data: Rec;
}

export interface ActivityPage {
  marketId: Bytes32 | null;
  activity: ActivityItem[];
  cursor: string | null;
  hasMore: boolean;
}

function parseItem(v: unknown, a: At): ActivityItem {
  const o = asObject(v, a);
  const ts = o.timestamp ?? o.createdAt ?? o.blockTime;
  return {
    type: nstr(o, 'type', a),
    marketId: nbytes32(o, 'marketId', a),
    timestamp: ts === undefined || ts === null ? null : String(ts),
    data: o,
  };
}

function parsePage(json: unknown, ep: string): ActivityPage {
  const a = at(ep);
  const o = asObject(json, a);
  const pa = sub(a, 'pagination');
  const p = asObject(o.pagination, pa);
  return {
    marketId: nbytes32(o, 'marketId', a),
    activity: arr(o, 'activity', a, parseItem),
    cursor: cursor(p, pa),
    hasMore: p.hasMore === undefined ? cursor(p, pa) !== null : bool(p, 'hasMore', pa),
  };
}

function query(p: ActivityParams): Record<string, string | number | readonly string[] | undefined> {
  return {
    cursor: p.cursor,
    limit: checkOptInt(p.limit, 'limit', 1, 100),
    types: checkChoices(p.types, 'types', ACTIVITY_TYPES),
    startTime: checkOptTime(p.startTime, 'startTime'),
    endTime: checkOptTime(p.endTime, 'endTime'),
  };
}

export async function listActivity(ctx: ClientContext, params: ActivityParams = {}): Promise<ActivityPage> {
  const ep = 'GET /activity';
  const res = await ctx.t.request({ method: 'GET', path: '/activity', endpoint: ep, query: query(params) });
  return parsePage(res.json, ep);
}

export async function marketActivity(ctx: ClientContext, marketId: string, params: ActivityParams = {}): Promise<ActivityPage> {
  const ep = 'GET /markets/:id/activity';
  const res = await ctx.t.request({ method: 'GET', path: `/markets/${seg(checkMarketRef(marketId))}/activity`, endpoint: ep, query: query(params) });
  return parsePage(res.json, ep);
}

/** Pages until the cursor is null, hasMore is false or a page is empty. */
export function iterateActivity(ctx: ClientContext, params: Omit<ActivityParams, 'cursor'> = {}, marketId?: string): AsyncGenerator<ActivityItem> {
  return paginateCursor(async (c) => {
    const p = c === undefined ? params : withCursor(params, c);
    const page = marketId === undefined ? await listActivity(ctx, p) : await marketActivity(ctx, marketId, p);
    return { items: page.activity, cursor: page.hasMore ? page.cursor : null };
  });
}
