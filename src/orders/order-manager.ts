/**
 * The order manager (docs/architecture.md#the-pipeline, issue 4 §5): keeps each market's orders where the strategy
 * wants them with the fewest venue calls, owns nonces and in-flight state, reconciles with the
 * venue and cancels everything on the way out.
 *
 * Entry points (one instance per trader, shared by every market):
 *   const om = new OrderManager({ venue, clock, tolerances, emit, logger, deadManSeconds, onHalt });
 *   await om.reconcile(undefined, desiredNow);   // start-up: adopt or cancel what the venue holds
 *   await om.sync(marketId, desired);            // every tick, per market (coalesced, serialised)
 *   await om.reconcile();                        // after a stream reconnect and periodically
 *   await om.cancelAll();                        // SIGINT/SIGTERM, --duration, kill switch
 *   om.resumeMarket(marketId)                    // after migration completed (409 migration blocks)
 *   om.refreshAll()                              // dead-man refresh / re-place without a new tick
 *   om.applyFill(nonce, size)                    // a fill seen on a feed (see bind-fills.ts)
 *   om.settle(nonce) / om.positionsRead(m, t)    // an order's end and a positions read seen on a feed
 *   om.ready                                     // reconciled at least once and not halted (/readyz)
 * Every state change is reported through `emit` as a StateEvent (src/state/events.ts) so the store
 * and the metrics see the same facts. A broken invariant halts: cancel all, then `onHalt(err)`;
 * the runtime exits non-zero.
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
import { silentLogger, type Logger } from '../core/logger.ts';
import { classify } from '../exchange/client/classify.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { BadInputError, BookmakerError, InvariantError } from '../model/errors.ts';
import type { Bytes32, LimitOrder, VenueOrder } from '../model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../model/venue.ts';
import type { OrderManagerEvent } from '../state/events.ts';
import { diff, type DesiredOrder, type DiffAction, type Tolerances, type TrackedOrder } from './diff.ts';
import { NonceSource } from './nonces.ts';
import { planCalls, type VenueCall } from './plan-calls.ts';
import { planReconcile } from './reconcile.ts';
import { fatalRefusal, VenueRefusedError } from './refusal.ts';
import { TrackedOrders, type Entry } from './tracked-orders.ts';
import { plannedFromVenue, totalShares } from './venue-order-shares.ts';

export interface OrderManagerOptions {
  venue: VenuePort;
  clock: Clock;
  tolerances: Tolerances;
  logger?: Logger;
  emit?: (e: OrderManagerEvent) => void;
  nonces?: NonceSource;
  /** an unanswered create/cancel older than this is settled by reconciliation (default 10 s) */
  inFlightTimeoutMs?: number;
  /** dead-man: orders expire this many seconds after being sent and are refreshed at half-life */
  deadManSeconds?: number;
  /** resends of the same signed create after retryable failures (default 3) */
  maxRetries?: number;
  /** 429 back-off: base and cap, ms (default 500 / 30 000) */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** a slot whose create was rejected is left empty this long (default 1 000 ms) */
  rejectCooldownMs?: number;
  /**
   * An order that left the venue's book without us seeing its fills (it vanished from the open
   * list, or a cancel was answered) keeps counting in the store at worst case until a feed reports
   * it closed (`settle`), fills use it up, or a positions read begun at least this long after it
   * left has landed (`positionsRead`): only then does the position surely hold whatever it filled,
   * however many reads failed meanwhile. 0 (default) drops such orders at once: right when the
   * venue reports every fill before the order's end, as the backtest's sim venue does.
   */
  settleMs?: number;
  /** cancelAll: rounds of list-then-cancel and the pause between them (default 5 / 250 ms) */
  cancelAllRounds?: number;
  cancelAllDelayMs?: number;
  /** a market flagged for reconciliation is reconciled at most this often by sync (default 1 000 ms) */
  reconcileMinIntervalMs?: number;
  /** called after a halt has cancelled everything; the runtime exits non-zero */
  onHalt?: (err: Error, result: CancelAllResult) => void;
  /**
   * reconcileScope `markets`: only open orders in these markets are this bot's (reconcile adopts or
   * cancels them, cancelAll cancels them); orders elsewhere in the wallet are left alone. Omitted:
   * every open order of the wallet is the bot's (reconcileScope `wallet`).
   */
  ownMarkets?: readonly Bytes32[];
}

export interface CancelAllResult {
  readonly ok: boolean;
  readonly rounds: number;
  readonly cancelled: number;
  /** orders still open at the venue after the last round */
  readonly remaining: number;
}

// Outcome codes: the classifier's reasons (src/exchange/client/classify.ts) or our ErrorCodes.
const RATE_LIMIT_CODES = new Set(['rate-limited', 'RATE_LIMITED', '429']);
const MIGRATION_CODES = new Set(['migration-required', 'MIGRATION_REQUIRED']);
const DUPLICATE_CODES = new Set(['duplicate', 'DUPLICATE']);
/** Our signing or key is broken: every further order would be refused too. Stop safely. */
const HALT_CODES = new Set(['invalid-signature', 'SIGNING']);

const lower = (s: string): string => s.toLowerCase();

/**
 * An order's remaining shares as the bot counts them: its size less the fills the feed reported.
 * This is what the store counts at worst case, and it is also what the diff sees, on purpose. The
 * venue's own figure (a create answer, a reconcile) can run ahead of the fills feed: a quote that
 * crossed a book that moved is filled on arrival, a reconcile lists a partial fill the feed reports
 * a moment later. The risk gate takes a desired quote identical to a counted order as that order and
 * adds nothing for it; if the diff saw the venue's smaller figure it would top that order up or
 * place the quote again, and the fill plus the new order would go past a limit nobody checked.
 * Until the fill is reported the order keeps its slot (erring the safe way: the venue holds less);
 * the fill's tick then requotes with the position that holds it.
 */
