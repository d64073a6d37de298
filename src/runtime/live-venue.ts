/**
 * The live venue: the VenuePort (src/model/venue.ts) over the HTTP client and the signer. Orders are
 * signed here, at the edge, and nowhere else (docs/architecture.md#the-pipeline).
 *
 *   const venue = createLiveVenue({ client, signer });   // client: createVenueClient(…), signer: createSigner(…)
 *   await venue.batch(creates, cancels)  → one outcome per item
 *   await venue.cancelReplace(nonce, create)
 *   await venue.openOrders(marketId?)    → every open order of the trader (all pages)
 *
 * Calls: creates and cancels together go out as mixed `POST /orders/bulk`, creates alone as
 * `/orders/bulk/create`, cancels alone as `/orders/bulk/cancel`, chunked at the batch limit (cancels
 * first, so they free collateral and inventory before the creates that need it).
 *
 * Idempotency: each PlannedOrder's signed body is kept by nonce until its outcome is final, so a retry
 * of the same planned order resends the very same bytes, and a 409 duplicate on a resend is recognised
 * as "already placed" (per item: a bulk whose retry meets a duplicate is re-sent one create at a time
 * with `alreadySent`).
 *
 * Cancels are signed ahead: once a create is placed, its cancel body is signed in idle time
 * (setImmediate), so a later requote signs only its creates on the hot path. A cancel signature
 * depends on the nonce alone, so it is valid whenever it is used. An order that ends without our
 * cancel (filled, expired, gone) never uses its body: the runtime calls `forget(nonce)` then, so the
 * kept bodies track the orders still resting instead of filling up to the cap with dead ones.
 *
 * Order signatures use ECDSA nonces the signer computed ahead, also in idle time (`aheadNonces`), so
 * the hot path does not pay for the point multiplication; when they run out it signs with RFC 6979.
 *
 * Failures become per-item outcomes through the client's classifier: a whole call that failed on a
 * transport/5xx/429 gives every item the same classified outcome (retryable, back-off); a call the
 * venue refused because of some items (`errors[]` with indexes in the error body) gives those items
 * their own classification and marks the others retryable (nothing was applied). A cancel of an order
 * the venue does not know (404) means there is nothing left to cancel: it is answered alreadyCancelled.
 */
import { classify } from '../exchange/client/classify.ts';
import { VenueError } from '../exchange/client/errors.ts';
import {
  BATCH_LIMIT,
  type BulkItem,
  type BulkItemError,
  type BulkOperation,
  type BulkResult,
  type CancelResult,
  type CreateResult,
} from '../exchange/client/orders-write.ts';
import type { ListOrdersParams } from '../exchange/client/orders-read.ts';
import type { Signer } from '../exchange/signing/signer.ts';
import type { Address, Bytes32, CancelBody, LimitOrderBody, VenueOrder } from '../model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../model/venue.ts';
import { failedBatch } from '../orders/order-manager.ts';

/** The part of the venue client the live venue uses (a narrow seam for tests and benchmarks). */
export interface LiveOrdersClient {
  bulk(ops: BulkOperation[], opts?: { alreadySent?: boolean }): Promise<BulkResult>;
  bulkCreate(orders: LimitOrderBody[], opts?: { alreadySent?: boolean }): Promise<BulkResult>;
  bulkCancel(cancels: CancelBody[]): Promise<BulkResult>;
  create(body: LimitOrderBody, opts?: { alreadySent?: boolean }): Promise<CreateResult>;
  cancelReplace(cancel: CancelBody, create: LimitOrderBody, opts?: { alreadySent?: boolean }): Promise<{ cancel: CancelResult; create: CreateResult }>;
  iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder>;
}

export type LiveSigner = Pick<Signer, 'address' | 'signOrder' | 'signCancel'> & Partial<Pick<Signer, 'precomputeNonces' | 'precomputedNonces'>>;

/**
 * Signing work done ahead per idle turn: at most this many cancel bodies and this many ECDSA nonces
 * (about 35–50 µs each with the native add-on). A book event that arrives during the turn waits for
 * it, so the turn is bounded (about 300 µs) however many orders were just placed; four of each keep
 * up with a four-order requote per turn (docs/performance.md#where-the-tail-comes-from).
 */
const IDLE_SIGNATURES_PER_TURN = 4;

/**
 * One cleared Immediate kept for the life of the process. Between the idle turns (setImmediate) there is often
 * no Immediate alive at a full GC: V8 then freed their map and, with it, the optimised code of everything that
 * had handled one (node's setImmediate, processImmediate and initAsyncResource, our idleSoon), rebuilt after each
 * collection. Kept, the map stays (docs/performance/reoptimisation.md). Cleared at once: it never runs and holds no callback.
 */
