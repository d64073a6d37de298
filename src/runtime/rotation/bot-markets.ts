/**
 * The bot's side of market rotation: what starting and retiring one market does to the running
 * pipeline (the MarketRotation's ports, market-rotation.ts), and the live market lists the feeds read.
 *
 *   const bm = new BotMarkets({ ids, kernel, orderManager, venue, store, health, books, ... });
 *   bm.ports(select)          // RotationPorts for MarketRotation
 *   bm.ids                    // quoted and retiring markets (book, oracle feeds; the own set)
 *   bm.tracked()              // + released markets still holding a position (positions, fills, resolution)
 *   bm.known(id)              // a market whose feed events are still wanted
 *   bm.sweep()                // released markets whose position is zero or claimable leave the store
 *
 * Start: the market joins the lists and the order manager's own set, the health model, and its book
 * stream opens; after its first book (bounded) any order of ours already resting there is reconciled
 * for that market alone (none: one read, no reconcile); then its kernel slot quotes.
 * Confirm: after the market's last sync, the venue's open orders of ours in it are read; anything
 * there, or still tracked, is cancelled by a reconcile of that market and read again later.
 * Release: book stream closed, lists and own set shrunk, health model and kernel slot dropped, the
 * order manager's and tick-to-wire meter's per-market memory forgotten, the store's heavy state
 * dropped (MarketReleased: the memos its views derived go with its state, src/state/market-memo.ts;
 * the slot names with the kernel's slot; the account's books hear it too and fold or compact the
 * market's book once nothing is held or its payout is known), and its metric series removed. A position (or an order whose end is not
 * yet known) keeps a small store record, followed by the position feeds until it is zero or the
 * market's payout is known (claimable).
 */
import type { Clock } from '../../core/clock.ts';
import type { Registry } from 'prom-client';
import type { MarketStatus } from '../../strategy/types.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { VenuePort } from '../../model/venue.ts';
import type { OrderManager } from '../../orders/order-manager.ts';
import { removeMarketSeries } from '../../metrics/remove-market-series.ts';
import type { MarketState } from '../../state/market-state.ts';
import { isSettled } from '../../state/release-market.ts';
import type { StateEvent } from '../../state/events.ts';
import type { StateStore } from '../../state/store.ts';
import type { HealthModel, MarketTimeReport } from '../../health/health-model.ts';
import type { QuotingKernel } from '../../kernel/quoting-kernel.ts';
import type { RetireReason, RotationPorts } from './market-rotation.ts';

export interface BotMarketsOptions {
  /** the markets the bot started with (wired by the start-up path) */
  readonly initial: readonly Bytes32[];
  readonly kernel: QuotingKernel;
  readonly orderManager: OrderManager;
  readonly venue: Pick<VenuePort, 'openOrders'>;
  readonly store: StateStore;
  readonly health: HealthModel;
  readonly books: { add(id: Bytes32): boolean; remove(id: Bytes32): boolean };
  readonly clock: Clock;
  /** resolves once the market has a first book, or after a bounded wait */
  readonly firstBook: (id: Bytes32) => Promise<void>;
  /**
   * resolves once a balance read covering the market has landed (what the wallet holds there: an
   * earlier run's position counts against the limits before the first quote), or after a bounded wait
   */
  readonly firstPosition?: (id: Bytes32) => Promise<void>;
  /** the venue's status of a market (why it left the selection) */
  readonly marketStatus?: (id: Bytes32) => Promise<MarketStatus | string>;
  /**
   * the venue's market at start: its status (only an active one starts) and its metadata as a state
   * event (slug, deadline, status), reduced before the first quote so the risk gate knows the deadline
   */
  readonly marketInfo?: (id: Bytes32) => Promise<{ status: MarketStatus | string; event: StateEvent }>;
  /**
   * why a market left the selection when the selection itself knows (rank: `ranked-out`, shard:
   * `shard`); null: ask the venue's status (resolved, closed, paused) or say `filtered-out`
   */
  readonly leftBecause?: (id: Bytes32) => RetireReason | null;
  /** reconcileScope `markets`: the own set follows the lists (order manager, watchdog) */
  readonly ownMarkets?: (ids: readonly Bytes32[]) => void;
  readonly forgetMeter?: (id: Bytes32) => void;
  readonly registry?: Registry;
  /** a released market's report row (time, ledger, PnL), kept for the end-of-run report */
  readonly onReleased?: (id: Bytes32, reason: RetireReason, time: MarketTimeReport | null, state: MarketState | undefined) => void;
  /** the market left the store for good (released flat, or its kept position went to zero or claimable) */
  readonly onGone?: (id: Bytes32) => void;
  /** a market starts (at start-up, or a released one again), before its feeds and first quote */
  readonly onStarted?: (id: Bytes32) => void;
  /**
   * where a release's event (MarketReleased) goes: where the venue's events go (the runtime: TradingCore.receive,
   * so the ledger's record sees it, then the kernel: the store and the account's books). Default the kernel's
   * onEvent (store and books). Not the store alone: the books must hear of the release, or a retired market's
   * book never folds (nothing held) nor compacts (payout known) and stays whole for the life of the process
   * (docs/running-for-weeks.md, "A retired market's book")
   */
  readonly receive?: (e: StateEvent) => void;
}

/** A venue status that ends quoting in a market → the retirement reason (null: it stays). */
export function retireReasonOf(status: string | undefined, refreshing: boolean): RetireReason | null {
  if (status === 'resolved') return 'resolved';
  if (status === 'closed') return 'closed';
  // paused before its deadline: it may come back, which only a refresh would see
  if (status === 'pending' && refreshing) return 'paused';
  return null;
}