function countedShares(e: Entry): number {
  return Math.max(0, e.planned.size - (e.filled ?? 0));
}
const RESOLVED: Promise<void> = Promise.resolve();

/** A market's desired orders and `exposureVersion` when they were risk-checked (undefined: not known). */
interface DesiredSet {
  readonly desired: readonly DesiredOrder[];
  readonly checkedAt: number | undefined;
}

export class OrderManager {
  private readonly venue: VenuePort;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly nonces: NonceSource;
  private readonly tol: Tolerances;
  private readonly opts: OrderManagerOptions;

  /** by lower-cased nonce */
  private readonly entries = new TrackedOrders();
  /** orders gone from the venue whose fills may not be in the position yet (see `settleMs`) */
  private readonly parked = new Map<string, { entry: Entry; readAfter: number; ended: OrderManagerEvent; market: string }>();
  /** orders the feed reported closed (fills in) while a call on them was still out: not parked when it returns */
  private readonly settledEarly = new Set<string>();
  /** per market: the last desired set synced, with the exposure version it was risk-checked at (see sync) */
  private readonly lastDesired = new Map<string, DesiredSet>();
  /** per market: changes to its exposure that no desired set asked for (see exposureVersion) */
  private readonly exposureSeq = new Map<string, number>();
  private readonly blocked = new Set<string>();
  private readonly cooldown = new Map<string, number>();
  private readonly needsReconcile = new Set<string>();
  /** per market: a quick retry of a failed cancel is scheduled (see retryCancelSoon) */
  private readonly cancelRetryTimers = new Map<string, () => void>();
  private readonly nextReconcileAt = new Map<string, number>();

  private readonly chains = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, DesiredSet>();
  private readonly running = new Set<Promise<void>>();
  private gate: Promise<void> = Promise.resolve();
  private reconcileChain: Promise<unknown> = Promise.resolve();

  /** set by an outcome that must stop the bot; raised at the end of the step */
  private pendingHalt: Error | null = null;
  private backoffUntil = 0;
  private retryAfterHint = 0;
  private backoffStep = 0;
  private stopping = false;
  private halted = false;
  private reconciledOnce = false;

  constructor(opts: OrderManagerOptions) {
    this.opts = opts;
    this.venue = opts.venue;
    this.clock = opts.clock;
    this.log = (opts.logger ?? silentLogger).child({ component: 'orders' });
    this.nonces = opts.nonces ?? new NonceSource();
    const refresh = opts.tolerances.refreshBeforeSec ?? (opts.deadManSeconds ? Math.floor(opts.deadManSeconds / 2) : undefined);
    this.tol = refresh === undefined ? opts.tolerances : { ...opts.tolerances, refreshBeforeSec: refresh };
  }

  /** Reconciled at least once, not halted and not stopping (feeds /readyz). */
  get ready(): boolean {
    return this.reconciledOnce && !this.halted && !this.stopping;
  }
  /** At least one reconciliation with the venue succeeded. */
  get reconciled(): boolean {
    return this.reconciledOnce;
  }
  get isHalted(): boolean {
    return this.halted;
  }
  isBlocked(marketId: Bytes32): boolean {
    return this.blocked.has(lower(marketId));
  }
  backedOffUntil(): number {
    return this.backoffUntil;
  }