export const IMMEDIATE_SHAPE: NodeJS.Immediate = setImmediate(() => {});
clearImmediate(IMMEDIATE_SHAPE);
/** nonces used before a refill begins, so a refill's turns each share one inversion over a full turn's nonces */
const AHEAD_REFILL_AFTER = 16;

export interface LiveVenueOptions {
  client: { orders: LiveOrdersClient };
  signer: LiveSigner;
  batchLimit?: number;
  /** unix seconds for order defaults (expiry) when a planned order has none */
  nowSec?: () => number;
  /** signed bodies kept for resends at most (oldest dropped first; default 10 000) */
  maxKeptBodies?: number;
  /**
   * called when a signed request is about to be written, with its market (null: unknown, or several)
   * and whether it carries only cancels (tick-to-wire metric)
   */
  onWrite?: (marketId: Bytes32 | null, cancelOnly: boolean) => void;
  /**
   * ECDSA nonces the signer keeps computed ahead for order signatures, refilled in idle time
   * (docs/performance.md#signing-ahead; default 64, 0: every order signs with RFC 6979)
   */
  aheadNonces?: number;
  /**
   * order calls (bulk, cancel-replace, single creates) in flight at once, at most; the rest wait in
   * order of arrival, unsent, so a start-up burst of thousands of first quotes does not time out in
   * the HTTP client's queue (docs/performance.md#streams-polling-and-the-venues-request-budget; default 32)
   */
  maxInFlight?: number;
}

export interface LiveVenue extends VenuePort {
  /** signed bodies currently kept for resends (memory check in soak tests) */
  readonly keptBodies: number;
  /** order calls waiting for one of the `maxInFlight` slots */
  readonly waitingCalls: number;
  /** order calls sent and not yet answered (at most `maxInFlight`) */
  readonly inFlightCalls: number;
  /** cancel bodies currently signed ahead (memory check in soak tests) */
  readonly presignedCancels: number;
  /**
   * The order ended without a cancel of ours (filled, expired, gone): drop its cancel body signed
   * ahead. Always safe: a cancel sent later anyway is signed on the spot.
   */
  forget(nonce: Bytes32): void;
}

type Op = { type: 'create'; planned: PlannedOrder; body: LimitOrderBody; resend: boolean } | { type: 'cancel'; nonce: Bytes32; body: CancelBody };

/** order calls in flight at once by default (LiveVenueOptions.maxInFlight) */
export const MAX_ORDER_CALLS_IN_FLIGHT = 32;

