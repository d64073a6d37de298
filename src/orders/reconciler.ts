/**
 * The order manager's reconciler (docs/architecture.md#invariants: "adopts or cancels every order it
 * finds; never quotes twice for the same slot"): reads the venue's open orders and carries out the
 * plan of reconcile.ts on the order table (confirm, adopt, cancel strangers, park what is gone);
 * cancels everything on the way out; knows which markets' orders are the bot's (reconcileScope).
 *
 * Entry point: `new Reconciler(deps)`, owned by the OrderManager, which serialises its runs
 * (`OrderManager.reconcile`) and calls `reconcileNow(marketId, desired)` and `cancelRounds()`.
 */
import type { Bytes32, VenueOrder } from '../model/order.ts';
import type { DesiredOrder, Tolerances } from './diff.ts';
import { errInfo, type OrderExecutor } from './executor.ts';
import type { OrderParts } from './order-table.ts';
import { orphanSlot, strangerMark } from './orphan-slot.ts';
import { planReconcile } from './reconcile.ts';
import type { FeeSpec } from '../engine/fill-fee.ts';
import type { Entry } from './tracked-orders.ts';
import { plannedFromVenue, totalShares } from './venue-order-shares.ts';

/** A market's desired orders and `exposureVersion` when they were risk-checked (undefined: not known). */
export interface DesiredSet {
  readonly desired: readonly DesiredOrder[];
  readonly checkedAt: number | undefined;
}

export interface CancelAllResult {
  readonly ok: boolean;
  readonly rounds: number;
  /** orders the venue answered cancelled (201): ended 'cancelled' */
  readonly cancelled: number;
  /**
   * orders the venue answered `alreadyCancelled` (nothing left to cancel: filled, expired, voided or
   * cancelled between the list and the cancel, or unknown to it): not counted as cancelled, their end
   * read from the venue (endedAtStop)
   */
  readonly endedBefore: number;
  /** orders still open at the venue after the last round */
  readonly remaining: number;
}

/**
 * An order a cancel-all let go with its end unseen (Reconciler.endedAtStop). `answered`: the last
 * cancel-all's cancel of it was answered alreadyCancelled, which the store and the ledger were told
 * (OrderCancelled: the store dropped it, the ledger recorded the answer, not an end); the others the
 * store still holds.
 */
export interface EndedAtStop {
  readonly nonce: Bytes32;
  readonly marketId: Bytes32;
  readonly answered?: true;
}

/** The OrderManagerOptions the reconciler reads (see there). */
export interface ReconcilerOptions {
  inFlightTimeoutMs?: number;
  ownMarkets?: readonly Bytes32[];
  fees?: FeeSpec;
  orderRecord?: (nonce: Bytes32) => OrderRecord;
}

/**
 * What the books know of an open order this run does not track: 'recorded' (placed or adopted by an
 * earlier run), 'tagged' (no record, but its nonce carries the ledger's tag: this bookmaker's, its
 * record lost to a crash), 'unknown' (a person's or another instance's).
 */
export type OrderRecord = 'recorded' | 'tagged' | 'unknown';

/** The warning for an open order reconcile cancels, by what the books know of it (none: no ledger). */
export function strangerMessage(record: OrderRecord | undefined): string {
  switch (record) {
    case 'recorded':
      return 'reconcile: cancelling an open order of this bot it no longer wants (placed by an earlier run)';
    case 'tagged':
      return "reconcile: an order of this wallet the ledger has no record of: likely placed just before a crash (its nonce carries this ledger's tag); cancelled";
    case 'unknown':
      return 'reconcile: cancelling an open order this bot did not place (not in its ledger, not its nonce tag: a person or another instance on this wallet)';
    default:
      return 'reconcile: cancelling an open order of this wallet this run did not place (or no longer wants)';
  }
}

export interface ReconcilerDeps extends OrderParts {
  readonly exec: OrderExecutor;
  /** the tolerances the diff keeps orders within (an order found within them is adopted) */
  readonly tol: Tolerances;
  /** per market: the last desired set synced (the order manager's; read, never written here) */
  readonly lastDesired: ReadonlyMap<string, DesiredSet>;
  readonly opts: ReconcilerOptions;
}

