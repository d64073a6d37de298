/**
 * The order manager's executor (docs/architecture.md#the-pipeline): sends the planned calls (bulk
 * calls and cancel-replace) with their nonces, reads each item's outcome into the order table
 * (order-table.ts), backs off on rate limits, resends retryable creates and blocks markets the
 * venue says must migrate.
 *
 * Entry point: `new OrderExecutor(deps)`, owned by the OrderManager; `execute(marketId, call)` per
 * planned call (plan-calls.ts), `callBatch` + `applyAnswers` for cancels outside a sync.
 *
 * Failure handling per outcome (VenuePort returns one outcome per item):
 * - create ok / duplicate → working (a duplicate means an earlier send placed it: counted once);
 * - create 409 migration → market blocked (only cancels) until resumeMarket;
 * - create 429 → not placed; back off exponentially, send only cancels meanwhile (requotes shed);
 * - create retryable (5xx, network) → it may have landed: the slot stays busy and the SAME planned
 *   order (same nonce, so the same signed body) is resent, at most `maxRetries` times, after which
 *   reconciliation settles it from the venue's list;
 * - create non-retryable → dropped, the slot cools down for `rejectCooldownMs`;
 * - whatever a RESEND is told, an earlier send may have landed: the order stays in flight until a
 *   reconciliation settles it (never forgotten, so its slot is never quoted twice);
 * - cancel retryable → retried within a fraction of a second (at most 3 times), then by the next
 *   diff; cancel non-retryable (unknown order) → parked (still counted) and the market reconciled.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { classify, failureOf } from '../exchange/client/classify.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { BookmakerError } from '../model/errors.ts';
import type { Bytes32, LimitOrder } from '../model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenueFailure, VenuePort } from '../model/venue.ts';
import type { OrderManagerEvent } from '../state/events.ts';
import type { DesiredOrder, TrackedOrder } from './diff.ts';
import type { NonceSource } from './nonces.ts';
import type { OrderParts, OrderTable } from './order-table.ts';
import type { VenueCall } from './plan-calls.ts';
import { fatalRefusal, VenueRefusedError } from './refusal.ts';
import type { Entry } from './tracked-orders.ts';
import { strangerMark } from './orphan-slot.ts';

/** What resendRetries returns when there is nothing to resend (callers may skip awaiting it). */
export const NOTHING_TO_RESEND: Promise<void> = Promise.resolve();

/** What a cancel-replace call answers. */
export interface CancelReplaceResult {
  readonly cancel: CancelOutcome;
  readonly create: CreateOutcome;
}

/** A venue call on its way (OrderExecutor.send), for OrderExecutor.finish. */
export interface CallOut {
  readonly kind: VenueCall['kind'];
  readonly marketId: Bytes32;
  /** the orders the call creates and the nonces it cancels (a cancel-replace: one of each) */
  readonly creates: PlannedOrder[];
  readonly cancels: Bytes32[];
  /** when it was handed to the venue */
  t0: number;
  /** the venue's answer */
  answer: Promise<BatchResult | CancelReplaceResult>;
}

/** The OrderManagerOptions the executor reads (see there). */
export interface ExecutorOptions {
  deadManSeconds?: number;
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  rejectCooldownMs?: number;
}

export interface ExecutorDeps extends OrderParts {
  readonly opts: ExecutorOptions;
  /** a cancel failed for now: the order manager tries the market again soon */
  readonly retryCancelSoon: (e: Entry, rateLimited: boolean) => void;
  /**
   * Run a synchronous step holding the events it emits (this executor's and the order table's),
   * delivered in order, together, when it returns (OrderManager.together). Omitted: events go out at once.
   */
  readonly together?: <T>(step: () => T) => T;
}

export class OrderExecutor {
  private readonly venue: VenuePort;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly emit: (e: OrderManagerEvent) => void;
  private readonly nonces: NonceSource;
  private readonly table: OrderTable;
  private readonly opts: ExecutorOptions;
  private readonly retryCancelSoon: (e: Entry, rateLimited: boolean) => void;
  private readonly together: <T>(step: () => T) => T;

