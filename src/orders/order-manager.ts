/**
 * The order manager (docs/architecture.md#the-pipeline): keeps each market's orders where the strategy
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
 * In parts: this file schedules the work (per-market chains that coalesce desired sets, the
 * reconcile gate, halt and shutdown) and diffs each set; the order table (order-table.ts) holds our
 * orders, parked orders and exposure versions; the executor (executor.ts) sends the calls and reads
 * their outcomes, with back-off and retries (its header lists the failure handling per outcome);
 * the reconciler (reconciler.ts) compares the table with the venue's list and cancels all.
 */
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { BadInputError, InvariantError, type BookmakerError } from '../model/errors.ts';
import type { Bytes32 } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';
import type { FeeSpec } from '../engine/fill-fee.ts';
import type { OrderManagerEvent } from '../state/events.ts';
import { diff, diffIsEmpty, type DesiredOrder, type DiffAction, type Tolerances, type TrackedOrder } from './diff.ts';
import { errInfo, NOTHING_TO_RESEND, OrderExecutor, type CallOut } from './executor.ts';
import { InFlight } from './in-flight.ts';
import { NonceSource } from './nonces.ts';
import { OrderTable } from './order-table.ts';
import { planCalls } from './plan-calls.ts';
import { Reconciler, type CancelAllResult, type DesiredSet, type EndedAtStop, type OrderRecord } from './reconciler.ts';
import type { Entry } from './tracked-orders.ts';

export { failedBatch } from './executor.ts';
export type { CancelAllResult, EndedAtStop } from './reconciler.ts';

export interface OrderManagerOptions {
  venue: VenuePort;
  clock: Clock;
  tolerances: Tolerances;
  logger?: Logger;
  emit?: (e: OrderManagerEvent) => void;
  /**
   * Several events at once, in order: what one step of a venue call emitted (its creates and
   * cancels as it goes out, its answers as they come back). The kernel reduces them together
   * (docs/performance.md). Omitted: each goes to `emit`.
   */
  emitAll?: (es: readonly OrderManagerEvent[]) => void;
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
  /**
   * The fee model (the fills feed's): a found V2 buy's remaining shares are its minSharesOut less the
   * shares its spent budget bought, the fee taken out (src/orders/venue-order-shares.ts). Default: no fees.
   */
  fees?: FeeSpec;
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
  /** what the books know of an open order this run does not track (the reconcile warning says it); omitted: nothing */
  orderRecord?: (nonce: Bytes32) => OrderRecord;
}

export class OrderManager {
  private readonly venue: VenuePort;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly tol: Tolerances;
  private readonly opts: OrderManagerOptions;

  /** our orders, parked orders, exposure versions and reconcile debts */
  private readonly table: OrderTable;
  /** sends the calls and reads their outcomes (blocks, cool-downs, back-off) */
  private readonly exec: OrderExecutor;
  private readonly rec: Reconciler;

  /** per market: the last desired set synced, with the exposure version it was risk-checked at (see sync) */
  private readonly lastDesired = new Map<string, DesiredSet>();
  /** per market: a quick retry of a failed cancel is scheduled (see retryCancelSoon) */
  private readonly cancelRetryTimers = new Map<string, () => void>();
  private readonly nextReconcileAt = new Map<string, number>();

  /**
   * Per market: its chain of syncs and the set queued for it (see Lane). A market's lane stays while
   * the market does (forgetMarket drops it): a chain and a queued set come and go with every venue
   * call, and two maps set and deleted per call cost more than the fields of one record.
   */
  private readonly lanes = new Map<string, Lane>();
  /** lanes with a chain, and with a queued set (what the two maps' sizes were: the per-tick checks read them before any lookup) */
  private chainsOut = 0;
  private queuedOut = 0;
  /** syncs and pulls running (a reconcile waits for them): an InFlight, not a Set of fresh promises (src/orders/in-flight.ts) */
  private readonly running = new InFlight();
  private gate: Promise<void> = Promise.resolve();
  /** a reconcile holds the gate (made and not yet released) */
  private gateShut = false;
  private reconcileChain: Promise<unknown> = Promise.resolve();
  /** reconciles asked for and not finished: while any is, every sync waits behind it (see settledNow) */
  private reconciles = 0;
  private readonly reconcileDone = (): void => {
    this.reconciles--;
  };

  private stopping = false;
  private halted = false;
  /** events held while a step runs (see together); null: events go out at once */
  private held: OrderManagerEvent[] | null = null;

