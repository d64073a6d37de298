/**
 * Own orders and fills, reconciled from order status: each poll reads the trader's open orders and
 * its recently inserted orders that the bot still counts, and compares each order's filled shares
 * with what was seen before. An increase is an
 * OrderFilled with fill id `<nonce>:<filled shares>`, which the store de-duplicates, priced from the
 * change of the order's filled size and average fill price since the last read (./fill-part.ts: a
 * maker's fills at its own price, a part that took liquidity at what it cost). An order that left the open list while
 * we still track (the store still holds it: resting, or gone but not yet settled — the order manager
 * parks orders whose end it did not see the fills of) is looked up by id: that is how the fill that
 * completed it, or raced our cancel, is seen, followed by an OrderClosed that lets the order manager
 * stop counting it. An order the poll read open and whose end it has not read is looked up once it
 * leaves, whether or not the bot still tracks it: an order the order manager released after its
 * settle time unread (src/orders/order-table.ts positionsRead), dropped with its market (a resolved
 * market's release), never tracked (an earlier run's, the catch-up's seed) or another trader's may
 * have filled before its end, and its books learn of that fill only from this read. When more are
 * owed than a poll looks up (a halt cancelled every order), they are read from the wallet's ended
 * orders, 100 a request, instead (readEnds below).
 *
 * The venue's activity items carry no trader, so this, not the activity feed, is the source of our
 * fills. The first poll only records a baseline: fills from before the start are history, and the
 * positions come from the balance poll anyway.
 *
 * Which open orders a poll reads. Without `touches` (and always on the first poll): every page of
 * the wallet's open orders. With them, a poll reads the open orders of the markets whose book
 * stream printed, since the last read, a trade that reached one of our orders' prices, or sent a
 * snapshot (a reconnection, a resync after a gap): a fill of a resting order is a trade on its
 * market's stream (./book-touches.ts), so such a fill is reported at the next poll, as before. A
 * sweep of the whole open list, a few pages a poll (`sweepPolls` polls a sweep), finds what no
 * stream showed (a fill while a market was not streamed, an order of a market the bot no longer
 * follows) within one sweep for a fill of an order still open, two for one it ended; an order known
 * open that a market's read or a whole sweep did not find is looked up. When the marked markets
 * are as many as the pages of the whole list, the poll reads the whole list instead (a wallet of
 * one page therefore reads it every poll). A poll that fails keeps its marks for the next. An order
 * the bot cancelled (`cancels`, ./parked-cancels.ts) is released without a read once its market's
 * stream has passed the cancel with no trade at its price; otherwise its market is read.
 *
 * Fees and origin: the venue's orders state no fee, so each fill carries the configured
 * fee model's (`fees`, src/engine/fill-fee.ts) with `feeSource` 'model'. Every order of the wallet is
 * read, so a fill of an order this bookmaker did not place (a person or another instance on the same
 * wallet) is reported too, marked `origin` 'foreign' by `isOwn`: the books count it, so their
 * positions stay the venue's. Its time, like every fill's here, is the poll's (the venue states no
 * fill time): at most one poll interval late for a fill its market's stream showed, within the
 * sweep's bound (above) for one found by the sweep.
 */
import type { Observable } from 'rxjs';
import { Bytes32Window } from '../core/bytes32-window.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ListOrdersParams, OrderPage, RecentOrdersParams } from '../exchange/client/orders-read.ts';
import type { Address, Bytes32, OrderStatus, VenueOrder } from '../model/order.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { filledShares, totalShares } from '../orders/venue-order-shares.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { pollFeed, pollOf } from './poll-feed.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';
import { fillPart } from './fill-part.ts';
import { v2BuyShares } from '../exchange/v2-resting.ts';
import { markWhole, reaches, type BookTouches, type RestingAt, type Touch } from './book-touches.ts';
import type { ParkedCancel, ParkedCancels } from './parked-cancels.ts';

export interface OrdersSource {
  orders: {
    iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder>;
    get(id: number | string): Promise<VenueOrder>;
    /** one page of the list (the sweep pages through the open orders a few pages a poll) */
    list?(p: ListOrdersParams): Promise<Pick<OrderPage, 'orders' | 'cursor'>>;
    /** recently inserted orders in any state: how an order placed and filled between two polls is seen */
    recent?(p: RecentOrdersParams): Promise<VenueOrder[]>;
  };
}

