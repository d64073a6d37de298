/**
 * Order routes: create, list, recent, get, cancel, cancel-replace, bulk (mixed), bulk create and
 * bulk cancel.
 *
 * Bulk semantics (the venue's are undocumented; docs/venue.md#endpoints):
 * - at most `batchLimit` items (default 50; more → 400 BATCH_TOO_LARGE), at least one;
 * - every item is checked first (shape, signature, wallet, market, nonce, also against earlier items
 *   of the same call); if any fails nothing is applied and the answer is the first failure's status
 *   with `{message, code, errors:[{index, error, operation}]}`;
 * - every create is also checked against the engine's refusals (balance — counting what the call's
 *   cancels free and what its earlier creates reserve —, market state, fields); a refusal refuses
 *   the whole call the same way: all or nothing;
 * - then cancels run before creates (freeing balance first), in item order. (Should the engine still
 *   refuse an item while applying — a bug, the checks above mirror its rules — it is listed in
 *   `errors` of the 201 answer; fills already made cannot be rolled back.)
 */
import { checksumOf } from '../checksum.ts';
import type { RequestContext } from '../context.ts';
import { HttpError, badRequest, notFound } from '../http-errors.ts';
import { internalsOf } from '../internals.ts';
import { orderJson, orderWithAvgJson } from '../order-json.ts';
import { ItemError, type CancelOutcome, type PreparedOrder } from '../order-service.ts';
import type { StoredOrder } from '../records.ts';
import { json, type Reply, type Router } from '../router.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import * as v from '../validate.ts';
import { walletOf } from '../wire-ids.ts';
import { bytes32Of } from '../../model/ids.ts';
import { ORDER_STATUSES, type OrderStatus } from '../../model/order.ts';

function caller(ctx: RequestContext) {
  if (!ctx.key) throw new HttpError(401, 'UNAUTHORIZED', 'missing or unknown API key');
  return ctx.key;
}

function cancelItem(r: CancelOutcome) {
  return { type: 'cancel' as const, success: true as const, trader: checksumOf(r.trader), nonce: r.nonce, alreadyCancelled: r.alreadyCancelled };
}

function createItem(o: StoredOrder) {
  return { type: 'create' as const, success: true as const, order: orderJson(o) };
}

function checkBatchSize(items: unknown[], field: string, limit: number): void {
  if (items.length > limit) throw new HttpError(400, 'BATCH_TOO_LARGE', `${field}: at most ${limit} items per call`, { field });
  if (items.length < 1) throw badRequest(field, 'expected at least 1 item');
}

interface BatchError {
  index: number;
  error: string;
  operation: 'create' | 'cancel';
  code: string;
  status: number;
}

function errorOf(e: unknown, index: number, operation: 'create' | 'cancel'): BatchError {
  if (e instanceof HttpError) return { index, error: e.message, operation, code: e.code, status: e.status };
  throw e;
}

/** Refuse the whole call with the first error's status, listing every failed item. */
function refuse(errors: BatchError[]): never {
  const first = errors[0]!;
  throw new HttpError(first.status, first.code as HttpError['code'], `${errors.length} item(s) refused; nothing was applied: ${first.error}`, {
    extra: { errors: errors.map(({ index, error, operation, code }) => ({ index, error, operation, code })) },
  });
}

type Op = { type: 'create'; index: number; prepared: PreparedOrder } | { type: 'cancel'; index: number; order: StoredOrder };

/** Prepare mixed operations; throws with every item error when any fails. */
function prepareOps(ctx: RequestContext, items: { type: 'create' | 'cancel'; raw: unknown; field: string; index: number }[]): Op[] {
  const { orders } = internalsOf(ctx.state);
  const key = caller(ctx);
  const errors: BatchError[] = [];
  const ops: Op[] = [];
  const nonces = new Set<string>();
  for (const it of items) {
    try {
      if (it.type === 'create') ops.push({ type: 'create', index: it.index, prepared: orders.prepare(it.raw, it.field, key, ctx.now, nonces) });
      else ops.push({ type: 'cancel', index: it.index, order: orders.prepareCancel(it.raw, it.field, key, ctx.now) });
    } catch (e) {
      errors.push(errorOf(e, it.index, it.type));
    }
  }
  if (errors.length) refuse(errors);
  // all or nothing: every create must be one the engine accepts once the cancels and the earlier
  // creates of the call are applied (balance, market state, fields), before anything is applied
  const creates = ops.filter((o): o is Extract<Op, { type: 'create' }> => o.type === 'create');
  if (creates.length) {
    const releases = ops.flatMap((o) => (o.type === 'cancel' ? [o.order] : []));
    try {
      orders.precheckAll(
        creates.map((c) => c.prepared),
        ctx.now,
        releases,
      );
    } catch (e) {
      if (e instanceof ItemError) refuse([errorOf(e.error, creates[e.index]!.index, 'create')]);
      throw e;
    }
  }
  return ops;
}

