/**
 * Order writes with already-signed bodies (signing is src/exchange/signing; this module never signs).
 *
 * Idempotency: a create carries its own signed nonce, so resending the same bytes cannot place a second order.
 * Creates, cancel-replace and bulk calls are therefore retried (5xx, network, timeout, 429) with the SAME body;
 * if a retry meets 409 duplicate-nonce, an earlier attempt already placed the order: the call answers
 * `{duplicate: true}` — not an error, and the caller must not count it as a new order (it reconciles instead).
 * `alreadySent: true` extends this to the first attempt, for callers resending a create from an earlier call.
 * Cancels are idempotent by nature (200 `alreadyCancelled`).
 */
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Address, Bytes32, CancelBody, CreateOrderBody, VenueOrder } from '../../model/order.ts';
import { classify } from './classify.ts';
import { requestObject, type ClientContext } from './context.ts';
import { VenueError } from './errors.ts';
import { address, arr, asObject, at, bool, bytes32, oneOf, sub, type At } from './fields.ts';
import { parseOrder } from './parse-order.ts';

/** Orders per bulk call (context-skills: max 50 per batch; the spec states none). */
export const BATCH_LIMIT = 50;

export interface CreateResult {
  nonce: Bytes32;
  /** the venue's order; null when the answer was a duplicate (already placed by an earlier attempt) */
  order: VenueOrder | null;
  duplicate: boolean;
}

export interface CancelResult {
  trader: Address | null;
  nonce: Bytes32;
  alreadyCancelled: boolean;
}

export interface WriteOptions {
  /** this exact body may have been sent before (by an earlier call): a 409 duplicate means "already placed" */
  alreadySent?: boolean;
}

const SIG = /^0x[0-9a-fA-F]{130}$/;

function checkSigned(body: unknown, field: string): { nonce: Bytes32 } {
  if (body === null || typeof body !== 'object') throw new BadInputError(field, 'a signed order/cancel body', body);
  const b = body as { nonce?: unknown; signature?: unknown };
  const nonce = bytes32Of(b.nonce);
  if (nonce === null) throw new BadInputError(`${field}.nonce`, 'a 0x 32-byte nonce', b.nonce);
  if (typeof b.signature !== 'string' || !SIG.test(b.signature)) throw new BadInputError(`${field}.signature`, 'a 65-byte 0x signature', '(malformed)');
  return { nonce };
}

function checkBatch(list: unknown, field: string): unknown[] {
  if (!Array.isArray(list) || list.length === 0 || list.length > BATCH_LIMIT)
    throw new BadInputError(field, `1 to ${BATCH_LIMIT} items`, Array.isArray(list) ? `${list.length} items` : list);
  return list;
}

function isDuplicate(e: unknown): boolean {
  return e instanceof VenueError && classify(e).reason === 'duplicate';
}

/** POST /orders → 201 `{success, order}`. */
export async function createOrder(ctx: ClientContext, body: CreateOrderBody, opts: WriteOptions = {}): Promise<CreateResult> {
  const ep = 'POST /orders';
  const { nonce } = checkSigned(body, 'body');
  try {
    const res = await ctx.t.request({ method: 'POST', path: '/orders', endpoint: ep, body, idempotent: true, duplicateMeansPlaced: true });
    if (res.duplicate) return { nonce, order: null, duplicate: true };
    const a = at(ep);
    return { nonce, order: parseOrder(asObject(res.json, a).order, sub(a, 'order')), duplicate: false };
  } catch (e) {
    if (opts.alreadySent && isDuplicate(e)) return { nonce, order: null, duplicate: true };
    throw e;
  }
}

function parseCancel(o: Record<string, unknown>, a: At, fallbackNonce: Bytes32): CancelResult {
  return {
    trader: o.trader === undefined ? null : address(o, 'trader', a),
    nonce: o.nonce === undefined ? fallbackNonce : bytes32(o, 'nonce', a),
    alreadyCancelled: o.alreadyCancelled === undefined ? false : bool(o, 'alreadyCancelled', a),
  };
}

/** POST /orders/cancel → 201 cancelled / 200 already cancelled, `{success, alreadyCancelled}`. */
export async function cancelOrder(ctx: ClientContext, cancel: CancelBody): Promise<CancelResult> {
  const ep = 'POST /orders/cancel';
  const { nonce } = checkSigned(cancel, 'cancel');
  const { o, a, res } = await requestObject(ctx, { method: 'POST', path: '/orders/cancel', endpoint: ep, body: cancel, idempotent: true });
  const success = bool(o, 'success', a);
  const r = parseCancel(o, a, nonce);
  // 200 means "was already cancelled" even if the flag is missing
  return { ...r, trader: r.trader ?? cancel.trader, alreadyCancelled: r.alreadyCancelled || (res.status === 200 && success) };
}

/** POST /orders/cancel-replace `{cancel, create}` → 201 `{cancel:{…}, create:{success, order}}`. */
export async function cancelReplace(
  ctx: ClientContext,
  cancel: CancelBody,
  create: CreateOrderBody,
  opts: WriteOptions = {},
): Promise<{ cancel: CancelResult; create: CreateResult }> {
  const ep = 'POST /orders/cancel-replace';
  const c = checkSigned(cancel, 'cancel');
  const n = checkSigned(create, 'create');
  const placed = (): { cancel: CancelResult; create: CreateResult } => ({
    cancel: { trader: cancel.trader, nonce: c.nonce, alreadyCancelled: true },
    create: { nonce: n.nonce, order: null, duplicate: true },
  });
  try {
    const res = await ctx.t.request({
      method: 'POST',
      path: '/orders/cancel-replace',
      endpoint: ep,
      body: { cancel, create },
      idempotent: true,
      duplicateMeansPlaced: true,
    });
    if (res.duplicate) return placed();
    const a = at(ep);
    const o = asObject(res.json, a);
    const ca = sub(a, 'cancel');
    const cr = sub(a, 'create');
    return {
      cancel: parseCancel(asObject(o.cancel, ca), ca, c.nonce),
      create: { nonce: n.nonce, order: parseOrder(asObject(o.create, cr).order, sub(cr, 'order')), duplicate: false },
    };
  } catch (e) {
    if (opts.alreadySent && isDuplicate(e)) return placed();
    throw e;
  }
}