  constructor(opts: OrderManagerOptions) {
    this.opts = opts;
    this.venue = opts.venue;
    this.clock = opts.clock;
    this.log = (opts.logger ?? silentLogger).child({ component: 'orders' });
    const nonces = opts.nonces ?? new NonceSource();
    const refresh = opts.tolerances.refreshBeforeSec ?? (opts.deadManSeconds ? Math.floor(opts.deadManSeconds / 2) : undefined);
    // objects read on every sync are built with their keys written out, no spreads (an object built
    // with spreads has a map of its own per order manager: src/kernel/trading-core.ts)
    const t = opts.tolerances;
    this.tol = refresh === undefined ? t : { price: t.price, sizeFraction: t.sizeFraction, sizeAbs: t.sizeAbs, refreshBeforeSec: refresh };
    const emit = (e: OrderManagerEvent): void => this.emit(e);
    this.table = new OrderTable(this.clock, emit, opts.settleMs ?? 0);
    const parts = { venue: this.venue, clock: this.clock, log: this.log, emit, nonces, table: this.table, opts };
    this.exec = new OrderExecutor({
      ...parts,
      retryCancelSoon: (e, rateLimited) => this.retryCancelSoon(e, rateLimited),
      together: (step) => this.together(step),
    });
    this.rec = new Reconciler({
      venue: this.venue,
      clock: this.clock,
      log: this.log,
      emit,
      nonces,
      table: this.table,
      opts,
      exec: this.exec,
      tol: this.tol,
      lastDesired: this.lastDesired,
    });
  }

  /** Reconciled at least once, not halted and not stopping (feeds /readyz). */
  get ready(): boolean {
    return this.rec.reconciledOnce && !this.halted && !this.stopping;
  }
  /** At least one reconciliation with the venue succeeded. */
  get reconciled(): boolean {
    return this.rec.reconciledOnce;
  }
  get isHalted(): boolean {
    return this.halted;
  }
  isBlocked(marketId: Bytes32): boolean {
    return this.exec.blocked.has(marketId);
  }
  backedOffUntil(): number {
    return this.exec.backoffUntil;
  }

  /** Our orders (working and in flight), optionally for one market. */
  tracked(marketId?: Bytes32): TrackedOrder[] {
    return this.table.tracked(marketId);
  }

  /**
   * One market's orders as the manager holds them, not copies: read at once, never changed or kept
   * by the caller (the kernel's still-market check, every housekeeping round of a market). The same
   * list until the market's orders change.
   */
  trackedNow(marketId: Bytes32): readonly TrackedOrder[] {
    return this.table.trackedEntries(marketId);
  }

  /** A fill seen on a feed: shrink the order's remaining size (removed when nothing is left). */
  applyFill(nonce: Bytes32, size: number): void {
    this.table.applyFill(nonce, size);
  }

  /**
   * A feed saw the order closed at the venue, having reported its fills first: a parked order
   * stops counting now instead of at the end of `settleMs`.
   */
  settle(nonce: Bytes32): void {
    this.table.settle(nonce);
  }

  /**
   * Nothing pending for this market: no order tracked or parked, no reconcile owed and no sync
   * queued or running. A tick that desires nothing for such a market has nothing to do here.
   */
  isIdle(marketId: Bytes32): boolean {
    const k = marketId;
    const lane = this.lanes.get(k);
    if (this.table.needsReconcile.has(k) || (lane !== undefined && (lane.queued !== null || lane.chain !== null))) return false;
    return this.table.holdsNothing(k);
  }

  /**
   * How many times this market's exposure changed in ways no desired set asked for: fills, a
   * position sync (`exposureChanged`), an order found gone or refused a cancel for good. Pass it
   * with a desired set to `sync` (see there).
   */
  exposureVersion(marketId: Bytes32): number {
    return this.table.exposureVersion(marketId);
  }

  /**
   * Something moved this market's exposure behind the risk gate's back (the kernel calls it on a
   * position sync; fills and orders found gone call it here): desired sets checked before it may
   * only cancel.
   */
  exposureChanged(marketId: Bytes32): void {
    this.table.exposureChanged(marketId);
  }

  /** Is the order still tracked here (working, in flight, or parked)? */
  knows(nonce: Bytes32): boolean {
    return this.table.knows(nonce);
  }

  /** The tolerances the diff keeps orders within (refresh included), for callers that predict it. */
  get tolerances(): Tolerances {
    return this.tol;
  }