export interface OwnOrdersFeedOptions {
  client: OrdersSource;
  trader: Address;
  clock: Clock;
  intervalMs: number;
  health?: FeedHealth;
  logger?: Logger;
  /** lookups of vanished orders per poll at most (default 20) */
  maxLookups?: number;
  /**
   * does the bot still count this order (resting, or gone but not settled)? default: always.
   * `marketId`, when the venue named the order's market, lets the answer be one lookup.
   */
  isTracked?: (nonce: Bytes32, marketId?: Bytes32) => boolean;
  /**
   * how far back the first recent-orders read looks, s (default 30); each later read looks back to the
   * one before it, plus a margin (recentWindow)
   */
  recentWindowSeconds?: number;
  /**
   * where the ledger stands (src/ledger/catch-up.ts): the open orders and the filled shares already
   * accounted for. With it there is no baseline poll: every fill after these figures is reported.
   */
  seed?: readonly OrderSeed[];
  /** the fee model for fills the venue states no fee for (`ledger.fees`; default no fees) */
  fees?: FeeSpec;
  /** did this bookmaker place the order? (default: every order is its own) */
  isOwn?: (nonce: Bytes32) => boolean;
  /**
   * the filled size (the venue's units) the order's create answer stated, when it crossed on arrival:
   * those fills took liquidity (src/ledger/bot-ledger.ts arrival); undefined: not known
   */
  arrival?: (nonce: Bytes32) => number | undefined;
  /**
   * The book streams' marks (./book-touches.ts). With them (and a client that reads one page at a
   * time), a poll after the first reads the open orders of the markets whose trades since the last
   * read reached one of our orders, or whose book came as a snapshot, instead of every page of the
   * wallet's open orders; a sweep of the whole list, a few pages a poll, finds what no stream showed.
   */
  touches?: BookTouches;
  /** the bot's own orders of a market, in flight included (the store's): trades that reach them count too */
  ordersOf?: (marketId: Bytes32) => Iterable<RestingAt>;
  /**
   * Orders the bot cancelled (./parked-cancels.ts), with `touches`: one whose market's stream has
   * passed the cancel, and that no trade reached since its last read, is released without a read
   * (an OrderClosed, cancelled, with no fill); the others have their market read as before.
   */
  cancels?: ParkedCancels;
  /** polls one sweep of the whole open list is spread over (default SWEEP_POLLS) */
  sweepPolls?: number;
  /** what the reads cost and how the sweep goes (metrics: src/runtime/phases/feeds.ts) */
  stats?: OwnOrdersReadStats;
}

/** The kinds of own-orders read, each a series of bookmaker_own_orders_reads_total (all exposed from the start). */
export const OWN_ORDERS_READ_KINDS = ['market', 'sweep', 'full', 'ended'] as const;
export type OwnOrdersReadKind = (typeof OWN_ORDERS_READ_KINDS)[number];

/**
 * The own-orders reads as counted (bookmaker_own_orders_reads_total and the sweep gauges,
 * docs/reference/metrics.md): requests by kind — `market` a market's open orders, `sweep` a page of
 * the sweep, `full` a page of the whole open list, `ended` a page of the ended orders read when many
 * orders are owed a lookup at once — and each finished sweep's time and pages.
 */
export interface OwnOrdersReadStats {
  read(kind: OwnOrdersReadKind, requests: number): void;
  /** orders the bot cancelled, released without a read (see OwnOrdersFeedOptions.cancels) */
  released?(orders: number): void;
  /** a sweep of the whole open list finished: ms from its first page to its last, and its pages */
  sweepDone(ms: number, pages: number): void;
}

/** polls a sweep of the whole open list is spread over, by default (30 s at one poll a second) */
export const SWEEP_POLLS = 30;

/** A sweep in progress: where it stands in the open list, the tracker's round and the time (ms) it began, its pages so far. */
interface Sweep {
  readonly cursor: string | undefined;
  readonly start: number;
  readonly startedAt: number;
  readonly pages: number;
}

const SOURCE = 'own-orders';

/** The order's kind as a fill carries it (how the venue settles a sale), when the read states it. */
export function kindOf(o: Pick<VenueOrder, 'sv2OrderKind'>): { orderKind?: 0 | 1 | 2 } {
  const k = o.sv2OrderKind;
  return k === 0 || k === 1 || k === 2 ? { orderKind: k } : {};
}

/**
 * The shares an order had filled when its create answer was read (`arrived`: its filled size then, in
 * the venue's units): for a V2 buy, that budget spent at the taker rate over its limit.
 */
function arrivalShares(o: VenueOrder, arrived: number, fees: FeeSpec): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null)
    return v2BuyShares({ ...o, status: 'open', filledSize: arrived, avgFillPrice: null }, fees, arrived);
  return Math.min(arrived, totalShares(o));
}