export function createLiveVenue(opts: LiveVenueOptions): LiveVenue {
  const { client, signer } = opts;
  // the one place the bot's wallet is written for the venue: EIP-55, as signed (docs/venue.md#encodings-and-enums)
  const trader: Address = signer.address;
  const orders = client.orders;
  const batchLimit = opts.batchLimit ?? BATCH_LIMIT;
  const maxKept = opts.maxKeptBodies ?? 10_000;
  /** signed create bodies by lower-case nonce; presence means "sent at least once" */
  const signed = new Map<string, LimitOrderBody>();
  /** cancel bodies signed ahead for orders we placed, by lower-case nonce */
  const cancelBodies = new Map<string, CancelBody>();
  /** orders placed whose cancel is still to sign ahead, by lower-case nonce, oldest first (a backlog after a burst) */
  const toPresign = new Map<string, Bytes32>();

  function presignSoon(nonce: Bytes32): void {
    toPresign.set(nonce, nonce);
    idleSoon();
  }

  const maxInFlight = Math.max(1, opts.maxInFlight ?? MAX_ORDER_CALLS_IN_FLIGHT);
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  /** null: a slot is taken now; else a promise that resolves with the slot handed over */
  function acquire(): Promise<void> | null {
    if (inFlight < maxInFlight) {
      inFlight++;
      return null;
    }
    return new Promise<void>((r) => waiting.push(r));
  }
  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  }
  /** One order call within the in-flight cap; `onSend` runs when it is really sent. */
  async function limited<T>(send: () => Promise<T>, onSend?: () => void): Promise<T> {
    const wait = acquire();
    if (wait !== null) await wait;
    try {
      onSend?.();
      return await send();
    } finally {
      release();
    }
  }

  const aheadTarget = opts.aheadNonces ?? 64;
  // a refill waits until AHEAD_REFILL_AFTER (or half the pool) are used
  const aheadLow = aheadTarget - Math.min(AHEAD_REFILL_AFTER, Math.ceil(aheadTarget / 2));
  let refilling = false;
  /** Top the signer's nonces up in idle turns (see idleTurn). */
  function refillAhead(untilFull = false): void {
    if (refilling || aheadTarget <= 0 || !signer.precomputeNonces) return;
    if (!untilFull && (signer.precomputedNonces ?? 0) > aheadLow) return;
    refilling = true;
    idleSoon();
  }

  let idleQueued = false;
  function idleSoon(): void {
    if (idleQueued) return;
    idleQueued = true;
    setImmediate(idleTurn);
  }
  /**
   * One idle turn of signing ahead: at most IDLE_SIGNATURES_PER_TURN cancel bodies and as many
   * nonces; the rest waits for the next turn, after whatever I/O (book events) arrived meanwhile.
   */
  function idleTurn(): void {
    idleQueued = false;
    let n = 0;
    for (const [k, nonce] of toPresign) {
      if (n++ >= IDLE_SIGNATURES_PER_TURN) break;
      toPresign.delete(k);
      if (!cancelBodies.has(k)) cancelBodies.set(k, signer.signCancel(nonce));
    }
    // bounded like the create bodies: an order we never cancel (filled, expired) must not pin memory
    while (cancelBodies.size > maxKept) cancelBodies.delete(cancelBodies.keys().next().value!);
    if (refilling && signer.precomputeNonces!(aheadTarget, IDLE_SIGNATURES_PER_TURN) >= aheadTarget) refilling = false;
    if (toPresign.size > 0 || refilling) idleSoon();
  }
  refillAhead(true);

  function cancelBodyOf(nonce: Bytes32): CancelBody {
    const k = nonce;
    const kept = cancelBodies.get(k);
    if (!kept) {
      toPresign.delete(k); // cancelled before its turn came: nothing to sign ahead any more
      return signer.signCancel(nonce);
    }
    cancelBodies.delete(k);
    return kept;
  }

  function bodyOf(p: PlannedOrder): { body: LimitOrderBody; resend: boolean } {
    const k = p.nonce;
    const kept = signed.get(k);
    if (kept) return { body: kept, resend: true };
    const body = signer.signOrder(p, opts.nowSec?.());
    refillAhead();
    signed.set(k, body);
    if (signed.size > maxKept) signed.delete(signed.keys().next().value!);
    return { body, resend: false };
  }

  /** Forget a body once its create is settled (placed, or refused for good). */
  function settle(o: CreateOutcome): CreateOutcome {
    if (o.ok || !o.retryable) signed.delete(o.nonce);
    if (o.ok) presignSoon(o.nonce);
    return o;
  }

  async function runChunk(chunk: Op[], marketId: Bytes32 | null): Promise<BatchResult> {
    const creates = chunk.filter((o): o is Extract<Op, { type: 'create' }> => o.type === 'create');
    const cancels = chunk.filter((o): o is Extract<Op, { type: 'cancel' }> => o.type === 'cancel');
    const alreadySent = creates.some((c) => c.resend);
    let res: BulkResult;
    try {
      res = await limited(
        () => {
          if (creates.length === 0) return orders.bulkCancel(cancels.map((c) => c.body));
          if (cancels.length === 0)
            return orders.bulkCreate(
              creates.map((c) => c.body),
              { alreadySent },
            );
          return orders.bulk(chunk.map(toOperation), { alreadySent });
        },
        () => opts.onWrite?.(creates[0]?.planned.marketId ?? marketId, creates.length === 0),
      );
    } catch (err) {
      return refused(chunk, err);
    }
    if (res.duplicate) return resendOneByOne(creates, cancels);
    return mapResults(chunk, res.results, res.errors);
  }

  /** A bulk retry met a 409 duplicate: nothing of that call was applied; settle each create alone. */
  async function resendOneByOne(creates: Extract<Op, { type: 'create' }>[], cancels: Extract<Op, { type: 'cancel' }>[]): Promise<BatchResult> {
    const out: BatchResult = { creates: [], cancels: [] };
    if (cancels.length > 0) {
      // a resend, not a send an event caused: no market for the tick-to-wire meter
      const r = await runChunk(cancels, null);
      out.cancels.push(...r.cancels);
    }
    for (const c of creates) {
      try {
        const r = await limited(() => orders.create(c.body, { alreadySent: true }));
        out.creates.push({ ok: true, nonce: c.planned.nonce, order: r.order, duplicate: r.duplicate });
      } catch (err) {
        out.creates.push(failedBatch([c.planned], [], err).creates[0]!);
      }
    }
    return out;
  }

  async function batch(creates: PlannedOrder[], cancels: Bytes32[], marketId?: Bytes32): Promise<BatchResult> {
    const ops: Op[] = [];
    for (const n of cancels) ops.push({ type: 'cancel', nonce: n, body: cancelBodyOf(n) });
    for (const p of creates) ops.push({ type: 'create', planned: p, ...bodyOf(p) });
    const out: BatchResult = { creates: [], cancels: [] };
    for (let i = 0; i < ops.length; i += batchLimit) {
      const r = await runChunk(ops.slice(i, i + batchLimit), marketId ?? null);
      out.creates.push(...r.creates.map(settle));
      out.cancels.push(...r.cancels);
    }
    return out;
  }

  async function cancelReplace(cancelNonce: Bytes32, create: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }> {
    const cancelBody = cancelBodyOf(cancelNonce);
    const { body, resend } = bodyOf(create);
    try {
      const r = await limited(
        () => orders.cancelReplace(cancelBody, body, { alreadySent: resend }),
        () => opts.onWrite?.(create.marketId, false),
      );
      return {
        cancel: { ok: true, nonce: cancelNonce, alreadyCancelled: r.cancel.alreadyCancelled },
        create: settle({ ok: true, nonce: create.nonce, order: r.create.order, duplicate: r.create.duplicate }),
      };
    } catch (err) {
      const c = classify(err);
      if (c.reason === 'not-found') {
        // the order to cancel is unknown to the venue: nothing was applied, the create may go alone
        const alone = await batch([create], []);
        return { cancel: { ok: true, nonce: cancelNonce, alreadyCancelled: true }, create: alone.creates[0]! };
      }
      const f = failedBatch([create], [cancelNonce], err);
      return { cancel: f.cancels[0]!, create: settle(f.creates[0]!) };
    }
  }

  async function openOrders(marketId?: Bytes32): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    const p: Omit<ListOrdersParams, 'cursor'> = { trader, status: ['open'], limit: 100, ...(marketId ? { marketId } : {}) };
    for await (const o of orders.iterate(p)) out.push(o);
    return out;
  }

  return {
    trader,
    batchLimit,
    batch,
    cancelReplace,
    openOrders,
    get keptBodies() {
      return signed.size;
    },
    get waitingCalls() {
      return waiting.length;
    },
    get inFlightCalls() {
      return inFlight;
    },
    get presignedCancels() {
      return cancelBodies.size;
    },
    forget(nonce: Bytes32) {
      const k = nonce;
      cancelBodies.delete(k);
      // still queued for signing ahead (ended within the same turn): skip it there too
      toPresign.delete(k);
    },
  };
}