/** Apply prepared operations, cancels first; engine refusals become `errors` entries. */
function applyOps(ctx: RequestContext, ops: Op[]): { results: (ReturnType<typeof cancelItem> | ReturnType<typeof createItem>)[]; errors: BatchError[] } {
  const { orders } = internalsOf(ctx.state);
  const results: (ReturnType<typeof cancelItem> | ReturnType<typeof createItem>)[] = [];
  const errors: BatchError[] = [];
  for (const op of ops) {
    if (op.type !== 'cancel') continue;
    results.push(cancelItem(orders.commitCancel(op.order, ctx.now)));
  }
  for (const op of ops) {
    if (op.type !== 'create') continue;
    try {
      results.push(createItem(orders.commit(op.prepared, ctx.now)));
    } catch (e) {
      errors.push(errorOf(e, op.index, 'create'));
    }
  }
  return { results, errors };
}

function publicErrors(errors: BatchError[]) {
  return errors.map(({ index, error, operation, code }) => ({ index, error, operation, code }));
}

function createOrder(ctx: RequestContext): Reply {
  const o = internalsOf(ctx.state).orders.place(ctx.body, '', caller(ctx), ctx.now);
  return json(201, { success: true, order: orderJson(o) });
}

function cancelOrder(ctx: RequestContext): Reply {
  const r = internalsOf(ctx.state).orders.cancel(ctx.body, '', caller(ctx), ctx.now);
  return json(r.alreadyCancelled ? 200 : 201, { success: true, alreadyCancelled: r.alreadyCancelled });
}

/** Re-throw a leg's refusal saying which leg failed and that nothing was applied. */
function legError(e: unknown, leg: 'cancel' | 'create'): never {
  if (!(e instanceof HttpError)) throw e;
  throw new HttpError(e.status, e.code, `${leg} leg refused; nothing was applied (the old order is untouched): ${e.message}`, {
    ...(e.field ? { field: e.field } : {}),
    extra: { ...(e.extra ?? {}), failedLeg: leg, applied: false, [leg]: { success: false, error: e.message, code: e.code } },
    ...(e.headers ? { headers: e.headers } : {}),
  });
}

/**
 * Cancel-replace, all or nothing: both legs are checked first — the cancel's signature and order,
 * the create's shape, signature, nonce and every engine refusal (balance counting what the cancel
 * frees, market state, fields) — and only then is the old order cancelled and the new one placed.
 * A refused leg answers its status and code with `failedLeg`, `applied: false`, and the old order
 * stays as it was.
 */
function cancelReplace(ctx: RequestContext): Reply {
  const b = v.object(ctx.body, 'body');
  const { orders } = internalsOf(ctx.state);
  const key = caller(ctx);
  let target: StoredOrder;
  let prepared: PreparedOrder;
  try {
    target = orders.prepareCancel(b.cancel, 'cancel', key, ctx.now);
  } catch (e) {
    legError(e, 'cancel');
  }
  try {
    prepared = orders.prepare(b.create, 'create', key, ctx.now);
    orders.precheckAll([prepared], ctx.now, [target]);
  } catch (e) {
    legError(e instanceof ItemError ? e.error : e, 'create');
  }
  const c = orders.commitCancel(target, ctx.now);
  const o = orders.commit(prepared, ctx.now);
  return json(201, {
    cancel: { success: true, trader: checksumOf(c.trader), nonce: c.nonce, alreadyCancelled: c.alreadyCancelled },
    create: { success: true, order: orderJson(o) },
  });
}

function bulk(ctx: RequestContext): Reply {
  const b = v.object(ctx.body, 'body');
  const list = v.array(b.operations, 'operations');
  checkBatchSize(list, 'operations', ctx.state.settings.batchLimit);
  const items = list.map((raw, index) => {
    const op = v.object(raw, `operations[${index}]`);
    const type = v.oneOf(op.type, `operations[${index}].type`, ['create', 'cancel'] as const);
    return type === 'create'
      ? { type, raw: op.order, field: `operations[${index}].order`, index }
      : { type, raw: op.cancel, field: `operations[${index}].cancel`, index };
  });
  const { results, errors } = applyOps(ctx, prepareOps(ctx, items));
  return json(201, errors.length ? { results, errors: publicErrors(errors) } : { results });
}

/** The ops of a bulk call's list `key` (`orders` to create, `cancels` to cancel), checked and prepared. */
function bulkOps(ctx: RequestContext, key: 'orders' | 'cancels', type: 'create' | 'cancel') {
  const list = v.array(v.object(ctx.body, 'body')[key], key);
  checkBatchSize(list, key, ctx.state.settings.batchLimit);
  return prepareOps(
    ctx,
    list.map((raw, index) => ({ type, raw, field: `${key}[${index}]`, index })),
  );
}

function bulkCreate(ctx: RequestContext): Reply {
  const { results, errors } = applyOps(ctx, bulkOps(ctx, 'orders', 'create'));
  return json(201, errors.length ? { success: true, results, errors: publicErrors(errors) } : { success: true, results });
}

function bulkCancel(ctx: RequestContext): Reply {
  const { results } = applyOps(ctx, bulkOps(ctx, 'cancels', 'cancel'));
  return json(200, { success: true, results });
}