  /** markets the venue answered 409 migration for: only cancels go out (lower-case ids) */
  readonly blocked = new Set<string>();
  /** slot → time until which it is left empty after a refused create */
  readonly cooldown = new Map<string, number>();
  /** set by an outcome that must stop the bot; raised by the order manager at the end of the step */
  pendingHalt: Error | null = null;
  /** 429 back-off: only cancels go out before this time (written here only) */
  backoffUntil = 0;
  private retryAfterHint = 0;
  private backoffStep = 0;

  constructor(deps: ExecutorDeps) {
    this.venue = deps.venue;
    this.clock = deps.clock;
    this.log = deps.log;
    this.emit = deps.emit;
    this.together = deps.together ?? runStep;
    this.nonces = deps.nonces;
    this.table = deps.table;
    this.opts = deps.opts;
    this.retryCancelSoon = deps.retryCancelSoon;
  }

  coolingDown(slot: string, now: number): boolean {
    const until = this.cooldown.get(slot);
    if (until === undefined) return false;
    if (now < until) return true;
    this.cooldown.delete(slot);
    return false;
  }

  /**
   * Resend the creates marked for it. Not async itself: nearly every sync has nothing to resend,
   * and an already-resolved promise is awaited in the same single microtask hop as an async
   * function that returns at once, without allocating one.
   */
  resendRetries(marketId: Bytes32): Promise<void> {
    if (this.clock.now() < this.backoffUntil) return NOTHING_TO_RESEND;
    let again: Entry[] | null = null;
    const held = this.table.entries.entriesOf(marketId);
    for (let i = 0; i < held.length; i++) if (held[i]!.resend) (again ??= []).push(held[i]!);
    if (again === null) return NOTHING_TO_RESEND;
    return this.resend(marketId, again);
  }

  private async resend(marketId: Bytes32, again: readonly Entry[]): Promise<void> {
    for (let i = 0; i < again.length; i += this.venue.batchLimit) {
      const chunk = again.slice(i, i + this.venue.batchLimit);
      const now = this.clock.now();
      for (const e of chunk) {
        e.resend = false;
        e.sentAt = now;
        this.emit({ type: 'OrderSubmitted', marketId, slot: e.slot, nonce: e.planned.nonce, order: e.planned, retry: true, ts: now });
      }
      const res = await this.callBatch(
        chunk.map((e) => e.planned),
        [],
      );
      for (const o of res.creates) this.applyCreate(o);
    }
  }

  private plan(d: DesiredOrder): PlannedOrder {
    const nonce = this.nonces.next();
    const dead = this.opts.deadManSeconds;
    const expiry = dead ? Math.floor(this.clock.now() / 1000) + dead : d.order.expiry;
    return withNonce(d.order, nonce, expiry);
  }

  private startCreate(marketId: Bytes32, d: DesiredOrder): PlannedOrder {
    const planned = this.plan(d);
    const now = this.clock.now();
    this.table.entries.set(planned.nonce, {
      marketId,
      slot: d.slot,
      planned,
      remaining: planned.size,
      state: 'pending-create',
      sentAt: now,
      attempts: 0,
      resend: false,
    });
    this.emit({ type: 'OrderSubmitted', marketId, slot: d.slot, nonce: planned.nonce, order: planned, retry: false, ts: now });
    return planned;
  }

  startCancel(marketId: Bytes32, t: TrackedOrder): Bytes32 {
    const e = this.table.entries.get(t.planned.nonce);
    const now = this.clock.now();
    if (e) {
      e.state = 'pending-cancel';
      e.sentAt = now;
    }
    this.emit({ type: 'CancelSubmitted', marketId, nonce: t.planned.nonce, ...strangerMark(e?.slot), ts: now });
    return t.planned.nonce;
  }