function toOperation(op: Op): BulkOperation {
  return op.type === 'create' ? { type: 'create', order: op.body } : { type: 'cancel', cancel: op.body };
}

/** Outcomes of a call that answered 2xx: match results by nonce (or by position when aligned). */
export function mapResults(chunk: readonly Op[], results: readonly BulkItem[], errors: readonly BulkItemError[] = []): BatchResult {
  const refusedAt = new Map(errors.map((e) => [e.index, e]));
  const createdBy = new Map<string, VenueOrder>();
  const cancelledBy = new Map<string, boolean>();
  for (const r of results) {
    if (!r.ok) continue;
    if (r.type === 'create') createdBy.set(r.order.nonce, r.order);
    else cancelledBy.set(r.nonce, r.alreadyCancelled);
  }
  const aligned = results.length === chunk.length;
  const out: BatchResult = { creates: [], cancels: [] };
  chunk.forEach((op, i) => {
    const failed = aligned ? results[i] : undefined;
    // the venue's own words for this item: its failed result, else its entry in `errors`
    const listed = refusedAt.get(i);
    const message = failed && !failed.ok ? failed.error : (listed?.error ?? 'the venue did not confirm this item');
    const code = failed && !failed.ok ? (failed.code ?? listed?.code ?? null) : (listed?.code ?? null);
    if (op.type === 'create') {
      const order = createdBy.get(op.planned.nonce);
      out.creates.push(order ? { ok: true, nonce: op.planned.nonce, order, duplicate: false } : itemCreateFailure(op.planned.nonce, message, code));
    } else {
      const already = cancelledBy.get(op.nonce);
      out.cancels.push(already !== undefined ? { ok: true, nonce: op.nonce, alreadyCancelled: already } : itemCancelFailure(op.nonce, message, null));
    }
  });
  return out;
}

interface ItemError {
  index: number;
  error: string;
  code: string | null;
}