export class Reconciler {
  private readonly d: ReconcilerDeps;
  /** at least one reconciliation with the venue succeeded */
  reconciledOnce = false;
  /** undefined until first read (then from `ownMarkets`); null = the whole wallet is the bot's */
  private ownSet: Set<Bytes32> | null | undefined = undefined;
  private readonly toldStrangers = new Set<string>();
  /** why the last reconciliation could not list the venue's open orders (null: it could) */
  listError: unknown = null;
  /** orders cancelRounds let go untracked without seeing their end (nonce → market; see endedAtStop) */
  private readonly endedUnseen = new Map<Bytes32, Bytes32>();
  /** of those, the ones the last cancelRounds's cancels were answered alreadyCancelled (see endedAtStop) */
  private readonly answered = new Set<Bytes32>();

  constructor(deps: ReconcilerDeps) {
    this.d = deps;
  }

  /** One reconciliation (see OrderManager.reconcile); false when the venue could not be read. */
  async reconcileNow(marketId: Bytes32 | undefined, desiredArg: readonly DesiredOrder[] | undefined): Promise<boolean> {
    const { venue, clock, log, emit, table, exec } = this.d;
    const t0 = clock.now();
    let open: VenueOrder[];
    try {
      open = await venue.openOrders(marketId);
      this.listError = null;
      emit({ type: 'VenueCallCompleted', call: 'open-orders', ok: true, ms: clock.now() - t0, ts: clock.now() });
    } catch (err) {
      this.listError = err;
      emit({ type: 'VenueCallCompleted', call: 'open-orders', ok: false, ms: clock.now() - t0, ts: clock.now() });
      log.warn({ err: errInfo(err) }, 'reconcile: could not list open orders');
      return false;
    }
    // (no named closures here: under the tsx loader each is wrapped to keep its name, a defineProperty
    // on every reconcile: 0.25 % of a backtest run's CPU for two of them)
    const desired = (desiredArg ?? lastDesiredOf(this.d.lastDesired, marketId)).filter(
      (d) => this.inScope(marketId, d.order.marketId) && !exec.blocked.has(d.order.marketId),
    );
    const tracked = table.tracked(marketId);
    const plan = planReconcile(
      open.filter((o) => this.inScope(marketId, o.marketId)),
      tracked,
      desired,
      this.d.tol,
      clock.now(),
      this.d.opts.inFlightTimeoutMs ?? 10_000,
      this.d.opts.fees,
    );
    const now = clock.now();

    for (const n of plan.confirm) {
      const e = table.entries.get(n)!;
      if (e.state === 'pending-create') {
        e.state = 'working';
        e.resend = false;
        emit({ type: 'OrderAccepted', marketId: e.marketId, nonce: e.planned.nonce, duplicate: false, ts: now });
      }
      // a partial fill the list shows is not applied: the fills feed reports it (see countedShares)
    }
    for (const t of plan.forget) {
      // gone from the venue without our cancel landing: filled, expired or voided; fills it had
      // may not be in the position yet, so it is parked rather than forgotten
      const k = t.planned.nonce;
      const e = table.entries.get(k);
      if (!e) continue;
      table.exposureChanged(e.marketId);
      table.park(k, e, { type: 'OrderGone', marketId: e.marketId, nonce: e.planned.nonce, ts: now }, now);
    }
    // a found order is counted at its whole size (see found)
    for (const a of plan.adopt) this.found(a.order, a.slot, 'working', now);
    for (const o of plan.cancel) {
      // an order this run did not place and does not want: say so (once per order), with its market
      // and what the books know of it (an earlier run's, a crash's, or another trader's)
      if (this.toldStrangers.size > 10_000) this.toldStrangers.clear();
      const record = this.toldStrangers.has(o.nonce) ? undefined : this.d.opts.orderRecord?.(o.nonce);
      if (!this.toldStrangers.has(o.nonce))
        log.warn(
          {
            marketId: o.marketId,
            nonce: o.nonce,
            outcome: o.outcomeIndex,
            side: o.side === 0 ? 'buy' : 'sell',
            price: o.price,
            scope: this.ownMarkets() ? 'markets' : 'wallet',
            ...(record ? { record } : {}),
          },
          strangerMessage(record),
        );
      this.toldStrangers.add(o.nonce);
      // a stranger on its way out still counts until its cancel is answered and its fills are in
      this.found(o, orphanSlot(o.nonce), 'pending-cancel', now);
      // a stranger's cancel, not one of this bot's orders cancelled (the ledger and the metrics count it apart)
      emit({ type: 'CancelSubmitted', marketId: o.marketId, nonce: o.nonce, stranger: true, ts: now });
    }
    const cancels = plan.cancel.map((o) => o.nonce);
    for (let i = 0; i < cancels.length; i += venue.batchLimit) {
      const chunk = cancels.slice(i, i + venue.batchLimit);
      const res = await exec.callBatch([], chunk);
      for (const o of res.cancels) exec.applyCancel(o);
    }
    if (marketId === undefined) table.needsReconcile.clear();
    else table.needsReconcile.delete(marketId);
    this.reconciledOnce = true;
    log.info(
      { marketId: marketId ?? 'all', adopted: plan.adopt.length, cancelled: plan.cancel.length, forgotten: plan.forget.length },
      'reconciled with venue',
    );
    emit({
      type: 'OrdersReconciled',
      marketId: marketId ?? null,
      adopted: plan.adopt.length,
      cancelled: plan.cancel.length,
      dropped: plan.forget.length,
      ts: now,
    });
    return true;
  }