  /**
   * Decide, sign, write, then update the state: the events of the call's orders (CancelSubmitted,
   * OrderSubmitted), emitted by `start`, are held until `send` has handed the call to the venue (the
   * live venue signs and writes the request before its first await), then delivered in the order
   * they were emitted, together, still in the same synchronous turn: nothing can read the store in
   * between, and the store's updates no longer stand between a book event and the wire
   * (docs/performance.md#where-the-tail-comes-from).
   */
  private handOver<S, T>(start: () => S, send: (s: S) => Promise<T>): Promise<T> {
    return this.together(() => send(start()));
  }

  /**
   * A planned call, in two halves with the wait for the venue between them, which the caller awaits
   * itself (OrderManager.syncNow: `const out = exec.send(m, call); try { res = await out.answer }
   * catch (e) { failure = e } exec.finish(out, res, failure)`): `send` starts the call's orders and
   * hands it to the venue, `finish` reads the answer (or the failure) into the table. One async
   * function per call did both: its own promise and a microtask hop more per venue call, on the way
   * back from every answer.
   */
  send(marketId: Bytes32, call: VenueCall): CallOut {
    if (call.kind === 'cancel-replace') {
      const { action } = call;
      const out: CallOut = { kind: 'cancel-replace', marketId, creates: [], cancels: [], t0: this.clock.now(), answer: null! };
      out.answer = this.handOver(
        () => {
          out.cancels.push(this.startCancel(marketId, action.cancel));
          out.creates.push(this.startCreate(marketId, action.desired));
        },
        () => {
          try {
            return this.venue.cancelReplace(out.cancels[0]!, out.creates[0]!);
          } catch (err) {
            return Promise.reject(err); // a venue that throws at once is answered below like one that rejects
          }
        },
      );
      return out;
    }
    const out: CallOut = { kind: 'batch', marketId, creates: [], cancels: [], t0: 0, answer: null! };
    out.answer = this.handOver(
      () => {
        for (const a of call.actions) {
          if (a.kind !== 'create') out.cancels.push(this.startCancel(marketId, a.cancel));
          if (a.kind !== 'cancel') out.creates.push(this.startCreate(marketId, a.desired));
        }
      },
      () => {
        out.t0 = this.clock.now(); // the call's time from its send, as callBatch measures it
        try {
          return this.venue.batch(out.creates, out.cancels, marketId);
        } catch (err) {
          return Promise.reject(err); // as callBatch: a venue that throws at once is a failed call
        }
      },
    );
    return out;
  }

  /** The second half of a call `send` started: its answer (null and the failure when it threw) into the table. */
  finish(out: CallOut, res: BatchResult | CancelReplaceResult | null, failure: unknown): void {
    // the call's end and its outcomes reach the store together
    if (out.kind === 'cancel-replace') {
      this.together(() => {
        const now = this.clock.now();
        let answer = res as CancelReplaceResult | null;
        const planned = out.creates[0]!;
        const cancelNonce = out.cancels[0]!;
        if (answer !== null) this.emit({ type: 'VenueCallCompleted', call: 'cancel-replace', ok: !isRefusal(answer.create), ms: now - out.t0, ts: now });
        else {
          this.emit({ type: 'VenueCallCompleted', call: 'cancel-replace', ok: false, ms: now - out.t0, ts: now });
          this.retryAfterHint = classify(failure).retryAfterMs ?? 0;
          const f = failedBatch([planned], [cancelNonce], failure);
          answer = { cancel: f.cancels[0]!, create: f.creates[0]! };
        }
        this.applyCancel(answer.cancel);
        this.applyCreate(answer.create);
      });
      return;
    }
    const { creates, cancels } = out;
    this.together(() => this.applyAnswers(creates, cancels, this.completed(out.t0, creates, cancels, res as BatchResult | null, failure)));
  }

  /** The call's VenueCallCompleted, and the outcomes of a call that threw as a whole (see callBatch). */
  private completed(t0: number, creates: PlannedOrder[], cancels: Bytes32[], res: BatchResult | null, failure: unknown): BatchResult {
    const now = this.clock.now();
    if (res !== null) {
      // a create the venue refused is a failed call for the error-rate kill switch
      this.emit({ type: 'VenueCallCompleted', call: 'batch', ok: !res.creates.some(isRefusal), ms: now - t0, ts: now });
      return res;
    }
    this.emit({ type: 'VenueCallCompleted', call: 'batch', ok: false, ms: now - t0, ts: now });
    this.retryAfterHint = classify(failure).retryAfterMs ?? 0;
    return failedBatch(creates, cancels, failure);
  }