  /** A cancelled or vanished order is parked until its fills are known (settleMs > 0). */
  get parksEndedOrders(): boolean {
    return this.table.parksEndedOrders;
  }

  /** Orders parked now (tests, metrics). */
  get parkedCount(): number {
    return this.table.parkedCount;
  }

  /**
   * A positions read of this market begun at `startedAt` has reached the store: parked orders of
   * the market that left the book at least `settleMs` before it are in that position now, fills
   * and all, and stop counting. Returns whether one did (its exposure changed).
   */
  positionsRead(marketId: Bytes32, startedAt: number): boolean {
    return this.table.positionsRead(marketId, startedAt);
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
    if (this.exec.blocked.delete(marketId)) this.emit({ type: 'MarketUnblocked', marketId, ts: this.clock.now() });
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
    const k = marketId;
    for (let i = 0; i < desired.length; i++) {
      const m = desired[i]!.order.marketId;
      if (m !== marketId) throw new BadInputError(`desired[${i}].order.marketId`, marketId, m);
    }
    // A pull does not wait behind a call still out for this market (latency, a 429 back-off): the
    // orders resting untouched by that call are cancelled now; the queued set below then deals
    // with whatever the call leaves behind.
    // (`size` first: on the per-tick path these sets and maps are nearly always empty, and a string key's lookup costs more)
    const chained = this.chainsOut !== 0 && this.lanes.get(k)?.chain != null;
    if (desired.length === 0 && chained) void this.track(this.pullNow(marketId));
    if (!chained && this.reconciles === 0 && this.settledNow(marketId, desired, checkedAt)) return SYNCED;
    return this.enqueue(marketId, { desired, checkedAt });
  }

  /**
   * The common tick: the market's chain is idle, no reconcile is asked or running, and the set
   * matches what rests (the diff finds nothing to do). What the chain would have done a few
   * microtask hops later is done here, at once: the set becomes the market's last, nothing goes
   * to the venue. False (and nothing done): the set needs a call, a resend, a reconcile (owed, or
   * about to be for a call unanswered too long) or the stop path, so it goes through the chain as before.
   * A set settled here is not awaited by anyone: sync returns SYNCED, and the kernel does not keep it
   * as the market's pending sync.
   */
  private settledNow(marketId: Bytes32, desired: readonly DesiredOrder[], checkedAt: number | undefined): boolean {
    if (this.stopping || this.halted) return false;
    const k = marketId;
    const exec = this.exec;
    const now = this.clock.now();
    const owed = this.table.needsReconcile;
    if (owed.size !== 0 && owed.has(k) && now >= (this.nextReconcileAt.get(k) ?? 0)) return false;
    // one pass over the market's orders: a create to resend, or a call unanswered past the time-out
    // (flagTimeouts would owe the market a reconcile), is the chain's work
    const held = this.table.trackedEntries(k);
    const limit = this.opts.inFlightTimeoutMs ?? 10_000;
    for (let i = 0; i < held.length; i++) {
      const e = held[i]!;
      if (e.resend || (e.state !== 'working' && now - e.sentAt >= limit)) return false;
    }
    const effective =
      exec.blocked.size !== 0 && exec.blocked.has(k) ? NO_DESIRED : exec.cooldown.size === 0 ? desired : desired.filter((d) => !exec.coolingDown(d.slot, now));
    if (diffIsEmpty(effective, held, this.tol, Math.floor(now / 1000)) === false) return false;
    // the market's last set: the one kept already when it is the same list checked at the same version
    // (the desired-orders memo hands the same list while the quotes stay: most ticks)
    const last = this.lastDesired.get(k);
    if (last === undefined || last.desired !== desired || last.checkedAt !== checkedAt) this.lastDesired.set(k, { desired, checkedAt });
    return true;
  }

  /** Queue a set for the market's chain: run next, or replace the set already waiting there. */
  private enqueue(marketId: Bytes32, set: DesiredSet): Promise<void> {
    const k = marketId;
    let lane = this.lanes.get(k);
    if (lane === undefined) this.lanes.set(k, (lane = { chain: null, queued: null }));
    const wasQueued = lane.queued !== null;
    lane.queued = set;
    if (wasQueued) return lane.chain!;
    this.queuedOut++;
    const run = this.runQueued(marketId, lane, lane.chain ?? IDLE);
    if (lane.chain === null) this.chainsOut++;
    lane.chain = run;
    return run;
  }