  /**
   * Lists the venue's open orders of the bot and cancels them in batches until the venue reports
   * none, at most `rounds` times with `pause` ms between them (the loop of OrderManager.cancelAll).
   */
  async cancelRounds(rounds: number, pause: number): Promise<CancelAllResult> {
    const { venue, clock, log, emit, table, exec } = this.d;
    let cancelled = 0;
    let endedBefore = 0;
    let remaining = -1;
    this.answered.clear();
    for (let round = 1; round <= rounds; round++) {
      let open: VenueOrder[];
      try {
        open = (await venue.openOrders()).filter((o) => o.status === 'open' && this.owns(o.marketId));
      } catch (err) {
        log.warn({ err: errInfo(err), round }, 'cancelAll: could not list open orders');
        await this.sleep(pause);
        continue;
      }
      remaining = open.length;
      if (open.length === 0) {
        // orders still tracked that no cancel of ours ended: gone from the venue (filled, expired or
        // voided while the cancels ran, the feeds already closed). Their end is not guessed here (an
        // OrderGone would end them 'gone' in the ledger, and the stop's sweep would no longer look up
        // an old one's racing fill): they are kept for the sweep, which reads each one's real status
        // and hands the store its OrderClosed (endedAtStop, docs/operating.md "Stopping")
        for (const e of table.entries.values()) this.endedUnseen.set(e.planned.nonce, e.marketId);
        // parked ones whose end no answer stated likewise: one found gone is not let go with a guessed
        // 'gone'; one answered alreadyCancelled goes with that answer (OrderCancelled, not an end) and is
        // read too (table.clear)
        table.clear((nonce, marketId, answered) => {
          this.endedUnseen.set(nonce, marketId);
          if (answered) this.answered.add(nonce);
        });
        // a bound for a bot that outlives many cancel-alls (kill switch cleared): the oldest go first
        for (const k of this.endedUnseen.keys()) {
          if (this.endedUnseen.size <= 10_000) break;
          this.endedUnseen.delete(k);
        }
        log.info({ rounds: round, cancelled, endedBefore }, 'cancelAll: no open orders at the venue');
        return { ok: true, rounds: round, cancelled, endedBefore, remaining: 0 };
      }
      for (let i = 0; i < open.length; i += venue.batchLimit) {
        const chunk = open.slice(i, i + venue.batchLimit);
        // each cancel sent is recorded as sent (the ledger's cancels, `ledger summary` cancelsSent), as a requote's is
        const sentAt = clock.now();
        // a stranger still being cancelled (an orphan slot) is marked so, as reconcile's own cancels of it are
        for (const o of chunk)
          emit({ type: 'CancelSubmitted', marketId: o.marketId, nonce: o.nonce, ...strangerMark(table.entries.get(o.nonce)?.slot), ts: sentAt });
        const res = await exec.callBatch(
          [],
          chunk.map((o) => o.nonce),
        );
        for (const c of res.cancels) {
          if (!c.ok) continue;
          const e = table.entries.get(c.nonce);
          table.entries.delete(c.nonce);
          const marketId = e?.marketId ?? open.find((o) => o.nonce === c.nonce)!.marketId;
          emit({ type: 'OrderCancelled', marketId, nonce: c.nonce, alreadyCancelled: c.alreadyCancelled, ...strangerMark(e?.slot), ts: clock.now() });
          if (!c.alreadyCancelled) {
            cancelled++;
            continue;
          }
          // listed open, but nothing left to cancel when the cancel came: it filled (or expired, was
          // voided, or is unknown: a 404) after the list. That answer is not its end (the ledger records
          // the answer only): like the orders found gone, it is kept for the stop's sweep, which reads its
          // end and its fills at the venue first (endedAtStop)
          endedBefore++;
          this.endedUnseen.set(c.nonce, marketId);
          this.answered.add(c.nonce);
        }
      }
      if (round < rounds) await this.sleep(pause);
    }
    log.error({ rounds, remaining }, 'cancelAll: orders still open after the last round');
    return { ok: false, rounds, cancelled, endedBefore, remaining: Math.max(remaining, 0) };
  }