/** Orders newest first, filtered; cursor = the last returned id (next page has smaller ids). */
function listOrders(ctx: RequestContext): Reply {
  const q = ctx.query;
  const trader = v.queryAddress(q, 'trader');
  const marketId = v.queryBytes32(q, 'marketId');
  const statuses = v.queryEnumList(q, 'status', ORDER_STATUSES);
  const search = v.queryString(q, 'search', 200)?.toLowerCase(); // free text, matched case-insensitively
  const limit = v.queryInt(q, 'limit', 1, 100, 50);
  const after = decodeCursor(q.get('cursor'));
  const { orders } = internalsOf(ctx.state);
  // without a trader or market filter, list the caller's own orders
  const who = trader ?? (marketId ? undefined : walletOf(caller(ctx)));
  const source: readonly StoredOrder[] = who ? orders.ordersOf(who) : ctx.state.stores.orders;
  const out: StoredOrder[] = [];
  let more = false;
  for (let i = source.length - 1; i >= 0; i--) {
    const o = source[i]!;
    if (after !== undefined && o.id >= after) continue;
    if (marketId && o.marketId !== marketId) continue;
    if (statuses && !statuses.includes(o.status)) continue;
    if (search && !matchesSearch(ctx, o, search)) continue;
    if (out.length === limit) {
      more = true;
      break;
    }
    out.push(o);
  }
  const markets: Record<string, { shortQuestion: string; slug: string | null }> = {};
  for (const o of out) {
    const m = ctx.state.services.market(o.marketId);
    if (m) markets[m.id] = { shortQuestion: m.shortQuestion, slug: m.slug };
  }
  const cursor = more ? encodeCursor(out[out.length - 1]!.id) : null;
  return json(200, { orders: out.map(orderWithAvgJson), markets, cursor }, cursor ? { 'X-Next-Cursor': cursor } : undefined);
}

function matchesSearch(ctx: RequestContext, o: StoredOrder, needle: string): boolean {
  // ids are lower-case inside; the needle is lower-cased text
  if (o.nonce.includes(needle) || o.hash.includes(needle)) return true;
  const m = ctx.state.services.market(o.marketId);
  return !!m && (m.question.toLowerCase().includes(needle) || m.slug.includes(needle));
}

function recentOrders(ctx: RequestContext): Reply {
  const q = ctx.query;
  const trader = v.queryAddress(q, 'trader');
  const marketId = v.queryBytes32(q, 'marketId');
  const status = v.queryEnum(q, 'status', ['open', 'filled', 'cancelled', 'expired'] as const satisfies readonly OrderStatus[]);
  const limit = v.queryInt(q, 'limit', 1, 500, 200);
  const windowSeconds = v.queryInt(q, 'windowSeconds', 1, 600, 120);
  const cutoff = ctx.now - windowSeconds * 1000;
  const all = ctx.state.stores.orders;
  const out: StoredOrder[] = [];
  for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
    const o = all[i]!;
    if (o.insertedAt < cutoff) break; // orders are stored in time order
    if (trader && o.trader !== trader) continue;
    if (marketId && o.marketId !== marketId) continue;
    if (status && o.status !== status) continue;
    out.push(o);
  }
  return json(200, { orders: out.map(orderJson) });
}

function getOrder(ctx: RequestContext): Reply {
  const id = ctx.params.id ?? '';
  const hex = bytes32Of(id);
  if (hex === null && !/^\d{1,15}$/.test(id)) throw badRequest('id', 'expected a numeric order id, a 0x order hash or a 0x nonce');
  const orders = internalsOf(ctx.state).orders;
  // by numeric id, by order hash, or by nonce (the caller's own orders: a nonce is unique per trader)
  const o = orders.find(id) ?? (hex !== null && ctx.key ? orders.nonceOrder(walletOf(ctx.key), hex) : undefined);
  if (!o) throw notFound(`order ${id}`);
  return json(200, orderWithAvgJson(o));
}

export function register(router: Router): void {
  router.add({ method: 'POST', path: '/orders', auth: true, permission: 'trade', handler: createOrder });
  router.add({ method: 'GET', path: '/orders', auth: true, handler: listOrders });
  router.add({ method: 'GET', path: '/orders/recent', auth: true, handler: recentOrders });
  router.add({ method: 'GET', path: '/orders/:id', auth: true, handler: getOrder });
  router.add({ method: 'POST', path: '/orders/cancel', auth: true, permission: 'trade', handler: cancelOrder });
  router.add({ method: 'POST', path: '/orders/cancels', auth: true, permission: 'trade', handler: cancelOrder }); // the old spec's path
  router.add({ method: 'POST', path: '/orders/cancel-replace', auth: true, permission: 'trade', handler: cancelReplace });
  router.add({ method: 'POST', path: '/orders/bulk', auth: true, permission: 'trade', handler: bulk });
  router.add({ method: 'POST', path: '/orders/bulk/create', auth: true, permission: 'trade', handler: bulkCreate });
  router.add({ method: 'POST', path: '/orders/bulk/cancel', auth: true, permission: 'trade', handler: bulkCancel });
}