/** An order the ledger accounts for: its filled shares and their collateral (1e-6 USDC, own outcome; null or absent: unknown). */
export interface OrderSeed {
  readonly nonce: Bytes32;
  readonly filled: number;
  readonly ref: number | string;
  readonly cost?: number | null;
}

interface Known {
  filled: number;
  /** the collateral of those shares as the books hold it (src/feeds/fill-part.ts; null: unknown) */
  cost: number | null;
  nonce: Bytes32;
  /** for the vanished-order lookup */
  ref: number | string;
  /** the order's market when the venue named it: `isTracked` is then one lookup, not a scan of every market */
  marketId?: Bytes32;
  /** where it rests, when read from the venue (a seed states none): which trades may have filled it */
  at?: RestingAt;
  /** the tracker's round (one per `observe`) that last read the order open */
  seen: number;
}

/** An order owed a lookup: it left the open list while it was known open. */
export interface Vanished {
  nonce: Bytes32;
  ref: number | string;
  marketId?: Bytes32;
}

/** An order owed a lookup, with its failed lookups so far; `scanned`: a read of ended orders has looked for it. */
type Owed = Vanished & { fails?: number; scanned?: boolean };

/**
 * failed lookups (5xx, 429, timeouts) after which an order the bot no longer tracks is forgotten
 * unread: a tracked one is asked about until an answer
 */
export const UNTRACKED_TRIES = 3;

/** orders remembered at most (oldest dropped): the open list of a bot is far smaller */
const MAX_KNOWN = 20_000;
/**
 * closed orders remembered (their filled shares and cost), so one read again is not reported twice:
 * a Bytes32Window (src/core/bytes32-window.ts), its ~0.2 MB allocated at the start (a Map of the
 * nonces' strings grew to ~1 MB over soak-memory's first ~6 minutes)
 */
export const MAX_CLOSED = 5_000;
/** a closed order's values in the window: its filled shares, its cost (NaN: null, not known) */
const FILLED = 0;
const COST = 1;

/** The fill tracker, apart from I/O so it can be tested on plain lists. */
export class FillTracker {
  private readonly known = new Map<string, Known>();
  /** the known orders by market (the ones whose market the venue named) */
  private readonly byMarket = new Map<string, Set<string>>();
  private readonly closed = new Bytes32Window(MAX_CLOSED, 2);
  private baseline = true;
  private rounds = 0;
  private readonly fees: FeeSpec;
  private readonly isOwn: ((nonce: Bytes32) => boolean) | undefined;
  private readonly arrival: ((nonce: Bytes32) => number | undefined) | undefined;

  /** Start from known figures instead of a baseline poll (see OwnOrdersFeedOptions.seed). */
  constructor(
    seed?: readonly OrderSeed[],
    opts: { fees?: FeeSpec; isOwn?: (nonce: Bytes32) => boolean; arrival?: (nonce: Bytes32) => number | undefined } = {},
  ) {
    this.fees = opts.fees ?? NO_FEES;
    this.isOwn = opts.isOwn;
    this.arrival = opts.arrival;
    if (!seed) return;
    this.baseline = false;
    for (const s of seed) this.put(s.nonce, { filled: s.filled, cost: s.cost ?? (s.filled === 0 ? 0 : null), nonce: s.nonce, ref: s.ref, seen: -1 });
  }

  private put(k: string, v: Known): void {
    const was = this.known.get(k);
    if (was?.marketId !== v.marketId) this.unindex(k, was);
    this.known.set(k, v);
    if (v.marketId !== undefined) {
      const ks = this.byMarket.get(v.marketId);
      if (ks) ks.add(k);
      else this.byMarket.set(v.marketId, new Set([k]));
    }
  }

  private drop(k: string): void {
    const was = this.known.get(k);
    if (!was) return;
    this.known.delete(k);
    this.unindex(k, was);
  }

  private unindex(k: string, was: Known | undefined): void {
    if (was?.marketId === undefined) return;
    const ks = this.byMarket.get(was.marketId);
    if (ks?.delete(k) && ks.size === 0) this.byMarket.delete(was.marketId);
  }