  /**
   * One run of a market's chain: after the run before it (`prev`; an idle market's chain starts a
   * microtask later, so every sync of this turn coalesces into the set it takes), past the reconcile
   * gate, the newest queued set is synced, tracked as `track` does. One async function where a
   * `then` callback, an async arrow and `track` were three: the same steps at the same points, with
   * three promises and about four microtask turns fewer per venue call. The run ends the market's
   * chain itself (a then() on it did: a promise and a microtask more per venue call).
   */
  private async runQueued(marketId: Bytes32, lane: Lane, prev: Promise<void>): Promise<void> {
    try {
      await prev;
      // an open gate (no reconcile running: nearly always) is passed without a microtask hop
      if (this.gateShut) await this.gate;
      // (none when cancelAll cleared it meanwhile: syncNow then returns at once, stopping)
      const want = lane.queued!;
      if (want !== null) {
        lane.queued = null;
        this.queuedOut--;
      }
      const p = this.syncNow(marketId, want, lane);
      this.running.add(p);
      try {
        await p;
      } catch (err) {
        await this.onUnexpected(err);
      } finally {
        this.running.delete(p);
      }
    } finally {
      // The chain ends with this run unless a set was queued behind it: a sync while this run had
      // its set starts a run of its own that waits for this one (so cannot have taken the set yet),
      // and the chain is that run's now.
      if (lane.queued === null && lane.chain !== null) {
        lane.chain = null;
        this.chainsOut--;
      }
    }
  }