export type BulkItem =
  | { type: 'create'; ok: true; order: VenueOrder }
  | { type: 'cancel'; ok: true; trader: Address | null; nonce: Bytes32; alreadyCancelled: boolean }
  | { type: 'create' | 'cancel'; ok: false; error: string; code?: string };

function parseBulkItem(v: unknown, a: At): BulkItem {
  const o = asObject(v, a);
  const type = oneOf(o, 'type', a, ['create', 'cancel'] as const);
  if (o.success === false)
    return {
      type,
      ok: false,
      error: typeof o.error === 'string' ? o.error : typeof o.message === 'string' ? o.message : 'failed',
      ...(typeof o.code === 'string' ? { code: o.code } : {}),
    };
  if (type === 'create') return { type, ok: true, order: parseOrder(o.order, sub(a, 'order')) };
  return {
    type,
    ok: true,
    trader: o.trader === undefined ? null : address(o, 'trader', a),
    nonce: bytes32(o, 'nonce', a),
    alreadyCancelled: bool(o, 'alreadyCancelled', a),
  };
}

/** An item a 2xx bulk answer lists as refused (`errors: [{index, error, code}]`), index into the request. */
export interface BulkItemError {
  index: number;
  error: string;
  code: string | null;
}

export interface BulkResult {
  results: BulkItem[];
  /** items the venue refused while applying the rest (a 201 with `errors`); absent when none */
  errors?: BulkItemError[];
  /** a retry met 409 duplicate: an earlier attempt went through; reconcile rather than count */
  duplicate: boolean;
}

async function bulkCall(ctx: ClientContext, ep: string, path: string, body: unknown, opts: WriteOptions): Promise<BulkResult> {
  try {
    const res = await ctx.t.request({ method: 'POST', path, endpoint: ep, body, idempotent: true, duplicateMeansPlaced: true });
    if (res.duplicate) return { results: [], duplicate: true };
    const a = at(ep);
    const answer = asObject(res.json, a);
    const errors = bulkErrors(answer.errors);
    return { results: arr(answer, 'results', a, parseBulkItem), duplicate: false, ...(errors ? { errors } : {}) };
  } catch (e) {
    if (opts.alreadySent && isDuplicate(e)) return { results: [], duplicate: true };
    throw e;
  }
}

export type BulkOperation = { type: 'create'; order: CreateOrderBody } | { type: 'cancel'; cancel: CancelBody };

/** POST /orders/bulk: mixed operations in one call (the SDK puts creates first, then cancels). */
export async function bulk(ctx: ClientContext, operations: BulkOperation[], opts: WriteOptions = {}): Promise<BulkResult> {
  checkBatch(operations, 'operations').forEach((op, i) => {
    const o = op as BulkOperation;
    if (o.type === 'create') checkSigned(o.order, `operations[${i}].order`);
    else if (o.type === 'cancel') checkSigned(o.cancel, `operations[${i}].cancel`);
    else throw new BadInputError(`operations[${i}].type`, 'create or cancel', (o as { type?: unknown }).type);
  });
  return bulkCall(ctx, 'POST /orders/bulk', '/orders/bulk', { operations }, opts);
}

/** POST /orders/bulk/create `{orders}` → 201 `{success, results: BulkCreateItem[]}`. */
export async function bulkCreate(ctx: ClientContext, orders: CreateOrderBody[], opts: WriteOptions = {}): Promise<BulkResult> {
  checkBatch(orders, 'orders').forEach((o, i) => checkSigned(o, `orders[${i}]`));
  return bulkCall(ctx, 'POST /orders/bulk/create', '/orders/bulk/create', { orders }, opts);
}

/** POST /orders/bulk/cancel `{cancels}` → 200 `{success, results: BulkCancelItem[]}`. */
export async function bulkCancel(ctx: ClientContext, cancels: CancelBody[]): Promise<BulkResult> {
  checkBatch(cancels, 'cancels').forEach((c, i) => checkSigned(c, `cancels[${i}]`));
  return bulkCall(ctx, 'POST /orders/bulk/cancel', '/orders/bulk/cancel', { cancels }, {});
}

/**
 * `errors` of a 2xx bulk answer, read leniently: an entry without a numeric index says nothing we can
 * attach to an item and is skipped (the item is then reported as not confirmed, as before).
 */
function bulkErrors(v: unknown): BulkItemError[] | null {
  if (!Array.isArray(v)) return null;
  const out: BulkItemError[] = [];
  for (const e of v as unknown[]) {
    if (typeof e !== 'object' || e === null) continue;
    const r = e as Record<string, unknown>;
    if (typeof r.index !== 'number' || !Number.isInteger(r.index)) continue;
    out.push({
      index: r.index,
      error: typeof r.error === 'string' ? r.error : typeof r.message === 'string' ? r.message : 'refused',
      code: typeof r.code === 'string' ? r.code : null,
    });
  }
  return out.length > 0 ? out : null;
}