  /** Orders seen this poll → fill events; `now` is the local clock. */
  observe(orders: readonly VenueOrder[], now: number): FeedEvent[] {
    const out: FeedEvent[] = [];
    for (const o of orders) {
      const k = o.nonce;
      const arrived = this.arrival?.(o.nonce);
      const filled = filledShares(o, this.fees, arrived);
      const wasClosed = this.closed.find(k);
      // a closed order read again (the recent-orders window) with nothing new: already reported
      if (wasClosed >= 0 && filled <= this.closed.value(wasClosed, FILLED)) continue;
      const held = this.known.get(k) ?? (wasClosed >= 0 ? this.closedAt(wasClosed) : { filled: 0, cost: 0 });
      const before = held.filled;
      let cost = held.cost;
      if (filled > before && !this.baseline) {
        const origin = this.isOwn && !this.isOwn(o.nonce) ? 'foreign' : 'own';
        const part = fillPart(o, filled, held, this.fees, arrived === undefined ? undefined : arrivalShares(o, arrived, this.fees));
        cost = part.cost;
        out.push(
          feedEvent(
            SOURCE,
            {
              type: 'OrderFilled',
              marketId: o.marketId,
              nonce: o.nonce,
              outcomeIndex: o.outcomeIndex,
              side: o.side,
              price: part.price,
              size: part.size,
              fee: part.fee,
              feeSource: 'model',
              origin,
              fillId: `${k}:${filled}`,
              ts: now,
              ...kindOf(o),
              ...(part.notional !== undefined ? { notional: part.notional } : {}),
            },
            venueMs(o.insertedAt),
            now,
          ),
        );
      }
      // the baseline poll knows no collateral of the fills it finds (they are history)
      if (this.baseline && filled > before) cost = null;
      if (o.status === 'open') {
        this.put(k, {
          filled: Math.max(filled, before),
          cost,
          nonce: o.nonce,
          ref: o.hash ?? o.id ?? o.nonce,
          ...(o.marketId ? { marketId: o.marketId } : {}),
          at: { outcomeIndex: o.outcomeIndex, side: o.side, price: o.price },
          seen: this.rounds,
        });
        if (this.known.size > MAX_KNOWN) this.drop(this.known.keys().next().value!);
      } else {
        this.drop(k);
        this.close(k, Math.max(filled, before), cost);
        // after its fills (above): the order manager may stop counting the order at worst case
        if (!this.baseline)
          out.push(
            feedEvent(
              SOURCE,
              { type: 'OrderClosed', marketId: o.marketId, nonce: o.nonce, status: o.status, ...(o.voidReason ? { voidReason: o.voidReason } : {}), ts: now },
              venueMs(o.insertedAt),
              now,
            ),
          );
      }
    }
    this.baseline = false;
    this.rounds++;
    return out;
  }

  /** The round the next `observe` is: orders it reads open are stamped with it. */
  get round(): number {
    return this.rounds;
  }

  /** Orders we tracked as open that this poll did not mention (to look up or forget). */
  vanished(seen: ReadonlySet<string> | ReadonlyMap<string, unknown>): Vanished[] {
    return this.unseenSince(Infinity, seen);
  }

  /** Orders known open whose last read as open was before round `round`, except those in `now`. */
  unseenSince(round: number, now: ReadonlySet<string> | ReadonlyMap<string, unknown>): Vanished[] {
    const out: Vanished[] = [];
    for (const [k, v] of this.known) if (v.seen < round && !now.has(k)) out.push(vanishedOf(v));
    return out;
  }

  /** The known open orders of one market (the ones whose market the venue named). */
  *openOf(marketId: Bytes32): Generator<{ nonce: Bytes32; at?: RestingAt; v: Vanished }> {
    const ks = this.byMarket.get(marketId);
    if (!ks) return;
    for (const k of ks) {
      const v = this.known.get(k)!;
      yield { nonce: v.nonce, ...(v.at ? { at: v.at } : {}), v: vanishedOf(v) };
    }
  }

  /**
   * Would this read of the order report a fill whose price needs the order's average, which the read
   * does not state (the recent-orders list states none)? Such an order is read again from the list
   * of orders, which does (src/feeds/fill-part.ts).
   */
  needsAverage(o: VenueOrder): boolean {
    if (this.baseline || o.avgFillPrice !== undefined) return false;
    const k = o.nonce;
    const held = this.known.get(k)?.filled ?? this.closedFilled(k);
    return filledShares(o, this.fees) > held;
  }

  /** a closed order's figures, the newest MAX_CLOSED kept (the oldest dropped) */
  private close(k: string, filled: number, cost: number | null): void {
    const slot = this.closed.set(k);
    this.closed.setValue(slot, FILLED, filled);
    this.closed.setValue(slot, COST, cost ?? Number.NaN);
  }

  private closedAt(slot: number): { filled: number; cost: number | null } {
    const cost = this.closed.value(slot, COST);
    return { filled: this.closed.value(slot, FILLED), cost: Number.isNaN(cost) ? null : cost };
  }