  /** Cancel a market's resting orders that no call has in hand (see sync). */
  private async pullNow(marketId: Bytes32): Promise<void> {
    if (this.halted) return;
    const resting: TrackedOrder[] = [];
    for (const e of this.table.entries.ofMarket(marketId)) if (e.state === 'working') resting.push(e);
    for (let i = 0; i < resting.length; i += this.venue.batchLimit) {
      const nonces = resting.slice(i, i + this.venue.batchLimit).map((t) => this.exec.startCancel(marketId, t));
      this.exec.applyAnswers([], nonces, await this.exec.callBatch([], nonces, marketId));
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

  private async syncNow(marketId: Bytes32, set: DesiredSet, lane: Lane): Promise<void> {
    if (this.stopping || this.halted) return;
    const { desired, checkedAt } = set;
    const k = marketId;
    const exec = this.exec;
    this.lastDesired.set(k, set);
    this.flagTimeouts(marketId);
    if (this.table.needsReconcile.has(k) && this.clock.now() >= (this.nextReconcileAt.get(k) ?? 0)) {
      // throttled: while the venue cannot list orders, do not add a listing call to every tick
      this.nextReconcileAt.set(k, this.clock.now() + (this.opts.reconcileMinIntervalMs ?? 1000));
      await this.rec.reconcileNow(marketId, undefined);
    }
    // nearly every sync has nothing to resend: no hop through the microtask queue for that
    const resent = exec.resendRetries(marketId);
    if (resent !== NOTHING_TO_RESEND) await resent;
    if (this.stopping || this.halted) return;

    const now = this.clock.now();
    // a pull queued behind this set while it waited wins: nothing new goes out for a market being pulled
    const pulled = lane.queued?.desired.length === 0;
    const effective = exec.blocked.has(k) || pulled ? [] : exec.cooldown.size === 0 ? desired : desired.filter((d) => !exec.coolingDown(d.slot, now));
    // the live entries, not copies: diff reads them now, and the actions use only their planned order
    let actions = diff(effective, this.table.trackedEntries(k), this.tol, Math.floor(now / 1000));
    if (actions.some(createsForKept)) actions = actions.flatMap(withoutCreateForKept);
    if (checkedAt !== undefined && checkedAt < this.table.versionOf(k) && actions.some((a) => a.kind !== 'cancel')) {
      // The exposure moved after this set passed the risk gate (a fill, a position sync, an order
      // gone): the gate counted orders and a position that are no longer so, and topping up or
      // re-placing now could go past the limit. Only cancels go; the tick the change triggers
      // brings a set checked against the new state.
      actions = actions.filter((a) => a.kind === 'cancel');
    }
    if (now < exec.backoffUntil) {
      const kept = actions.filter((a) => a.kind === 'cancel');
      const shed = actions.length - kept.length;
      if (shed > 0) this.emit({ type: 'VenueBackedOff', until: exec.backoffUntil, shed, ts: now });
      actions = kept;
    }
    for (const call of planCalls(actions, this.venue.batchLimit)) {
      // the call's two halves, its answer awaited here (no async function of its own: OrderExecutor.send)
      const out = exec.send(marketId, call);
      let res: Awaited<CallOut['answer']> | null = null;
      let failure: unknown = null;
      try {
        res = await out.answer;
      } catch (err) {
        failure = err;
      }
      exec.finish(out, res, failure);
      if (exec.pendingHalt) break;
    }
    if (exec.pendingHalt) throw new InvariantError(`venue refused every create: ${exec.pendingHalt.message}`, { cause: exec.pendingHalt });
  }

  /** In-flight entries nobody answered in time are settled by the next reconciliation. */
  private flagTimeouts(marketId: Bytes32): void {
    const limit = this.opts.inFlightTimeoutMs ?? 10_000;
    const now = this.clock.now();
    const held = this.table.trackedEntries(marketId);
    for (let i = 0; i < held.length; i++) {
      const e = held[i]!;
      if (e.state === 'working') continue;
      if (now - e.sentAt >= limit && !e.resend) this.table.needsReconcile.add(marketId);
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
    const k = e.marketId;
    if (e.cancelRetries > 3 || this.stopping || this.halted || this.cancelRetryTimers.has(k)) return;
    const marketId = e.marketId;
    const cancel = this.clock.setTimeout(
      () => {
        this.cancelRetryTimers.delete(k);
        // a set already queued re-diffs the market anyway; otherwise the latest set runs again, after
        // any call still out for the market (no pull fast path: that call's answer comes first)
        const set = this.lastDesired.get(k);
        if (!set || this.stopping || this.halted || this.lanes.get(k)?.queued != null) return;
        void this.enqueue(marketId, set);
      },
      rateLimited ? 300 : 150,
    );
    this.cancelRetryTimers.set(k, cancel);
  }

  /**
   * Compare our books with the venue's open orders: confirm, adopt into free desired slots, cancel
   * strangers and forget what is gone. `desired` (all markets) defaults to the last synced sets;
   * at start-up pass the strategies' first quotes so matching orders are adopted instead of
   * cancelled. Returns false when the venue could not be read.
   */
  reconcile(marketId?: Bytes32, desired?: readonly DesiredOrder[]): Promise<boolean> {
    this.reconciles++;
    const run = this.reconcileChain.then(async () => {
      let release!: () => void;
      this.gate = new Promise<void>((r) => (release = r));
      this.gateShut = true;
      try {
        await Promise.allSettled(this.running.snapshot());
        return await this.rec.reconcileNow(marketId, desired);
      } finally {
        this.gateShut = false;
        release();
      }
    });
    this.reconcileChain = run.catch(() => undefined);
    void this.reconcileChain.then(this.reconcileDone);
    return run.catch(async (err) => {
      await this.onUnexpected(err);
      return false;
    });
  }

  /** Why the last reconciliation could not list the venue's open orders (the venue's error), or null when it could. */
  reconcileListError(): unknown {
    return this.rec.listError;
  }

  /**
   * Cancel every open order of the trader and stop creating new ones. Lists the venue's open
   * orders and cancels them in batches until the venue reports none, at most `cancelAllRounds`
   * times. Creates already on the wire are awaited (bounded) first so they cannot land afterwards.
   */
  async cancelAll(): Promise<CancelAllResult> {
    this.stopping = true;
    for (const lane of this.lanes.values()) lane.queued = null;
    this.queuedOut = 0;
    for (const cancel of this.cancelRetryTimers.values()) cancel();
    this.cancelRetryTimers.clear();
    const rounds = this.opts.cancelAllRounds ?? 5;
    const pause = this.opts.cancelAllDelayMs ?? 250;
    await this.waitRunning(this.opts.inFlightTimeoutMs ?? 10_000);
    return this.rec.cancelRounds(rounds, pause);
  }

  /**
   * The orders a cancel-all stopped tracking without seeing their end: the venue listed none open,
   * and no cancel of ours (only an alreadyCancelled answer, `answered`) or feed event had closed them
   * (a fill racing the stop's cancels). Their ledger record waits for the stop's final sweep, which
   * reads their real status (see Reconciler.endedAtStop).
   */
  endedAtStop(): EndedAtStop[] {
    return this.rec.endedAtStop();
  }

  /**
   * reconcileScope `markets` with a changing set of markets (rotation, reload, shards): from now on
   * only open orders in `ids` are the bot's; null makes the whole wallet the bot's again.
   */
  setOwnMarkets(ids: readonly Bytes32[] | null): void {
    this.rec.setOwnMarkets(ids);
  }
  /**
   * Market rotation released a market whose cancels the venue confirmed: forget what is kept per
   * market (last desired set, exposure version, block, reconcile debt, cancel retry, cool-downs).
   * Refused (false) while anything of it is pending (see isIdle); parked orders are not touched.
   */
  forgetMarket(marketId: Bytes32): boolean {
    if (!this.isIdle(marketId)) return false;
    const k = marketId;
    this.lastDesired.delete(k);
    this.lanes.delete(k);
    this.table.forgetMarket(k);
    this.exec.blocked.delete(k);
    this.nextReconcileAt.delete(k);
    this.cancelRetryTimers.get(k)?.();
    this.cancelRetryTimers.delete(k);
    const cooldown = this.exec.cooldown;
    if (cooldown.size > 0) for (const slot of [...cooldown.keys()]) if (slot.startsWith(`${k}:`)) cooldown.delete(slot);
    return true;
  }

  /** A sync queued or running, or a reconcile owed, for this market (orders may still move). */
  hasPendingWork(marketId: Bytes32): boolean {
    const k = marketId;
    const owed = this.table.needsReconcile;
    if (owed.size !== 0 && owed.has(k)) return true;
    if (this.queuedOut === 0 && this.chainsOut === 0) return false;
    const lane = this.lanes.get(k);
    return lane !== undefined && (lane.queued !== null || lane.chain !== null);
  }

  /** Per-market entries held now (tests: nothing left behind after retirements). */
  get heldMarketState(): number {
    return (
      this.lastDesired.size +
      this.table.heldSize +
      this.exec.blocked.size +
      this.nextReconcileAt.size +
      this.cancelRetryTimers.size +
      this.exec.cooldown.size +
      this.lanes.size
    );
  }

  /** the markets whose orders are the bot's, or null for the whole wallet */
  ownMarkets(): Bytes32[] | null {
    return this.rec.ownMarkets();
  }

  /** A broken invariant: cancel everything, refuse further work, tell the runtime. */
  async halt(err: Error): Promise<CancelAllResult> {
    if (this.halted) return { ok: false, rounds: 0, cancelled: 0, endedBefore: 0, remaining: -1 };
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
    await Promise.race([Promise.allSettled(this.running.snapshot()), timeout]);
    cancelTimer();
  }

  private emit(e: OrderManagerEvent): void {
    if (this.held !== null) {
      this.held.push(e);
      return;
    }
    if (!this.opts.emit) return;
    try {
      this.opts.emit(e);
    } catch (err) {
      this.log.error({ err: errInfo(err), event: e.type }, 'event listener threw');
    }
  }

  /**
   * Run `step` (synchronous) holding every event it emits (the executor's, the table's), then
   * deliver them in order, together, before returning: nothing reads the store in between, and the
   * store reduces them in one pass. Inside another such step, the outer one delivers them.
   */
  private together<T>(step: () => T): T {
    if (this.held !== null) return step();
    const held: OrderManagerEvent[] = [];
    this.held = held;
    try {
      return step();
    } finally {
      this.held = null;
      if (held.length === 1 || (held.length > 1 && !this.opts.emitAll)) for (const e of held) this.emit(e);
      else if (held.length > 1) {
        try {
          this.opts.emitAll!(held);
        } catch (err) {
          this.log.error({ err: errInfo(err), events: held.length }, 'event listener threw');
        }
      }
    }
  }
}

/**
 * What sync returns for a set settled at once (nothing to send): one resolved promise, shared, so
 * a caller can tell it from a sync still to run (the kernel keeps no pending sync for it).
 */
export const SYNCED: Promise<void> = Promise.resolve();

const NO_DESIRED: readonly DesiredOrder[] = [];

/**
 * A market's chain of syncs: the run going on or waiting (null: none) and the newest set queued for
 * it (null: none). A sync while a run has its set starts a run that waits for it, and the chain is
 * that run then; a run ends the chain when nothing was queued behind it (runQueued).
 */
interface Lane {
  chain: Promise<void> | null;
  queued: DesiredSet | null;
}

/** The chain an idle market's first run waits behind: settled already. */
const IDLE: Promise<void> = Promise.resolve();

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