  /** Our orders (working and in flight), optionally for one market. */
  tracked(marketId?: Bytes32): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const e of marketId === undefined ? this.entries.values() : this.entries.ofMarket(lower(marketId))) {
      out.push({ slot: e.slot, planned: e.planned, remaining: e.remaining, state: e.state, sentAt: e.sentAt });
    }
    return out;
  }

  /** A fill seen on a feed: shrink the order's remaining size (removed when nothing is left). */
  applyFill(nonce: Bytes32, size: number): void {
    const k = lower(nonce);
    const p = this.parked.get(k);
    const e = this.entries.get(k) ?? p?.entry;
    if (!e) return;
    e.filled = (e.filled ?? 0) + size;
    const counted = countedShares(e);
    e.remaining = counted;
    this.exposureChanged(e.marketId);
    // the quote is used up: the store drops it at the same time (the diff re-places it)
    if (counted === 0 && e.state === 'working' && !p) this.entries.delete(k);
    this.emit({ type: 'OrderRemainingChanged', marketId: e.marketId, nonce: e.planned.nonce, remaining: counted, ts: this.clock.now() });
    // a parked order whose whole size is now accounted for has nothing left to wait for
    if (p && counted === 0) this.unpark(k);
  }

  /**
   * A feed saw the order closed at the venue, having reported its fills first: a parked order
   * stops counting now instead of at the end of `settleMs`.
   */
  settle(nonce: Bytes32): void {
    const k = lower(nonce);
    if (this.parked.has(k)) return this.unpark(k);
    // closed at the venue before a reconcile noticed: a resting order is over (one with a call in
    // flight is left to that call's answer)
    const e = this.entries.get(k);
    if (e?.state === 'working') {
      this.entries.delete(k);
      this.exposureChanged(e.marketId);
      this.emit({ type: 'OrderGone', marketId: e.marketId, nonce: e.planned.nonce, ts: this.clock.now() });
    } else if (e) {
      // its cancel (or replace) is still on the way: when the answer parks it, nothing is left to wait for
      if (this.settledEarly.size >= 10_000) this.settledEarly.clear();
      this.settledEarly.add(k);
    }
  }

  /**
   * Nothing pending for this market: no order tracked or parked, no reconcile owed and no sync
   * queued or running. A tick that desires nothing for such a market has nothing to do here.
   */
  isIdle(marketId: Bytes32): boolean {
    const k = lower(marketId);
    if (this.needsReconcile.has(k) || this.queued.has(k) || this.chains.has(k)) return false;
    for (const _ of this.entries.ofMarket(k)) return false;
    if (this.parked.size > 0) for (const p of this.parked.values()) if (p.market === k) return false;
    return true;
  }

  /**
   * How many times this market's exposure changed in ways no desired set asked for: fills, a
   * position sync (`exposureChanged`), an order found gone or refused a cancel for good. Pass it
   * with a desired set to `sync` (see there).
   */
  exposureVersion(marketId: Bytes32): number {
    return this.exposureSeq.get(lower(marketId)) ?? 0;
  }

  /**
   * Something moved this market's exposure behind the risk gate's back (the kernel calls it on a
   * position sync; fills and orders found gone call it here): desired sets checked before it may
   * only cancel.
   */
  exposureChanged(marketId: Bytes32): void {
    const mk = lower(marketId);
    this.exposureSeq.set(mk, (this.exposureSeq.get(mk) ?? 0) + 1);
  }

  /** Is the order still tracked here (working, in flight, or parked)? */
  knows(nonce: Bytes32): boolean {
    const k = lower(nonce);
    return this.entries.get(k) !== undefined || this.parked.has(k);
  }

  /** The tolerances the diff keeps orders within (refresh included), for callers that predict it. */
  get tolerances(): Tolerances {
    return this.tol;
  }

  /** A cancelled or vanished order is parked until its fills are known (settleMs > 0). */
  get parksEndedOrders(): boolean {
    return (this.opts.settleMs ?? 0) > 0;
  }

  /** Orders parked now (tests, metrics). */
  get parkedCount(): number {
    return this.parked.size;
  }

  /**
   * The order left the venue without us seeing its fills. It leaves the diff at once (its slot is
   * free to requote), but the store hears of its end only once its fate is known, so the risk layer
   * keeps counting it at worst case meanwhile and never sees a position that lags its fills.
   */
  private park(k: string, e: Entry, ended: OrderManagerEvent, now: number): void {
    this.entries.delete(k);
    const ms = this.opts.settleMs ?? 0;
    if (ms <= 0 || this.settledEarly.delete(k)) {
      this.emit(ended);
      return;
    }
    // the market id lower-cased once here, not per parked order at every positions read
    this.parked.set(k, { entry: e, readAfter: now + ms, ended, market: lower(e.marketId) });
    // no longer a live quote (the risk layer must not take a new identical quote for it), but counted
    this.emit({ type: 'OrderParked', marketId: e.marketId, nonce: e.planned.nonce, ts: now });
  }

  private unpark(k: string): void {
    const p = this.parked.get(k);
    if (!p) return;
    this.parked.delete(k);
    this.emit(p.ended);
  }

  /**
   * A positions read of this market begun at `startedAt` has reached the store: parked orders of
   * the market that left the book at least `settleMs` before it are in that position now, fills
   * and all, and stop counting.
   */
  /** Returns whether a parked order of the market stopped counting (its exposure changed). */
  positionsRead(marketId: Bytes32, startedAt: number): boolean {
    if (this.parked.size === 0) return false;
    const mk = lower(marketId);
    let released = false;
    for (const [k, p] of this.parked) {
      if (p.readAfter <= startedAt && p.market === mk) {
        this.unpark(k);
        released = true;
      }
    }
    return released;
  }

  /**
   * Re-run every market's last desired set: refreshes dead-man expiries and re-places quotes after
   * a block lifts, without waiting for the next book event. A quote the risk gate took as a live
   * order is never placed anew here (see DesiredOrder.keeps): its refresh is a cancel, and the next
   * tick places it.
   */
  refreshAll(): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const { desired, checkedAt } of this.lastDesired.values()) {
      const marketId = desired[0]?.order.marketId;
      if (marketId !== undefined) runs.push(this.sync(marketId, desired, checkedAt));
    }
    return Promise.all(runs).then(() => undefined);
  }

  /** Migration finished: trading in the market may resume. */
  resumeMarket(marketId: Bytes32): void {
    if (this.blocked.delete(lower(marketId))) this.emit({ type: 'MarketUnblocked', marketId, ts: this.clock.now() });
  }

  /** Stop blocking creates after cancelAll (e.g. the kill switch was reset by the operator). */
  resume(): void {
    if (!this.halted) this.stopping = false;
  }

  /**
   * Bring one market's orders to `desired`. Calls for the same market are serialised; while one
   * runs, later calls coalesce into a single follow-up with the newest desired set. `checkedAt` is
   * `exposureVersion(marketId)` when the set was risk-checked: a set older than a fill, a position
   * sync or an order gone in its market only cancels (the change's own tick follows). The gate
   * passed quotes identical to live orders without counting them again; if such an order is gone
   * now, placing the quote anew would add exposure nobody checked.
   */
  sync(marketId: Bytes32, desired: readonly DesiredOrder[], checkedAt?: number): Promise<void> {
    const k = lower(marketId);
    for (let i = 0; i < desired.length; i++) {
      const m = desired[i]!.order.marketId;
      // the same string (the usual case) needs no lower-casing
      if (m !== marketId && lower(m) !== k) throw new BadInputError(`desired[${i}].order.marketId`, marketId, m);
    }
    // A pull does not wait behind a call still out for this market (latency, a 429 back-off): the
    // orders resting untouched by that call are cancelled now; the queued set below then deals
    // with whatever the call leaves behind.
    if (desired.length === 0 && this.chains.has(k)) void this.track(this.pullNow(marketId));
    return this.enqueue(marketId, { desired, checkedAt });
  }

  /** Queue a set for the market's chain: run next, or replace the set already waiting there. */
  private enqueue(marketId: Bytes32, set: DesiredSet): Promise<void> {
    const k = lower(marketId);
    const wasQueued = this.queued.has(k);
    this.queued.set(k, set);
    if (wasQueued) return this.chains.get(k)!;
    const prev = this.chains.get(k) ?? Promise.resolve();
    const run = prev.then(async () => {
      await this.gate;
      const want = this.queued.get(k)!;
      this.queued.delete(k);
      await this.track(this.syncNow(marketId, want));
    });
    this.chains.set(k, run);
    void run.finally(() => {
      if (this.chains.get(k) === run) this.chains.delete(k);
    });
    return run;
  }

  /** Cancel a market's resting orders that no call has in hand (see sync). */
  private async pullNow(marketId: Bytes32): Promise<void> {
    if (this.halted) return;
    const resting: TrackedOrder[] = [];
    for (const e of this.entries.ofMarket(lower(marketId))) if (e.state === 'working') resting.push(e);
    for (let i = 0; i < resting.length; i += this.venue.batchLimit) {
      const nonces = resting.slice(i, i + this.venue.batchLimit).map((t) => this.startCancel(marketId, t));
      this.applyAnswers([], nonces, await this.callBatch([], nonces, marketId));
    }
  }

  private async track(p: Promise<void>): Promise<void> {
    this.running.add(p);
    try {
      await p;
    } catch (err) {
      await this.onUnexpected(err);
    } finally {
      this.running.delete(p);
    }
  }

  private async onUnexpected(err: unknown): Promise<void> {
    if (err instanceof InvariantError) {
      await this.halt(err);
      return;
    }
    this.log.error({ err: err instanceof Error ? { message: err.message, code: (err as BookmakerError).code } : String(err) }, 'order manager step failed');
  }

  private async syncNow(marketId: Bytes32, set: DesiredSet): Promise<void> {
    if (this.stopping || this.halted) return;
    const { desired, checkedAt } = set;
    const k = lower(marketId);
    this.lastDesired.set(k, set);
    this.flagTimeouts(marketId);
    if (this.needsReconcile.has(k) && this.clock.now() >= (this.nextReconcileAt.get(k) ?? 0)) {
      // throttled: while the venue cannot list orders, do not add a listing call to every tick
      this.nextReconcileAt.set(k, this.clock.now() + (this.opts.reconcileMinIntervalMs ?? 1000));
      await this.reconcileNow(marketId, undefined);
    }
    await this.resendRetries(marketId);
    if (this.stopping || this.halted) return;

    const now = this.clock.now();
    // a pull queued behind this set while it waited wins: nothing new goes out for a market being pulled
    const pulled = this.queued.get(k)?.desired.length === 0;
    const effective = this.blocked.has(k) || pulled ? [] : this.cooldown.size === 0 ? desired : desired.filter((d) => !this.coolingDown(d.slot, now));
    // the live entries, not copies: diff reads them now, and the actions use only their planned order
    let actions = diff(effective, this.trackedEntries(k), this.tol, Math.floor(now / 1000));
    if (actions.some(createsForKept)) actions = actions.flatMap(withoutCreateForKept);
    if (checkedAt !== undefined && checkedAt < (this.exposureSeq.get(k) ?? 0) && actions.some((a) => a.kind !== 'cancel')) {
      // The exposure moved after this set passed the risk gate (a fill, a position sync, an order
      // gone): the gate counted orders and a position that are no longer so, and topping up or
      // re-placing now could go past the limit. Only cancels go; the tick the change triggers
      // brings a set checked against the new state.
      actions = actions.filter((a) => a.kind === 'cancel');
    }
    if (now < this.backoffUntil) {
      const kept = actions.filter((a) => a.kind === 'cancel');
      const shed = actions.length - kept.length;
      if (shed > 0) this.emit({ type: 'VenueBackedOff', until: this.backoffUntil, shed, ts: now });
      actions = kept;
    }
    for (const call of planCalls(actions, this.venue.batchLimit)) {
      await this.execute(marketId, call);
      if (this.pendingHalt) break;
    }
    if (this.pendingHalt) throw new InvariantError(`venue refused every create: ${this.pendingHalt.message}`, { cause: this.pendingHalt });
  }

  /** One market's entries as they are (the diff's input on every sync; see tracked() for copies). */
  private trackedEntries(marketKey: string): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const e of this.entries.ofMarket(marketKey)) out.push(e);
    return out;
  }

  private coolingDown(slot: string, now: number): boolean {
    const until = this.cooldown.get(slot);
    if (until === undefined) return false;
    if (now < until) return true;
    this.cooldown.delete(slot);
    return false;
  }

  /** In-flight entries nobody answered in time are settled by the next reconciliation. */
  private flagTimeouts(marketId: Bytes32): void {
    const limit = this.opts.inFlightTimeoutMs ?? 10_000;
    const now = this.clock.now();
    for (const e of this.entries.ofMarket(lower(marketId))) {
      if (e.state === 'working') continue;
      if (now - e.sentAt >= limit && !e.resend) this.needsReconcile.add(lower(marketId));
    }
  }

  /**
   * Resend the creates marked for it. Not async itself: nearly every sync has nothing to resend,
   * and an already-resolved promise is awaited in the same single microtask hop as an async
   * function that returns at once, without allocating one.
   */
  private resendRetries(marketId: Bytes32): Promise<void> {
    if (this.clock.now() < this.backoffUntil) return RESOLVED;
    let again: Entry[] | null = null;
    for (const e of this.entries.ofMarket(lower(marketId))) if (e.resend) (again ??= []).push(e);
    if (again === null) return RESOLVED;
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
      const res = await this.callBatch(chunk.map((e) => e.planned), []);
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
    this.entries.set(lower(planned.nonce), { marketId, slot: d.slot, planned, remaining: planned.size, state: 'pending-create', sentAt: now, attempts: 0, resend: false });
    this.emit({ type: 'OrderSubmitted', marketId, slot: d.slot, nonce: planned.nonce, order: planned, retry: false, ts: now });
    return planned;
  }

  private startCancel(marketId: Bytes32, t: TrackedOrder): Bytes32 {
    const e = this.entries.get(lower(t.planned.nonce));
    const now = this.clock.now();
    if (e) {
      e.state = 'pending-cancel';
      e.sentAt = now;
    }
    this.emit({ type: 'CancelSubmitted', marketId, nonce: t.planned.nonce, ts: now });
    return t.planned.nonce;
  }

  private async execute(marketId: Bytes32, call: VenueCall): Promise<void> {
    if (call.kind === 'cancel-replace') {
      const { action } = call;
      const cancelNonce = this.startCancel(marketId, action.cancel);
      const planned = this.startCreate(marketId, action.desired);
      const t0 = this.clock.now();
      let res: { cancel: CancelOutcome; create: CreateOutcome };
      try {
        res = await this.venue.cancelReplace(cancelNonce, planned);
        this.emit({ type: 'VenueCallCompleted', call: 'cancel-replace', ok: !isRefusal(res.create), ms: this.clock.now() - t0, ts: this.clock.now() });
      } catch (err) {
        this.emit({ type: 'VenueCallCompleted', call: 'cancel-replace', ok: false, ms: this.clock.now() - t0, ts: this.clock.now() });
        this.retryAfterHint = classify(err).retryAfterMs ?? 0;
        const f = failedBatch([planned], [cancelNonce], err);
        res = { cancel: f.cancels[0]!, create: f.creates[0]! };
      }
      this.applyCancel(res.cancel);
      this.applyCreate(res.create);
      return;
    }
    const creates: PlannedOrder[] = [];
    const cancels: Bytes32[] = [];
    for (const a of call.actions) {
      if (a.kind !== 'create') cancels.push(this.startCancel(marketId, a.cancel));
      if (a.kind !== 'cancel') creates.push(this.startCreate(marketId, a.desired));
    }
    this.applyAnswers(creates, cancels, await this.callBatch(creates, cancels, marketId));
  }

  /** A batch's outcomes; items the venue did not answer for are treated as retryable failures. */
  private applyAnswers(creates: readonly PlannedOrder[], cancels: readonly Bytes32[], res: BatchResult): void {
    for (const o of res.cancels) this.applyCancel(o);
    for (const o of res.creates) this.applyCreate(o);
    const answered = new Set([...res.creates, ...res.cancels].map((o) => lower(o.nonce)));
    for (const p of creates) if (!answered.has(lower(p.nonce))) this.applyCreate({ ok: false, nonce: p.nonce, code: 'NO_ANSWER', message: 'no outcome', retryable: true });
    for (const n of cancels) if (!answered.has(lower(n))) this.applyCancel({ ok: false, nonce: n, code: 'NO_ANSWER', message: 'no outcome', retryable: true });
  }

  /** `marketId`: the one market of the call, when there is one (see VenuePort.batch). */
  private async callBatch(creates: PlannedOrder[], cancels: Bytes32[], marketId?: Bytes32): Promise<BatchResult> {
    const t0 = this.clock.now();
    try {
      const res = await (marketId === undefined ? this.venue.batch(creates, cancels) : this.venue.batch(creates, cancels, marketId));
      // a create the venue refused is a failed call for the error-rate kill switch
      this.emit({ type: 'VenueCallCompleted', call: 'batch', ok: !res.creates.some(isRefusal), ms: this.clock.now() - t0, ts: this.clock.now() });
      return res;
    } catch (err) {
      this.emit({ type: 'VenueCallCompleted', call: 'batch', ok: false, ms: this.clock.now() - t0, ts: this.clock.now() });
      this.retryAfterHint = classify(err).retryAfterMs ?? 0;
      return failedBatch(creates, cancels, err);
    }
  }

  private applyCreate(o: CreateOutcome): void {
    const k = lower(o.nonce);
    const e = this.entries.get(k);
    if (!e) return;
    const now = this.clock.now();
    if (o.ok || DUPLICATE_CODES.has(o.code)) {
      this.backoffStep = 0;
      if (e.state === 'pending-create') e.state = 'working';
      // a fill the answer shows (the order crossed on arrival) changes nothing here: the order
      // counts at its size until the fills feed reports it (see countedShares)
      this.emit({ type: 'OrderAccepted', marketId: e.marketId, nonce: e.planned.nonce, duplicate: o.ok ? o.duplicate : true, ts: now });
      if (e.remaining === 0 && e.state === 'working') this.entries.delete(k);
      return;
    }
    const said = { message: o.message, ...(o.status !== undefined ? { status: o.status } : {}), ...(o.venueCode ? { venueCode: o.venueCode } : {}) };
    const reject = (reason: string, retryable: boolean, mayHaveLanded = false): void =>
      this.emit({ type: 'OrderRejected', marketId: e.marketId, slot: e.slot, nonce: e.planned.nonce, reason, retryable, mayHaveLanded, ...said, ts: now });
    const fatal = fatalRefusal(o);
    // After a lost answer the order may already be open from an earlier send: whatever a resend is
    // told, such an order is never forgotten here — it stays in flight until a reconciliation or a
    // later answer settles it, so its slot cannot be quoted twice.
    const mayExist = e.attempts > 0;
    const settleLater = (): void => {
      e.resend = false;
      this.needsReconcile.add(lower(e.marketId));
    };
    if (HALT_CODES.has(o.code) || fatal) {
      // no create can get past this refusal (bad key, key of another wallet, bad signature): halt
      if (mayExist) settleLater();
      else this.entries.delete(k);
      reject(o.code, false, mayExist);
      this.pendingHalt ??= fatal ? new VenueRefusedError(fatal) : new BookmakerError('SIGNING', `create refused: ${o.code}`);
    } else if (o.migration || MIGRATION_CODES.has(o.code)) {
      if (mayExist) settleLater();
      else this.entries.delete(k);
      reject('migration', false, mayExist);
      this.block(e.marketId);
    } else if (RATE_LIMIT_CODES.has(o.code)) {
      // A 429 is refused before processing: this send placed nothing. A first send frees the slot;
      // a resend is tried again after the back-off.
      if (mayExist) e.resend = true;
      else this.entries.delete(k);
      reject('rate_limited', true, mayExist);
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
      this.entries.delete(k);
      reject(o.code, false);
      this.cooldown.set(e.slot, now + (this.opts.rejectCooldownMs ?? 1000));
    }
  }

  private applyCancel(o: CancelOutcome): void {
    const k = lower(o.nonce);
    const e = this.entries.get(k);
    if (!e) return;
    const now = this.clock.now();
    if (o.ok) {
      // a fill may have raced the cancel: park until the feeds have reported it
      this.park(k, e, { type: 'OrderCancelled', marketId: e.marketId, nonce: e.planned.nonce, alreadyCancelled: o.alreadyCancelled, ts: now }, now);
      return;
    }
    this.emit({ type: 'CancelFailed', marketId: e.marketId, nonce: e.planned.nonce, reason: o.code, retryable: o.retryable, ts: now });
    if (RATE_LIMIT_CODES.has(o.code)) this.startBackoff(now);
    if (o.retryable) {
      e.state = 'working'; // the next diff cancels it again if it is still unwanted
      this.retryCancelSoon(e, RATE_LIMIT_CODES.has(o.code));
    } else {
      // refused for good, most often because the order is no longer open: it filled, and those
      // fills may not be in the position yet, so it is parked (still counted) like an order found gone
      this.needsReconcile.add(lower(e.marketId));
      this.exposureChanged(e.marketId);
      this.park(k, e, { type: 'OrderGone', marketId: e.marketId, nonce: e.planned.nonce, ts: now }, now);
    }
  }

  /**
   * A cancel that failed for now (5xx, 429, no answer) is tried again within a fraction of a second
   * rather than at the market's next tick: a pull is what the staleness limit measures, and during a
   * silent stall only the 1 s housekeeping ticks come. The retry re-diffs the market's latest set,
   * so an order wanted again meanwhile is left alone. At most 3 quick retries per order; after that
   * the ticks carry on.
   */
  private retryCancelSoon(e: Entry, rateLimited: boolean): void {
    e.cancelRetries = (e.cancelRetries ?? 0) + 1;
    const k = lower(e.marketId);
    if (e.cancelRetries > 3 || this.stopping || this.halted || this.cancelRetryTimers.has(k)) return;
    const marketId = e.marketId;
    const cancel = this.clock.setTimeout(
      () => {
        this.cancelRetryTimers.delete(k);
        // a set already queued re-diffs the market anyway; otherwise the latest set runs again, after
        // any call still out for the market (no pull fast path: that call's answer comes first)
        const set = this.lastDesired.get(k);
        if (!set || this.stopping || this.halted || this.queued.has(k)) return;
        void this.enqueue(marketId, set);
      },
      rateLimited ? 300 : 150,
    );
    this.cancelRetryTimers.set(k, cancel);
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
    if (this.blocked.has(lower(marketId))) return;
    this.blocked.add(lower(marketId));
    this.log.warn({ marketId }, 'venue answered 409 migration: quoting stopped in this market until migration completes');
    this.emit({ type: 'MarketBlocked', marketId, reason: 'migration', ts: this.clock.now() });
  }

  /**
   * Compare our books with the venue's open orders: confirm, adopt into free desired slots, cancel
   * strangers and forget what is gone. `desired` (all markets) defaults to the last synced sets;
   * at start-up pass the strategies' first quotes so matching orders are adopted instead of
   * cancelled. Returns false when the venue could not be read.
   */
  reconcile(marketId?: Bytes32, desired?: readonly DesiredOrder[]): Promise<boolean> {
    const run = this.reconcileChain.then(async () => {
      let release!: () => void;
      this.gate = new Promise<void>((r) => (release = r));
      try {
        await Promise.allSettled([...this.running]);
        return await this.reconcileNow(marketId, desired);
      } finally {
        release();
      }
    });
    this.reconcileChain = run.catch(() => undefined);
    return run.catch(async (err) => {
      await this.onUnexpected(err);
      return false;
    });
  }

  private async reconcileNow(marketId: Bytes32 | undefined, desiredArg: readonly DesiredOrder[] | undefined): Promise<boolean> {
    const t0 = this.clock.now();
    let open: VenueOrder[];
    try {
      open = await this.venue.openOrders(marketId);
      this.emit({ type: 'VenueCallCompleted', call: 'open-orders', ok: true, ms: this.clock.now() - t0, ts: this.clock.now() });
    } catch (err) {
      this.emit({ type: 'VenueCallCompleted', call: 'open-orders', ok: false, ms: this.clock.now() - t0, ts: this.clock.now() });
      this.log.warn({ err: errInfo(err) }, 'reconcile: could not list open orders');
      return false;
    }
    const inScope = (m: string): boolean => (marketId === undefined || lower(m) === lower(marketId)) && this.owns(m);
    const desired = (desiredArg ?? [...this.lastDesired.values()].flatMap((s) => s.desired)).filter((d) => inScope(d.order.marketId) && !this.blocked.has(lower(d.order.marketId)));
    const tracked = this.tracked(marketId);
    const plan = planReconcile(open.filter((o) => inScope(o.marketId)), tracked, desired, this.tol, this.clock.now(), this.opts.inFlightTimeoutMs ?? 10_000);
    const now = this.clock.now();

    for (const n of plan.confirm) {
      const e = this.entries.get(lower(n))!;
      if (e.state === 'pending-create') {
        e.state = 'working';
        e.resend = false;
        this.emit({ type: 'OrderAccepted', marketId: e.marketId, nonce: e.planned.nonce, duplicate: false, ts: now });
      }
      // a partial fill the list shows is not applied: the fills feed reports it (see countedShares)
    }
    for (const t of plan.forget) {
      // gone from the venue without our cancel landing: filled, expired or voided; fills it had
      // may not be in the position yet, so it is parked rather than forgotten
      const k = lower(t.planned.nonce);
      const e = this.entries.get(k);
      if (!e) continue;
      this.exposureChanged(e.marketId);
      this.park(k, e, { type: 'OrderGone', marketId: e.marketId, nonce: e.planned.nonce, ts: now }, now);
    }
    // A found order is counted at its whole size, less the fills the feed reports from now on: its
    // fills so far may reach the position (balance poll) before or after the feed reports them, so
    // counting only what rests now would drop a fill reported late from the worst case. Counting
    // the whole size errs the safe way when those fills were in the position already.
    const found = (o: VenueOrder, slot: string, state: Entry['state']): void => {
      const resting = plannedFromVenue(o);
      const planned = { ...resting, size: Math.max(resting.size, totalShares(o)) };
      if (!this.nonces.has(planned.nonce)) this.nonces.remember(planned.nonce);
      this.entries.set(lower(o.nonce), { marketId: o.marketId, slot, planned, remaining: planned.size, state, sentAt: now, attempts: 0, resend: false });
      this.emit({ type: 'OrderAdopted', marketId: o.marketId, slot, nonce: planned.nonce, order: planned, remaining: planned.size, ts: now });
    };
    for (const a of plan.adopt) found(a.order, a.slot, 'working');
    for (const o of plan.cancel) {
      // an order this run did not place and does not want: say so (once per order), with its market (issue 11)
      if (this.toldStrangers.size > 10_000) this.toldStrangers.clear();
      if (!this.toldStrangers.has(lower(o.nonce))) this.log.warn(
        { marketId: o.marketId, nonce: o.nonce, outcome: o.outcomeIndex, side: o.side === 0 ? 'buy' : 'sell', price: o.price, scope: this.ownMarkets() ? 'markets' : 'wallet' },
        'reconcile: cancelling an open order this bot did not place (or no longer wants)',
      );
      this.toldStrangers.add(lower(o.nonce));
      // a stranger on its way out still counts until its cancel is answered and its fills are in
      found(o, `orphan:${lower(o.nonce)}`, 'pending-cancel');
      this.emit({ type: 'CancelSubmitted', marketId: o.marketId, nonce: o.nonce, ts: now });
    }
    const nonces = plan.cancel.map((o) => o.nonce);
    for (let i = 0; i < nonces.length; i += this.venue.batchLimit) {
      const chunk = nonces.slice(i, i + this.venue.batchLimit);
      const res = await this.callBatch([], chunk);
      for (const o of res.cancels) this.applyCancel(o);
    }
    if (marketId === undefined) this.needsReconcile.clear();
    else this.needsReconcile.delete(lower(marketId));
    this.reconciledOnce = true;
    this.log.info({ marketId: marketId ?? 'all', adopted: plan.adopt.length, cancelled: plan.cancel.length, forgotten: plan.forget.length }, 'reconciled with venue');
    this.emit({ type: 'OrdersReconciled', marketId: marketId ?? null, adopted: plan.adopt.length, cancelled: plan.cancel.length, dropped: plan.forget.length, ts: now });
    return true;
  }

  /**
   * Cancel every open order of the trader and stop creating new ones. Lists the venue's open
   * orders and cancels them in batches until the venue reports none, at most `cancelAllRounds`
   * times. Creates already on the wire are awaited (bounded) first so they cannot land afterwards.
   */
  async cancelAll(): Promise<CancelAllResult> {
    this.stopping = true;
    this.queued.clear();
    for (const cancel of this.cancelRetryTimers.values()) cancel();
    this.cancelRetryTimers.clear();
    const rounds = this.opts.cancelAllRounds ?? 5;
    const pause = this.opts.cancelAllDelayMs ?? 250;
    await this.waitRunning(this.opts.inFlightTimeoutMs ?? 10_000);
    let cancelled = 0;
    let remaining = -1;
    for (let round = 1; round <= rounds; round++) {
      let open: VenueOrder[];
      try {
        open = (await this.venue.openOrders()).filter((o) => o.status === 'open' && this.owns(o.marketId));
      } catch (err) {
        this.log.warn({ err: errInfo(err), round }, 'cancelAll: could not list open orders');
        await this.sleep(pause);
        continue;
      }
      remaining = open.length;
      if (open.length === 0) {
        this.entries.clear();
        for (const k of [...this.parked.keys()]) this.unpark(k);
        this.log.info({ rounds: round, cancelled }, 'cancelAll: no open orders at the venue');
        return { ok: true, rounds: round, cancelled, remaining: 0 };
      }
      const nonces = open.map((o) => o.nonce);
      for (let i = 0; i < nonces.length; i += this.venue.batchLimit) {
        const res = await this.callBatch([], nonces.slice(i, i + this.venue.batchLimit));
        for (const c of res.cancels) {
          if (c.ok) {
            cancelled++;
            const e = this.entries.get(lower(c.nonce));
            this.entries.delete(lower(c.nonce));
            this.emit({ type: 'OrderCancelled', marketId: e?.marketId ?? open.find((o) => lower(o.nonce) === lower(c.nonce))!.marketId, nonce: c.nonce, alreadyCancelled: c.alreadyCancelled, ts: this.clock.now() });
          }
        }
      }
      if (round < rounds) await this.sleep(pause);
    }
    this.log.error({ rounds, remaining }, 'cancelAll: orders still open after the last round');
    return { ok: false, rounds, cancelled, remaining: Math.max(remaining, 0) };
  }

  /** An order in this market is the bot's to manage (reconcileScope). */
  private owns(marketId: string): boolean {
    if (this.ownSet === undefined) this.ownSet = this.opts.ownMarkets ? new Set(this.opts.ownMarkets.map(lower)) : null;
    return this.ownSet === null || this.ownSet.has(lower(marketId));
  }
  /** undefined until first read (then from `ownMarkets`); null = the whole wallet is the bot's */
  private ownSet: Set<string> | null | undefined = undefined;

  /**
   * reconcileScope `markets` with a changing set of markets (rotation, reload, shards): from now on
   * only open orders in `ids` are the bot's; null makes the whole wallet the bot's again.
   */
  setOwnMarkets(ids: readonly string[] | null): void {
    this.ownSet = ids === null ? null : new Set(ids.map(lower));
  }
  /**
   * Market rotation released a market whose cancels the venue confirmed: forget what is kept per
   * market (last desired set, exposure version, block, reconcile debt, cancel retry, cool-downs).
   * Refused (false) while anything of it is pending (see isIdle); parked orders are not touched.
   */
  forgetMarket(marketId: Bytes32): boolean {
    if (!this.isIdle(marketId)) return false;
    const k = lower(marketId);
    this.lastDesired.delete(k);
    this.exposureSeq.delete(k);
    this.blocked.delete(k);
    this.needsReconcile.delete(k);
    this.nextReconcileAt.delete(k);
    this.cancelRetryTimers.get(k)?.();
    this.cancelRetryTimers.delete(k);
    if (this.cooldown.size > 0) for (const slot of [...this.cooldown.keys()]) if (slot.startsWith(`${k}:`)) this.cooldown.delete(slot);
    return true;
  }

  /** A sync queued or running, or a reconcile owed, for this market (orders may still move). */
  hasPendingWork(marketId: Bytes32): boolean {
    const k = lower(marketId);
    return this.needsReconcile.has(k) || this.queued.has(k) || this.chains.has(k);
  }

  /** Per-market entries held now (tests: nothing left behind after retirements). */
  get heldMarketState(): number {
    return this.lastDesired.size + this.exposureSeq.size + this.blocked.size + this.needsReconcile.size + this.nextReconcileAt.size + this.cancelRetryTimers.size + this.cooldown.size + this.chains.size + this.queued.size + this.entries.size + this.parked.size;
  }

  /** the markets whose orders are the bot's, or null for the whole wallet */
  ownMarkets(): string[] | null {
    if (this.ownSet === undefined) this.owns('');
    return this.ownSet ? [...this.ownSet] : null;
  }
  private readonly toldStrangers = new Set<string>();

  /** A broken invariant: cancel everything, refuse further work, tell the runtime. */
  async halt(err: Error): Promise<CancelAllResult> {
    if (this.halted) return { ok: false, rounds: 0, cancelled: 0, remaining: -1 };
    this.halted = true;
    this.log.fatal({ err: errInfo(err) }, 'halting: cancelling all orders');
    const result = await this.cancelAll();
    this.opts.onHalt?.(err, result);
    return result;
  }

  private async waitRunning(limitMs: number): Promise<void> {
    if (this.running.size === 0) return;
    let cancelTimer = (): void => undefined;
    const timeout = new Promise<void>((r) => (cancelTimer = this.clock.setTimeout(r, limitMs)));
    await Promise.race([Promise.allSettled([...this.running]), timeout]);
    cancelTimer();
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((r) => this.clock.setTimeout(r, ms));
  }

  private emit(e: OrderManagerEvent): void {
    if (!this.opts.emit) return;
    try {
      this.opts.emit(e);
    } catch (err) {
      this.log.error({ err: errInfo(err), event: e.type }, 'event listener threw');
    }
  }
}