  /** A batch's outcomes; items the venue did not answer for are treated as retryable failures. */
  applyAnswers(creates: readonly PlannedOrder[], cancels: readonly Bytes32[], res: BatchResult): void {
    for (const o of res.cancels) this.applyCancel(o);
    for (const o of res.creates) this.applyCreate(o);
    // the usual answer: one outcome per item, in the order sent (nothing left unanswered)
    if (answersInOrder(creates, cancels, res)) return;
    const answered = new Set([...res.creates, ...res.cancels].map((o) => o.nonce));
    for (const p of creates)
      if (!answered.has(p.nonce)) this.applyCreate({ ok: false, nonce: p.nonce, code: 'no-answer', message: 'no outcome', retryable: true });
    for (const n of cancels) if (!answered.has(n)) this.applyCancel({ ok: false, nonce: n, code: 'no-answer', message: 'no outcome', retryable: true });
  }

  /** `marketId`: the one market of the call, when there is one (see VenuePort.batch). */
  async callBatch(creates: PlannedOrder[], cancels: Bytes32[], marketId?: Bytes32): Promise<BatchResult> {
    const t0 = this.clock.now();
    try {
      const res = await (marketId === undefined ? this.venue.batch(creates, cancels) : this.venue.batch(creates, cancels, marketId));
      return this.completed(t0, creates, cancels, res, null);
    } catch (err) {
      return this.completed(t0, creates, cancels, null, err);
    }
  }

  applyCreate(o: CreateOutcome): void {
    const k = o.nonce;
    const e = this.table.entries.get(k);
    if (!e) return;
    const now = this.clock.now();
    if (o.ok || o.code === 'duplicate') {
      this.backoffStep = 0;
      if (e.state === 'pending-create') e.state = 'working';
      // a fill the answer shows (the order crossed on arrival) changes nothing here: the order
      // counts at its size until the fills feed reports it (see countedShares in order-table.ts),
      // which charges those fills the taker rate (filledOnArrival)
      const arrived = o.ok && o.order ? o.order.filledSize : 0;
      // when the venue inserted it (this send, not an earlier one): src/feeds/parked-cancels.ts
      const insertedAt = o.ok && o.order && !o.duplicate ? Date.parse(o.order.insertedAt) : NaN;
      this.emit(accepted(e, o.ok ? o.duplicate : true, arrived, insertedAt, now));
      if (e.remaining === 0 && e.state === 'working') this.table.entries.delete(k);
      return;
    }
    const said = { message: o.message, ...(o.status !== undefined ? { status: o.status } : {}), ...(o.venueCode ? { venueCode: o.venueCode } : {}) };
    const reject = (reason: VenueFailure, retryable: boolean, mayHaveLanded = false): void =>
      this.emit({ type: 'OrderRejected', marketId: e.marketId, slot: e.slot, nonce: e.planned.nonce, reason, retryable, mayHaveLanded, ...said, ts: now });
    const fatal = fatalRefusal(o);
    // After a lost answer the order may already be open from an earlier send: whatever a resend is
    // told, such an order is never forgotten here — it stays in flight until a reconciliation or a
    // later answer settles it, so its slot cannot be quoted twice.
    const mayExist = e.attempts > 0;
    const settleLater = (): void => {
      e.resend = false;
      this.table.needsReconcile.add(e.marketId);
    };
    if (o.code === 'invalid-signature' || fatal) {
      // no create can get past this refusal (bad key, key of another wallet, our signing broken): halt
      if (mayExist) settleLater();
      else this.table.entries.delete(k);
      reject(o.code, false, mayExist);
      this.pendingHalt ??= fatal ? new VenueRefusedError(fatal) : new BookmakerError('SIGNING', `create refused: ${o.code}`);
    } else if (o.migration || o.code === 'migration-required') {
      if (mayExist) settleLater();
      else this.table.entries.delete(k);
      reject('migration-required', false, mayExist);
      this.block(e.marketId);
    } else if (o.code === 'rate-limited') {
      // A 429 is refused before processing: this send placed nothing. A first send frees the slot;
      // a resend is tried again after the back-off.
      if (mayExist) e.resend = true;
      else this.table.entries.delete(k);
      reject('rate-limited', true, mayExist);
      this.startBackoff(now);
    } else if (o.retryable) {
      e.attempts++;
      reject(o.code, true, true);
      if (e.attempts <= (this.opts.maxRetries ?? 3)) e.resend = true;
      else settleLater();
    } else if (mayExist) {
      reject(o.code, false, true);
      settleLater();
    } else {
      this.table.entries.delete(k);
      reject(o.code, false);
      this.cooldown.set(e.slot, now + (this.opts.rejectCooldownMs ?? 1000));
    }
  }