  /** the filled shares of a closed order remembered, else 0 */
  private closedFilled(k: string): number {
    const slot = this.closed.find(k);
    return slot < 0 ? 0 : this.closed.value(slot, FILLED);
  }

  /** closed orders remembered now (tests) */
  get closedRemembered(): number {
    return this.closed.size;
  }

  /** Is the order one this tracker saw open (its fills so far counted)? */
  knows(nonce: Bytes32): boolean {
    return this.known.has(nonce);
  }

  /** Where a known open order rests, as last read (undefined: not known, or a seed that states none). */
  restingAt(nonce: Bytes32): RestingAt | undefined {
    return this.known.get(nonce)?.at;
  }

  /**
   * A known order the bot cancelled, ended with the fills last read (./parked-cancels.ts decided
   * that nothing after them can have filled it): its OrderClosed. A later read that shows more fills
   * still reports them. Null if the order is not known open.
   */
  closeUnread(nonce: Bytes32, marketId: Bytes32, now: number): FeedEvent | null {
    const v = this.known.get(nonce);
    if (!v) return null;
    this.drop(nonce);
    this.close(nonce, v.filled, v.cost);
    return feedEvent(SOURCE, { type: 'OrderClosed', marketId, nonce, status: 'cancelled', ts: now }, now, now);
  }

  forget(nonce: Bytes32): void {
    this.drop(nonce);
  }

  get size(): number {
    return this.known.size;
  }
}

const atOf = (at: RestingAt | undefined): { at?: RestingAt } => (at ? { at } : {});

function vanishedOf(v: Known): Vanished {
  return v.marketId ? { nonce: v.nonce, ref: v.ref, marketId: v.marketId } : { nonce: v.nonce, ref: v.ref };
}

/** the most orders one recent-orders read returns (the venue's cap) */
export const RECENT_LIMIT = 500;
/** seconds added to a recent-orders window beyond the time since the last read (a slow read, a late poll) */
const RECENT_MARGIN_S = 5;
/** the longest window the venue accepts, s */
const RECENT_MAX_S = 600;

/**
 * The window of a recent-orders read at `now`: the time since the last read that answered (`last`, ms;
 * null: none yet, then `first` s), plus a margin, within the venue's 1–600 s. A fixed window would hold,
 * at thousands of markets, more orders than one read returns, and an order placed and filled between
 * two polls could fall outside what the venue answers.
 */
export function recentWindow(now: number, last: number | null, first: number): number {
  const s = last === null ? first : Math.ceil(Math.max(0, now - last) / 1000) + RECENT_MARGIN_S;
  return Math.min(RECENT_MAX_S, Math.max(1, s));
}

/** orders per page of the open-orders list (the venue's most) */
const PAGE = 100;
/** the states an order ends in: the read of ended orders (see ownOrdersReader's readEnds) asks for these */
const ENDED: OrderStatus[] = ['filled', 'cancelled', 'expired', 'voided'];

/** pages the read of ended orders may cost beyond the owed orders it found (a page costs a request, as a lookup does) */
const ENDS_SLACK = 5;

/** A read of the wallet's ended orders in progress: where it stands, its pages and the owed orders it found. */
interface EndsRead {
  readonly cursor: string | undefined;
  readonly pages: number;
  readonly found: number;
}
/** the requests a paged read of `n` orders took (one at least) */
const pagesOf = (n: number): number => Math.max(1, Math.ceil(n / PAGE));