export class BotMarkets {
  private readonly o: BotMarketsOptions;
  /** quoted and retiring markets, in start order (a live list: the feeds read it at every poll) */
  readonly ids: Bytes32[];
  /** released markets whose position is still tracked */
  private readonly retained = new Map<Bytes32, Bytes32>();
  /** `ids` as a set, for known() on the feed's hot path */
  private readonly idSet = new Set<Bytes32>();

  constructor(o: BotMarketsOptions) {
    this.o = o;
    this.ids = [...o.initial];
    for (const id of this.ids) this.idSet.add(id);
  }

  /** quoted, retiring and retained markets: whose positions, fills and resolution the feeds follow */
  tracked(): Bytes32[] {
    return this.retained.size === 0 ? this.ids : [...this.ids, ...this.retained.values()];
  }

  /** a market whose feed events are still wanted (after its release a late poll answer is dropped) */
  known(id: Bytes32): boolean {
    return this.idSet.has(id) || this.retained.has(id);
  }

  /**
   * An event of a market the bot no longer follows changed its state (a fill landing after its
   * release): its position is followed again until it is zero or claimable (see sweep).
   */
  retain(id: Bytes32): void {
    const k = id;
    if (this.idSet.has(k) || this.retained.has(k) || !this.o.store.state.markets.has(k)) return;
    this.retained.set(k, id);
  }

  get retainedCount(): number {
    return this.retained.size;
  }

  private setOwn(): void {
    this.o.ownMarkets?.(this.ids);
  }

  ports(select: RotationPorts['select']): RotationPorts {
    const o = this.o;
    const k = o.kernel;
    const om = o.orderManager;
    const openOf = async (id: Bytes32): Promise<number> => {
      return (await o.venue.openOrders(id)).filter((x) => x.status === 'open' && x.marketId === id).length;
    };
    return {
      select,
      start: async (m, reason) => {
        const id = m.marketId;
        const key = id;
        // a selector by id lists a market whatever its status: only an active one starts (refresh, reload)
        if (reason !== 'startup' && o.marketInfo) {
          const info = await o.marketInfo(id);
          if (info.status !== 'active') return false;
          // its deadline and slug before its first quote (the market poll comes later)
          o.kernel.onEvent(info.event);
        }
        o.onStarted?.(id);
        this.retained.delete(key);
        if (!this.idSet.has(key)) {
          this.ids.push(id);
          this.idSet.add(key);
        }
        this.setOwn();
        o.health.addMarket(id);
        o.books.add(id);
        // its first book and its position, bounded; no other market waits on this
        await Promise.all([o.firstBook(id), o.firstPosition?.(id)]);
        // orders of ours already resting there (an earlier run) are reconciled for this market alone
        if ((await openOf(id)) > 0) await om.reconcile(id);
        k.addMarket(m);
      },
      update: (m) => void k.updateMarket(m),
      pull: (id) => void k.retireMarket(id),
      confirmCancels: async (id) => {
        await k.lastSync(id);
        const open = await openOf(id);
        const tracked = om.tracked(id).length;
        if (open === 0 && tracked === 0 && !om.hasPendingWork(id)) return 0;
        // what is still there is cancelled (the market is still ours; its desired set is empty)
        if (open > 0 || tracked > 0) await om.reconcile(id);
        return Math.max(1, open + tracked);
      },
      release: (id, reason) => this.release(id, reason),
      leaveReason: async (id) => {
        const because = o.leftBecause?.(id) ?? null;
        if (because) return because;
        const known = o.store.state.markets.get(id)?.status;
        const status = (known === 'active' || known === undefined) && o.marketStatus ? await o.marketStatus(id) : known;
        return retireReasonOf(status, true) ?? 'filtered-out';
      },
    };
  }

  private release(id: Bytes32, reason: RetireReason): void {
    const o = this.o;
    const key = id;
    o.books.remove(id);
    const i = this.ids.indexOf(id);
    if (i >= 0) this.ids.splice(i, 1);
    this.idSet.delete(key);
    this.setOwn();
    const m = o.store.state.markets.get(key);
    const time = o.health.removeMarket(id);
    o.onReleased?.(id, reason, time, m);
    o.kernel.removeMarket(id);
    o.orderManager.forgetMarket(id);
    o.forgetMeter?.(id);
    // a position (or an order still counted) is tracked until it is zero or claimable
    const keep = m !== undefined && !isSettled(m) && m.payoutYes === null;
    if (keep) this.retained.set(key, id);
    this.released(id, keep);
    this.removeSeries(id, m?.slug);
    if (!keep) o.onGone?.(id);
  }

  /** Released markets whose position went to zero or became claimable leave the store. */
  sweep(): void {
    if (this.retained.size === 0) return;
    const o = this.o;
    for (const [key, id] of [...this.retained]) {
      const m = o.store.state.markets.get(key);
      if (m && !isSettled(m) && m.payoutYes === null) continue;
      this.retained.delete(key);
      this.released(id, false);
      // what its last orders' ends (after its release) counted and kept goes too
      o.orderManager.forgetMarket(id);
      this.removeSeries(id, m?.slug);
      o.onGone?.(id);
    }
  }

  /** MarketReleased into the store and the account's books (and the ledger's record, through `receive`). */
  private released(id: Bytes32, keepPosition: boolean): void {
    const e: StateEvent = { type: 'MarketReleased', marketId: id, keepPosition, ts: this.o.clock.now() };
    if (this.o.receive) this.o.receive(e);
    else this.o.kernel.onEvent(e);
  }

  private removeSeries(id: Bytes32, slug: string | undefined): void {
    if (!this.o.registry) return;
    void removeMarketSeries(this.o.registry, slug ? [id, slug] : [id]).catch(() => undefined);
  }
}