  applyCancel(o: CancelOutcome): void {
    const k = o.nonce;
    const e = this.table.entries.get(k);
    if (!e) return;
    const now = this.clock.now();
    if (o.ok) {
      // a fill may have raced the cancel: park until the feeds have reported it
      const { marketId, planned, slot } = e;
      const ended = { type: 'OrderCancelled', marketId, nonce: planned.nonce, alreadyCancelled: o.alreadyCancelled, ...strangerMark(slot), ts: now } as const;
      this.table.park(k, e, ended, now);
      return;
    }
    this.emit({ type: 'CancelFailed', marketId: e.marketId, nonce: e.planned.nonce, reason: o.code, retryable: o.retryable, ...strangerMark(e.slot), ts: now });
    const rateLimited = o.code === 'rate-limited';
    if (rateLimited) this.startBackoff(now);
    if (o.retryable) {
      e.state = 'working'; // the next diff cancels it again if it is still unwanted
      this.retryCancelSoon(e, rateLimited);
    } else {
      // refused for good, most often because the order is no longer open: it filled, and those
      // fills may not be in the position yet, so it is parked (still counted) like an order found gone
      this.table.needsReconcile.add(e.marketId);
      this.table.exposureChanged(e.marketId);
      this.table.park(k, e, { type: 'OrderGone', marketId: e.marketId, nonce: e.planned.nonce, ts: now }, now);
    }
  }

  private startBackoff(now: number): void {
    // Several 429s from one call (or during a back-off) are one signal: escalate once.
    if (now < this.backoffUntil) return;
    const base = this.opts.backoffBaseMs ?? 500;
    const max = this.opts.backoffMaxMs ?? 30_000;
    // The venue's Retry-After, when it gave one, is a floor under our own exponential wait.
    const wait = Math.max(this.retryAfterHint, Math.min(max, base * 2 ** this.backoffStep));
    this.retryAfterHint = 0;
    this.backoffStep = Math.min(this.backoffStep + 1, 20);
    this.backoffUntil = Math.max(this.backoffUntil, now + wait);
    this.emit({ type: 'VenueBackedOff', until: this.backoffUntil, shed: 0, ts: now });
  }

  private block(marketId: Bytes32): void {
    if (this.blocked.has(marketId)) return;
    this.blocked.add(marketId);
    this.log.warn({ marketId }, 'venue answered 409 migration: quoting stopped in this market until migration completes');
    this.emit({ type: 'MarketBlocked', marketId, reason: 'migration', ts: this.clock.now() });
  }
}

/**
 * The OrderAccepted event, with filledOnArrival and insertedAt only when there are such figures. One
 * literal per shape, keys in the same order: an object literal with conditional spreads is built on
 * V8's slow path, and this is every create's answer.
 */
function accepted(e: Entry, duplicate: boolean, arrived: number, insertedAt: number, ts: number): OrderManagerEvent {
  const marketId = e.marketId;
  const nonce = e.planned.nonce;
  if (arrived > 0) {
    return insertedAt > 0
      ? { type: 'OrderAccepted', marketId, nonce, duplicate, filledOnArrival: arrived, insertedAt, ts }
      : { type: 'OrderAccepted', marketId, nonce, duplicate, filledOnArrival: arrived, ts };
  }
  return insertedAt > 0 ? { type: 'OrderAccepted', marketId, nonce, duplicate, insertedAt, ts } : { type: 'OrderAccepted', marketId, nonce, duplicate, ts };
}