/** One poll of own orders → fill events (kept apart so the runtime can chain it before a balance read). */
export function ownOrdersReader(opts: Omit<OwnOrdersFeedOptions, 'intervalMs' | 'health'>): () => Promise<FeedEvent[]> {
  const tracker = new FillTracker(opts.seed, {
    ...(opts.fees ? { fees: opts.fees } : {}),
    ...(opts.isOwn ? { isOwn: opts.isOwn } : {}),
    ...(opts.arrival ? { arrival: opts.arrival } : {}),
  });
  const maxLookups = opts.maxLookups ?? 20;
  // a foreign order that ended before this feed began was the catch-up's to record (src/ledger/catch-up.ts)
  const startedAt = opts.clock.now();
  const foreignNews = (o: VenueOrder): boolean => opts.isOwn !== undefined && !opts.isOwn(o.nonce) && venueMs(o.insertedAt) >= startedAt;
  // when the last recent-orders read was sent (ms; null: none answered yet)
  let lastRecent: number | null = null;
  // orders that left the open list, owed a lookup (at most maxLookups a poll; the rest wait)
  const owed = new Map<string, Owed>();
  // reading by market (see OwnOrdersFeedOptions.touches): the sweep in progress, none before the first read
  const touches = opts.touches;
  const list = opts.client.orders.list?.bind(opts.client.orders);
  const byMarket = touches !== undefined && list !== undefined;
  const cancels = byMarket ? opts.cancels : undefined;
  let sweep: Sweep | null = null;
  // the read of ended orders in progress (readEnds), none at first
  let ends: EndsRead | null = null;
  let first = true;
  // the cancelled orders this poll's decision keeps waiting or releases: its stream, not a lookup, settles them
  let held: ReadonlySet<string> = new Set();

  /** An order known open left the list: a lookup is owed, unless the stream settles it (`held`). */
  function owe(v: Vanished): void {
    if (held.has(v.nonce)) return;
    const was = owed.get(v.nonce);
    owed.set(v.nonce, was ? { ...v, ...(was.fails ? { fails: was.fails } : {}), ...(was.scanned ? { scanned: true } : {}) } : v);
  }

  /** Every page of the open list: the first poll's read, and any poll that would cost more by market. */
  async function readAll(into: Map<string, VenueOrder>): Promise<void> {
    let n = 0;
    for await (const o of opts.client.orders.iterate({ trader: opts.trader, status: ['open'], limit: PAGE })) {
      into.set(o.nonce, o);
      n++;
    }
    opts.stats?.read('full', pagesOf(n));
    for (const v of tracker.vanished(into)) owe(v);
  }

  /** Would a trade recorded in `t` have reached an order of ours in market `m` (as the venue or the store knows it)? */
  function touched(m: Bytes32, t: Touch): boolean {
    if (t.all) return true;
    for (const o of tracker.openOf(m)) if (!o.at || reaches(t, o.at)) return true;
    if (opts.ordersOf) for (const o of opts.ordersOf(m)) if (reaches(t, o)) return true;
    return false;
  }

  /** The markets marked since the last read, then the next pages of the sweep; returns the sweep as it then stands. */
  async function readSome(into: Map<string, VenueOrder>, marks: ReadonlyMap<string, Touch>): Promise<Sweep | null> {
    const pages = Math.max(1, Math.ceil(tracker.size / PAGE));
    const markets: Bytes32[] = [];
    for (const [m, t] of marks) if (touched(m as Bytes32, t)) markets.push(m as Bytes32);
    if (markets.length >= pages) {
      // as many requests as the whole list, or more: the whole list, which also ends the sweep
      await readAll(into);
      return null;
    }
    for (const m of markets) {
      const mine = new Map<string, VenueOrder>();
      for await (const o of opts.client.orders.iterate({ trader: opts.trader, marketId: m, status: ['open'], limit: PAGE })) mine.set(o.nonce, o);
      opts.stats?.read('market', pagesOf(mine.size));
      for (const [k, o] of mine) into.set(k, o);
      // the market's whole open list: an order of it known open and not in it has left
      for (const o of tracker.openOf(m)) if (!mine.has(o.nonce)) owe(o.v);
    }
    // the sweep: the next pages of the whole list, spread so that a sweep takes `sweepPolls` polls
    const s = sweep ?? { cursor: undefined, start: tracker.round, startedAt: opts.clock.now(), pages: 0 };
    let cursor = s.cursor;
    let read = s.pages;
    for (let n = Math.max(1, Math.ceil(pages / (opts.sweepPolls ?? SWEEP_POLLS))); n > 0; n--) {
      const page = await list!({ trader: opts.trader, status: ['open'], limit: PAGE, ...(cursor !== undefined ? { cursor } : {}) });
      read++;
      opts.stats?.read('sweep', 1);
      for (const o of page.orders) if (!into.has(o.nonce)) into.set(o.nonce, o);
      if (page.cursor === null || page.cursor === '' || page.orders.length === 0 || page.cursor === cursor) {
        // the sweep is over: an order known open before it began and read open by nothing since has left
        for (const v of tracker.unseenSince(s.start, into)) owe(v);
        opts.stats?.sweepDone(opts.clock.now() - s.startedAt, read);
        return null;
      }
      cursor = page.cursor;
    }
    return { cursor, start: s.start, startedAt: s.startedAt, pages: read };
  }

  /**
   * More orders owed a lookup than a poll looks up (a halt, or a reconcile, cancelled every order: at
   * 2,000 markets 4,000-8,000 of them, looked up 20 a poll for minutes): the wallet's ended orders
   * instead, newest first (as the venue lists orders), 100 a request, up to maxLookups requests a
   * poll and on at the next. Each owed order it lists is read there (its last fills and end, as a
   * lookup would give them). It stops when every order owed at its start is found (or read
   * otherwise), when the list ends, or when its pages outnumber the orders it found by more than
   * ENDS_SLACK (an old order among a long history: lookups cost less). What it did not find is
   * looked up as before, and is
   * not read for again; orders owed later start another read when they are many. Returns the requests
   * it made this poll.
   */
  async function readEnds(into: Map<string, VenueOrder>): Promise<number> {
    if (!list) return 0;
    if (ends === null) {
      let fresh = 0;
      for (const [k, v] of owed) if (!v.scanned && !into.has(k)) fresh++;
      if (fresh <= maxLookups) return 0;
      for (const v of owed.values()) v.scanned = true;
      ends = { cursor: undefined, pages: 0, found: 0 };
    }
    let n = 0;
    for (let e: EndsRead | null = ends; e !== null && n < maxLookups; e = ends) {
      let page: Pick<OrderPage, 'orders' | 'cursor'>;
      try {
        page = await list({ trader: opts.trader, status: ENDED, limit: PAGE, ...(e.cursor !== undefined ? { cursor: e.cursor } : {}) });
      } catch {
        return n + 1; // (5xx, 429, a timeout) it goes on from this page at the next poll
      }
      n++;
      opts.stats?.read('ended', 1);
      let found: number = e.found;
      for (const o of page.orders) {
        if (!owed.has(o.nonce) || into.has(o.nonce)) continue;
        into.set(o.nonce, o);
        owed.delete(o.nonce);
        found++;
      }
      let left = false; // an order it looks for, not read yet
      for (const [k, v] of owed)
        if (v.scanned && !into.has(k)) {
          left = true;
          break;
        }
      const over: boolean = !left || page.cursor === null || page.cursor === '' || page.orders.length === 0 || page.cursor === e.cursor;
      ends = over || e.pages + 1 > found + ENDS_SLACK ? null : { cursor: page.cursor!, pages: e.pages + 1, found };
    }
    return n;
  }

  /**
   * The cancelled orders this poll releases unread, and the markets it reads for the others (marked
   * whole in `marks`, so a failed poll puts them back with the rest).
   */
  function decideCancels(marks: Map<string, Touch>): ParkedCancel[] {
    if (!cancels || first) return [];
    const d = cancels.decide(
      marks,
      (n) => (tracker.knows(n) ? { ...atOf(tracker.restingAt(n)), owed: owed.has(n) } : undefined),
      opts.client.orders.recent !== undefined,
    );
    for (const m of d.read) markWhole(marks, m);
    held = new Set([...d.release, ...d.wait].map((p) => p.nonce));
    return d.release;
  }

  async function read(): Promise<FeedEvent[]> {
    const byNonce = new Map<string, VenueOrder>();
    const marks = byMarket ? touches.take() : null;
    held = new Set();
    try {
      const released = marks ? decideCancels(marks) : [];
      let next: Sweep | null = null;
      if (!byMarket || first) await readAll(byNonce);
      else next = await readSome(byNonce, marks!);
      const events = await finish(byNonce, released);
      sweep = next;
      first = false;
      cancels?.done(released);
      return events;
    } catch (err) {
      // nothing of this read was taken in: the markets it was to read are read at the next poll
      if (marks) touches!.putBack(marks);
      throw err;
    }
  }

  async function finish(byNonce: Map<string, VenueOrder>, released: readonly ParkedCancel[] = []): Promise<FeedEvent[]> {
    // An order placed and filled (or cancelled after a partial fill) between two polls is never in
    // the open list: the recent orders show it. Only orders the bot still counts are kept, so the
    // bot's own settled cancels are not read again and again.
    if (opts.client.orders.recent) {
      const now = opts.clock.now();
      const windowSeconds = recentWindow(now, lastRecent, opts.recentWindowSeconds ?? 30);
      const recent = await readRecent(opts.client.orders.recent.bind(opts.client.orders), { trader: opts.trader, windowSeconds }, opts.logger);
      lastRecent = now;
      for (const o of recent) {
        // ...and the orders this tracker saw open: the order manager may have let go of one (filled,
        // cancelled) before this poll read its last fills, which would otherwise never be counted
        if (
          !byNonce.has(o.nonce) &&
          (o.status === 'open' || !opts.isTracked || opts.isTracked(o.nonce, o.marketId) || tracker.knows(o.nonce) || foreignNews(o))
        )
          byNonce.set(o.nonce, o);
      }
    }
    // released unread: not looked up, even if a read of its market for another order missed it just now
    for (const p of released) owed.delete(p.nonce);
    let lookups = await readEnds(byNonce);
    for (const [k, v] of owed) {
      if (byNonce.has(k) || !tracker.knows(v.nonce)) {
        owed.delete(k); // read this poll after all, or no longer known
        continue;
      }
      // whether the bot still tracks it or not: an order known open whose end no read showed may have
      // filled (the order manager lets go of a parked order after its settle time, a resolved market's
      // release drops its orders), and forgetting it unread left that fill out of the books
      if (lookups++ >= maxLookups) break;
      try {
        const o = await opts.client.orders.get(v.ref);
        byNonce.set(o.nonce, o);
        owed.delete(k);
      } catch (err) {
        // unknown to the venue: nothing more to learn. Any other failure (5xx, 429, a timeout) is
        // transient: the order is looked up again next poll, or its last fills would never be seen
        if (err instanceof VenueError && err.status === 404) {
          tracker.forget(v.nonce);
          owed.delete(k);
        } else if ((v.fails = (v.fails ?? 0) + 1) >= UNTRACKED_TRIES && opts.isTracked && !opts.isTracked(v.nonce, v.marketId)) {
          // no longer counted by the bot and still unanswered: given up, so that a venue failing on it
          // does not keep it ahead of the others every poll (the stop's final sweep still reads it)
          tracker.forget(v.nonce);
          owed.delete(k);
          opts.logger?.warn(
            { nonce: v.nonce, marketId: v.marketId, tries: v.fails, err: (err as Error).message },
            "order left the open list and its lookups failed: forgotten unread (its last fills reach the books at the stop's final sweep)",
          );
        }
      }
    }
    // a new fill seen in a read that states no average fill price: the list of orders states it
    for (const [k, o] of byNonce) {
      if (!tracker.needsAverage(o) || lookups++ >= maxLookups) continue;
      try {
        let seen = 0;
        for await (const a of opts.client.orders.iterate({ trader: opts.trader, search: o.nonce, limit: 10 })) {
          // one page at most: a venue whose search does not match nonces must not page through the history
          if (++seen > 10) break;
          if (a.nonce !== k) continue;
          // the same order, read later: never fewer fills than the read it replaces
          if (a.filledSize >= o.filledSize) byNonce.set(k, a);
          break;
        }
      } catch {
        // priced at its limit this time (src/feeds/fill-part.ts), as before the average was read
      }
    }
    const now = opts.clock.now();
    const events = tracker.observe([...byNonce.values()], now);
    let n = 0;
    for (const p of released) {
      if (byNonce.has(p.nonce)) continue; // read this poll after all (the recent orders): told above
      const e = tracker.closeUnread(p.nonce, p.marketId, now);
      if (e) {
        events.push(e);
        n++;
      }
    }
    if (n > 0) opts.stats?.released?.(n);
    return events;
  }
  return read;
}