/** A create the venue answered with a refusal (4xx other than a rate limit or a duplicate). */
function isRefusal(c: CreateOutcome): boolean {
  return !c.ok && c.status !== undefined && c.status >= 400 && c.status < 500 && c.status !== 429 && !DUPLICATE_CODES.has(c.code);
}

/** A create (or the create half of a replace) for a quote the risk gate took as a live order. */
function createsForKept(a: DiffAction): boolean {
  return a.kind !== 'cancel' && a.desired.keeps !== undefined;
}

/**
 * Such an action without its create. The gate counted the quote once, as the order it keeps; an
 * order placed for it now (a dead-man refresh, a change of venue form, the order gone meanwhile)
 * would be exposure nobody checked — and if the old order had filled unseen, real exposure past
 * the limit. The old order is cancelled; the tick after, which counts the quote as new, places it.
 */
function withoutCreateForKept(a: DiffAction): DiffAction[] {
  if (!createsForKept(a)) return [a];
  return a.kind === 'replace' ? [{ kind: 'cancel', slot: a.slot, cancel: a.cancel }] : [];
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
    if (expiry === undefined) return { marketId: o.marketId, size: o.size, outcomeIndex: o.outcomeIndex, side: o.side, price: o.price, inventoryMode: o.inventoryMode!, nonce };
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
  const code = c.reason === 'unknown' && err instanceof BookmakerError ? err.code : c.reason;
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

function errInfo(err: unknown): { message: string; code?: string } {
  if (err instanceof BookmakerError) return { message: err.message, code: err.code };
  return { message: err instanceof Error ? err.message : String(err) };
}