/** A step run as it is (an executor built without the order manager's `together`). */
function runStep<T>(step: () => T): T {
  return step();
}

/** Every create and cancel has its outcome at its own index: each item is answered. */
function answersInOrder(creates: readonly PlannedOrder[], cancels: readonly Bytes32[], res: BatchResult): boolean {
  if (res.creates.length !== creates.length || res.cancels.length !== cancels.length) return false;
  for (let i = 0; i < creates.length; i++) if (res.creates[i]!.nonce !== creates[i]!.nonce) return false;
  for (let i = 0; i < cancels.length; i++) if (res.cancels[i]!.nonce !== cancels[i]) return false;
  return true;
}

/** A create the venue answered with a refusal (4xx other than a rate limit or a duplicate). */
function isRefusal(c: CreateOutcome): boolean {
  return !c.ok && c.status !== undefined && c.status >= 400 && c.status < 500 && c.status !== 429 && c.code !== 'duplicate';
}

/** The own enumerable keys of an order as to-orders builds it, in that order. */
const MAPPED_KEYS = ['marketId', 'size', 'outcomeIndex', 'side', 'price', 'inventoryMode'];

/**
 * `{ ...order, nonce }` (and `expiry` when given). A spread that adds keys takes V8's slow path
 * (~2 µs); the orders to-orders makes all have the same six keys, and for those an explicit literal
 * with the same keys in the same order is the same object. Anything else is spread as before.
 */
function withNonce(order: LimitOrder, nonce: Bytes32, expiry: number | undefined): PlannedOrder {
  const keys = Object.keys(order);
  let mapped = keys.length === MAPPED_KEYS.length;
  for (let i = 0; mapped && i < keys.length; i++) mapped = keys[i] === MAPPED_KEYS[i];
  if (mapped) {
    const o = order;
    if (expiry === undefined)
      return { marketId: o.marketId, size: o.size, outcomeIndex: o.outcomeIndex, side: o.side, price: o.price, inventoryMode: o.inventoryMode!, nonce };
    return { marketId: o.marketId, size: o.size, outcomeIndex: o.outcomeIndex, side: o.side, price: o.price, inventoryMode: o.inventoryMode!, nonce, expiry };
  }
  return expiry === undefined ? { ...order, nonce } : { ...order, nonce, expiry };
}

/**
 * Outcomes for a call that threw as a whole, decided by the client's classifier. Creates carry
 * their own nonce, so resending the same bodies is idempotent (a duplicate answer is recognised).
 */
export function failedBatch(creates: readonly PlannedOrder[], cancels: readonly Bytes32[], err: unknown): BatchResult {
  const c = classify(err, { idempotent: true });
  const message = err instanceof Error ? err.message : String(err);
  const code = failureOf(err, c);
  const migration = c.reason === 'migration-required';
  // 'fail' on a whole call that is not a clear refusal of our request may still have been applied.
  const retryable = c.action === 'retry' || c.action === 'backoff' || (c.action === 'fail' && (c.reason === 'unknown' || c.reason === 'bad-response'));
  const venue = err instanceof VenueError ? { status: err.status, ...(err.venueCode ? { venueCode: err.venueCode } : {}) } : {};
  const said = err instanceof VenueError && err.venueMessage ? err.venueMessage : message;
  return {
    creates: creates.map((p) => ({ ok: false, nonce: p.nonce, code, message: said, retryable, migration, ...venue })),
    cancels: cancels.map((n) => ({ ok: false, nonce: n, code, message, retryable: retryable || migration })),
  };
}

export function errInfo(err: unknown): { message: string; code?: string } {
  if (err instanceof BookmakerError) return { message: err.message, code: err.code };
  return { message: err instanceof Error ? err.message : String(err) };
}