/** the states a full recent-orders answer is read again by: those an order can end in with fills */
export const RECENT_REREAD = ['filled', 'cancelled', 'expired'] as const;

/**
 * The recent orders of a window. A read that comes back full (the venue's cap) may have left orders
 * out: the orders that can carry fills are read again by state (filled; cancelled or expired after a
 * partial fill), each up to the cap; what is still full is logged, as orders may be missed. The venue's
 * recent-orders read has no voided filter (docs/venue.md): a voided order with fills is seen by the
 * vanished-order lookups.
 */
async function readRecent(
  recent: (p: RecentOrdersParams) => Promise<VenueOrder[]>,
  p: { trader: Address; windowSeconds: number },
  logger: Logger | undefined,
): Promise<VenueOrder[]> {
  // literals, not `{ ...p, limit }`: a spread then a new key gave each poll's params a V8 map of its own (docs/performance/map-churn.md)
  const all = await recent({ trader: p.trader, windowSeconds: p.windowSeconds, limit: RECENT_LIMIT });
  if (all.length < RECENT_LIMIT) return all;
  const out = new Map<string, VenueOrder>();
  for (const o of all) out.set(o.nonce, o);
  for (const status of RECENT_REREAD) {
    const some = await recent({ trader: p.trader, windowSeconds: p.windowSeconds, status, limit: RECENT_LIMIT });
    for (const o of some) out.set(o.nonce, o);
    if (some.length >= RECENT_LIMIT)
      logger?.warn(
        { windowSeconds: p.windowSeconds, status, limit: RECENT_LIMIT },
        'recent-orders read full: orders placed and ended between two polls may be missed (their fills then come from the vanished-order lookups and the books-drift check)',
      );
  }
  return [...out.values()];
}

export function ownOrdersFeed(opts: OwnOrdersFeedOptions): Observable<FeedEvent> {
  const read = ownOrdersReader(opts);
  return pollFeed(pollOf(SOURCE, opts, read));
}