  /**
   * The orders a cancel-all found ended at the venue without a cancel of ours ending them, their end
   * unseen (no feed reported them closed): gone from its list while it still tracked them, parked with
   * no end stated, or listed and answered `alreadyCancelled` (filled, expired or voided between the list
   * and the cancel). Nothing has told the store or the ledger their end; the stop's final sweep reads
   * their status at the venue (src/runtime/phases/control.ts, closed-at-stop.ts).
   */
  endedAtStop(): EndedAtStop[] {
    return [...this.endedUnseen].map(([nonce, marketId]) => (this.answered.has(nonce) ? { nonce, marketId, answered: true } : { nonce, marketId }));
  }

  /** An order in this market is the bot's to manage (reconcileScope). */
  /** An order of `m` is in the scope of a reconcile of `marketId` (undefined: every market): ours, and of that market. */
  private inScope(marketId: Bytes32 | undefined, m: Bytes32): boolean {
    return (marketId === undefined || m === marketId) && this.owns(m);
  }

  /**
   * A venue order a reconcile takes on (adopted, or a stranger on its way out), tracked from `now`.
   * A found order is counted at its whole size, less the fills the feed reports from now on: its
   * fills so far may reach the position (balance poll) before or after the feed reports them, so
   * counting only what rests now would drop a fill reported late from the worst case. Counting the
   * whole size errs the safe way when those fills were in the position already.
   */
  private found(o: VenueOrder, slot: string, state: Entry['state'], now: number): void {
    const { nonces, table, emit } = this.d;
    const resting = plannedFromVenue(o, this.d.opts.fees);
    const planned = { ...resting, size: Math.max(resting.size, totalShares(o)) };
    if (!nonces.has(planned.nonce)) nonces.remember(planned.nonce);
    table.entries.set(o.nonce, { marketId: o.marketId, slot, planned, remaining: planned.size, state, sentAt: now, attempts: 0, resend: false });
    emit({ type: 'OrderAdopted', marketId: o.marketId, slot, nonce: planned.nonce, order: planned, remaining: planned.size, ts: now });
  }

  owns(marketId: Bytes32): boolean {
    const own = this.owned();
    return own === null || own.has(marketId);
  }

  private owned(): Set<Bytes32> | null {
    if (this.ownSet === undefined) this.ownSet = this.d.opts.ownMarkets ? new Set(this.d.opts.ownMarkets) : null;
    return this.ownSet;
  }

  /** See OrderManager.setOwnMarkets. */
  setOwnMarkets(ids: readonly Bytes32[] | null): void {
    this.ownSet = ids === null ? null : new Set(ids);
  }

  /** the markets whose orders are the bot's, or null for the whole wallet */
  ownMarkets(): Bytes32[] | null {
    const own = this.owned();
    return own ? [...own] : null;
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((r) => this.d.clock.setTimeout(r, ms));
  }
}

/**
 * The last desired sets' orders: of one market (its own set: a market's set holds only its orders,
 * OrderManager.sync refuses any other), or of every market. A market's periodic reconcile no longer
 * gathers every market's set to keep its own (at 2,000 markets, 2,000 sets per reconcile).
 */
function lastDesiredOf(sets: ReadonlyMap<string, DesiredSet>, marketId: Bytes32 | undefined): readonly DesiredOrder[] {
  if (marketId !== undefined) return sets.get(marketId)?.desired ?? NO_DESIRED;
  const out: DesiredOrder[] = [];
  for (const s of sets.values()) for (const d of s.desired) out.push(d);
  return out;
}

const NO_DESIRED: readonly DesiredOrder[] = [];