/** `errors: [{index, error, code}]` of a refused bulk call's body, when the venue sent one. */
function itemErrors(err: unknown): ItemError[] | null {
  if (!(err instanceof VenueError)) return null;
  const b = err.body as { errors?: unknown } | null;
  if (!b || !Array.isArray(b.errors)) return null;
  const out: ItemError[] = [];
  for (const e of b.errors as unknown[]) {
    if (typeof e !== 'object' || e === null) continue;
    const r = e as Record<string, unknown>;
    if (typeof r.index !== 'number') continue;
    out.push({ index: r.index, error: typeof r.error === 'string' ? r.error : 'refused', code: typeof r.code === 'string' ? r.code : null });
  }
  return out.length > 0 ? out : null;
}

/** A whole call failed. Item errors (a 4xx refusal naming items) are per item; anything else applies to all. */
function refused(chunk: readonly Op[], err: unknown): BatchResult {
  const items = err instanceof VenueError && err.status >= 400 && err.status < 500 && err.status !== 429 ? itemErrors(err) : null;
  if (!items) {
    const creates = chunk.flatMap((o) => (o.type === 'create' ? [o.planned] : []));
    const cancels = chunk.flatMap((o) => (o.type === 'cancel' ? [o.nonce] : []));
    const f = failedBatch(creates, cancels, err);
    // an unknown order has nothing left to cancel
    if (classify(err).reason === 'not-found') f.cancels = f.cancels.map((c) => ({ ok: true, nonce: c.nonce, alreadyCancelled: true }));
    return f;
  }
  const byIndex = new Map(items.map((e) => [e.index, e]));
  const out: BatchResult = { creates: [], cancels: [] };
  chunk.forEach((op, i) => {
    const e = byIndex.get(i);
    if (op.type === 'create') {
      out.creates.push(
        e
          ? itemCreateFailure(op.planned.nonce, e.error, e.code, (err as VenueError).status)
          : { ok: false, nonce: op.planned.nonce, code: 'not-applied', message: 'another item of the call was refused', retryable: true },
      );
    } else {
      out.cancels.push(
        e
          ? itemCancelFailure(op.nonce, e.error, e.code)
          : { ok: false, nonce: op.nonce, code: 'not-applied', message: 'another item of the call was refused', retryable: true },
      );
    }
  });
  return out;
}

/** Statuses of the venue codes that name one (an item's code says more than the whole call's status). */
const CODE_STATUS: Readonly<Record<string, number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  MIGRATION_REQUIRED: 409,
  nonce_already_used: 409,
  CONFLICT: 409,
};

/** The status an item's refusal stands for: its code's, else read from its text, else the call's (a 4xx). */
function itemStatus(message: string, code: string | null, callStatus: number | undefined): number {
  const byCode = code ? CODE_STATUS[code] : undefined;
  if (byCode !== undefined) return byCode;
  const text = `${code ?? ''} ${message}`;
  if (/migrat|nonce|duplicate|already/i.test(text)) return 409;
  if (/not found/i.test(text)) return 404;
  if (/rate/i.test(text) && /limit/i.test(text)) return 429;
  return callStatus !== undefined && callStatus >= 400 && callStatus < 500 && callStatus !== 429 && callStatus !== 409 ? callStatus : 400;
}

/** Classify one item's error text as if the venue had answered it alone. */
function classifyItem(message: string, code: string | null, callStatus?: number): ReturnType<typeof classify> {
  const status = itemStatus(message, code, callStatus);
  return classify(new VenueError({ status, venueCode: code, message, endpoint: 'bulk item', retryAfterMs: null, body: { message, code } }));
}

function itemCreateFailure(nonce: Bytes32, message: string, code: string | null, callStatus?: number): CreateOutcome {
  const c = classifyItem(message, code, callStatus);
  if (c.reason === 'duplicate') return { ok: true, nonce, order: null, duplicate: true };
  const said = { status: itemStatus(message, code, callStatus), ...(code ? { venueCode: code } : {}) };
  return {
    ok: false,
    nonce,
    code: c.reason,
    message,
    retryable: c.action === 'retry' || c.action === 'backoff',
    migration: c.reason === 'migration-required',
    ...said,
  };
}

function itemCancelFailure(nonce: Bytes32, message: string, code: string | null): CancelOutcome {
  const c = classifyItem(message, code);
  if (c.reason === 'not-found') return { ok: true, nonce, alreadyCancelled: true };
  return { ok: false, nonce, code: c.reason, message, retryable: c.action === 'retry' || c.action === 'backoff' };
}
