/**
 * The order manager's table of its own orders (docs/architecture.md#the-pipeline): the orders it
 * tracks (working and in flight, see tracked-orders.ts), the orders parked until their fills are
 * known, each market's exposure version and the markets owed a reconciliation. Fills, ends and
 * positions reads seen on the feeds land here.
 *
 * Entry point: `new OrderTable(clock, emit, settleMs)`, owned by the OrderManager and shared with
 * its executor (executor.ts) and reconciler (reconciler.ts). Keys are nonces and market ids as Bytes32 (lower-case hex).
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';
import type { OrderManagerEvent } from '../state/events.ts';
import type { TrackedOrder } from './diff.ts';
import type { NonceSource } from './nonces.ts';
import { TrackedOrders, type Entry } from './tracked-orders.ts';

/** What the order manager hands each of its parts (executor.ts, reconciler.ts). */
export interface OrderParts {
  readonly venue: VenuePort;
  readonly clock: Clock;
  readonly log: Logger;
  /** the order manager's emit (a throwing listener is logged, not raised) */
  readonly emit: (e: OrderManagerEvent) => void;
  readonly nonces: NonceSource;
  readonly table: OrderTable;
}

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

interface Parked {
  readonly entry: Entry;
  readonly readAfter: number;
  readonly ended: OrderManagerEvent;
  /** the order's market id */
  readonly market: string;
}

export class OrderTable {
  /** by nonce */
  readonly entries = new TrackedOrders();
  /** markets whose orders must be checked against the venue's list (lower-case ids) */
  readonly needsReconcile = new Set<string>();
  /** orders gone from the venue whose fills may not be in the position yet (see `settleMs`) */
  private readonly parked = new Map<string, Parked>();
  /** the parked orders' keys by market: a positions read of one market looks at that market's only */
  private readonly parkedByMarket = new Map<string, Set<string>>();
  /** orders the feed reported closed (fills in) while a call on them was still out: not parked when it returns */
  private readonly settledEarly = new Set<string>();
  /** per market: changes to its exposure that no desired set asked for (see exposureVersion) */
  private readonly exposureSeq = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly emit: (e: OrderManagerEvent) => void,
    /** see OrderManagerOptions.settleMs */
    private readonly settleMs: number,
  ) {}

  /** Our orders (working and in flight), optionally for one market, as copies. */
  tracked(marketId?: Bytes32): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const e of marketId === undefined ? this.entries.values() : this.entries.ofMarket(marketId)) {
      out.push({ slot: e.slot, planned: e.planned, remaining: e.remaining, state: e.state, sentAt: e.sentAt });
    }
    return out;
  }

  /**
   * One market's entries as they are (the diff's input on every sync; see tracked() for copies): the
   * same list until the market's orders change (TrackedOrders.entriesOf).
   */
  trackedEntries(marketKey: string): readonly Entry[] {
    return this.entries.entriesOf(marketKey);
  }

  /** A fill seen on a feed: shrink the order's remaining size (removed when nothing is left). */
  applyFill(nonce: Bytes32, size: number): void {
    const k = nonce;
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
    const k = nonce;
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

  /** No order of this market tracked or parked. */
  holdsNothing(marketKey: string): boolean {
    if (this.entries.countOf(marketKey) > 0) return false;
    return !this.parkedByMarket.has(marketKey);
  }

  /** See OrderManager.exposureVersion. */
  exposureVersion(marketId: Bytes32): number {
    return this.exposureSeq.get(marketId) ?? 0;
  }

  /** exposureVersion by lower-case market id */
  versionOf(marketKey: string): number {
    return this.exposureSeq.get(marketKey) ?? 0;
  }

  /** See OrderManager.exposureChanged. */
  exposureChanged(marketId: Bytes32): void {
    const mk = marketId;
    this.exposureSeq.set(mk, (this.exposureSeq.get(mk) ?? 0) + 1);
  }

  /** Is the order still tracked here (working, in flight, or parked)? */
  knows(nonce: Bytes32): boolean {
    const k = nonce;
    return this.entries.get(k) !== undefined || this.parked.has(k);
  }

  /** A cancelled or vanished order is parked until its fills are known (settleMs > 0). */
  get parksEndedOrders(): boolean {
    return this.settleMs > 0;
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
  park(k: string, e: Entry, ended: OrderManagerEvent, now: number): void {
    this.entries.delete(k);
    const ms = this.settleMs;
    if (ms <= 0 || this.settledEarly.delete(k)) {
      this.emit(ended);
      return;
    }
    const market = e.marketId;
    this.parked.set(k, { entry: e, readAfter: now + ms, ended, market });
    const ks = this.parkedByMarket.get(market);
    if (ks) ks.add(k);
    else this.parkedByMarket.set(market, new Set([k]));
    // no longer a live quote (the risk layer must not take a new identical quote for it), but counted
    const cancelled = ended.type === 'OrderCancelled' && !ended.alreadyCancelled;
    this.emit({ type: 'OrderParked', marketId: e.marketId, nonce: e.planned.nonce, ...(cancelled ? { cancelled } : {}), ts: now });
  }

  private unpark(k: string, tell = true): void {
    const p = this.parked.get(k);
    if (!p) return;
    this.parked.delete(k);
    const ks = this.parkedByMarket.get(p.market);
    if (ks?.delete(k) && ks.size === 0) this.parkedByMarket.delete(p.market);
    if (tell) this.emit(p.ended);
  }

  /**
   * A positions read of this market begun at `startedAt` has reached the store: parked orders of
   * the market that left the book at least `settleMs` before it are in that position now, fills
   * and all, and stop counting. Returns whether one did (its exposure changed).
   */
  positionsRead(marketId: Bytes32, startedAt: number): boolean {
    if (this.parked.size === 0) return false;
    const ks = this.parkedByMarket.get(marketId);
    if (!ks) return false;
    let released = false;
    for (const k of [...ks]) {
      if (this.parked.get(k)!.readAfter <= startedAt) {
        this.unpark(k);
        released = true;
      }
    }
    return released;
  }

  /**
   * The venue holds none of our orders any more (cancelAll): nothing tracked, nothing parked. A parked
   * order goes with the cancel's answer it waited with (OrderCancelled); one whose end that answer did
   * not state (alreadyCancelled) goes to `unseen` too, `answered`, and one found gone goes to `unseen`
   * alone, with no event (an OrderGone would end it 'gone'): the store keeps it until its end is read
   * at the venue (Reconciler.endedAtStop).
   */
  clear(unseen: (nonce: Bytes32, marketId: Bytes32, answered: boolean) => void): void {
    this.entries.clear();
    for (const [k, p] of [...this.parked]) {
      const answer = p.ended.type === 'OrderCancelled' ? p.ended : null;
      this.unpark(k, answer !== null);
      if (answer === null || answer.alreadyCancelled) unseen(p.entry.planned.nonce, p.entry.marketId, answer !== null);
    }
  }

  /** Forget what is kept for a market that left (see OrderManager.forgetMarket). */
  forgetMarket(marketKey: string): void {
    this.exposureSeq.delete(marketKey);
    this.needsReconcile.delete(marketKey);
  }

  /** Entries held now (tests: nothing left behind after retirements). */
  get heldSize(): number {
    return this.exposureSeq.size + this.needsReconcile.size + this.entries.size + this.parked.size;
  }
}
