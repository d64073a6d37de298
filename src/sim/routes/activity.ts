/**
 * Activity feeds: GET /activity and GET /markets/:id/activity, newest first, with `types`,
 * `startTime`, `endTime`, `limit` and an opaque cursor (the last entry's sequence number).
 */
import type { RequestContext } from '../context.ts';
import { badRequest } from '../http-errors.ts';
import type { ActivityEntry, ActivityType } from '../records.ts';
import { json, type Reply, type Router } from '../router.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import * as v from '../validate.ts';
import type { Bytes32 } from '../../model/order.ts';
import { marketParam } from './markets.ts';

const TYPES: readonly ActivityType[] = ['trade', 'oracle_update', 'resolution', 'market_created'];

function timeParam(ctx: RequestContext, name: string): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > 64) throw badRequest(name, 'expected a date');
  return v.queryTime(ctx.query, name);
}

/** Index of the last entry with seq < before (entries are in seq order). */
function startIndex(list: readonly ActivityEntry[], before: number | undefined): number {
  if (before === undefined) return list.length - 1;
  let lo = 0;
  let hi = list.length; // first index with seq >= before
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.seq < before) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export function activityJson(e: ActivityEntry): Record<string, unknown> {
  return { type: e.type, marketId: e.marketId, timestamp: new Date(e.ts).toISOString(), data: e.data };
}

function page(ctx: RequestContext, marketId: Bytes32 | undefined): Reply {
  const q = ctx.query;
  const limit = v.queryInt(q, 'limit', 1, 100, 50);
  const types = v.queryEnumList(q, 'types', TYPES);
  const start = timeParam(ctx, 'startTime');
  const end = timeParam(ctx, 'endTime');
  const before = decodeCursor(q.get('cursor'));
  const list = ctx.state.stores.activity;
  const out: ActivityEntry[] = [];
  let more = false;
  for (let i = startIndex(list, before); i >= 0; i--) {
    const e = list[i]!;
    if (start !== undefined && e.ts < start) break; // older entries only get older
    if (end !== undefined && e.ts > end) continue;
    if (marketId && e.marketId !== marketId) continue;
    if (types && !types.includes(e.type)) continue;
    if (out.length === limit) {
      more = true;
      break;
    }
    out.push(e);
  }
  const cursor = more ? encodeCursor(out[out.length - 1]!.seq) : null;
  const body: Record<string, unknown> = { activity: out.map(activityJson), pagination: { cursor, hasMore: more } };
  if (marketId) body.marketId = marketId;
  return json(200, body, cursor ? { 'X-Next-Cursor': cursor } : undefined);
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/activity', auth: false, handler: (ctx) => page(ctx, undefined) });
  router.add({ method: 'GET', path: '/markets/:id/activity', auth: false, handler: (ctx) => page(ctx, marketParam(ctx).id) });
}
