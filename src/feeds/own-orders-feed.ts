/**
 * Own orders and fills, reconciled from order status: each poll reads the trader's open orders (all
 * pages) and its recently inserted orders that the bot still counts, and compares each order's filled shares with what was seen before. An increase is an
 * OrderFilled with fill id `<nonce>:<filled shares>`, which the store de-duplicates, priced from the
 * change of the order's filled size and average fill price since the last read (./fill-part.ts: a
 * maker's fills at its own price, a part that took liquidity at what it cost). An order that left the open list while
 * we still track (the store still holds it: resting, or gone but not yet settled — the order manager
 * parks orders whose end it did not see the fills of) is looked up by id: that is how the fill that
 * completed it, or raced our cancel, is seen, followed by an OrderClosed that lets the order manager
 * stop counting it. Orders no longer tracked are forgotten.
 *
 * The venue's activity items carry no trader, so this, not the activity feed, is the source of our
 * fills. The first poll only records a baseline: fills from before the start are history, and the
 * positions come from the balance poll anyway.
 *
 * Fees and origin: the venue's orders state no fee, so each fill carries the configured
 * fee model's (`fees`, src/engine/fill-fee.ts) with `feeSource` 'model'. Every order of the wallet is
 * read, so a fill of an order this bookmaker did not place (a person or another instance on the same
 * wallet) is reported too, marked `origin` 'foreign' by `isOwn`: the books count it, so their
 * positions stay the venue's. Its time, like every fill's here, is the poll's (the venue states no
 * fill time): at most one poll interval late.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ListOrdersParams, RecentOrdersParams } from '../exchange/client/orders-read.ts';
import type { Address, Bytes32, VenueOrder } from '../model/order.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { remainingShares, totalShares } from '../orders/venue-order-shares.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { pollFeed, pollOf } from './poll-feed.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';
import { fillPart, v2BuyShares } from './fill-part.ts';

export interface OrdersSource {
  orders: {
    iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder>;
    get(id: number | string): Promise<VenueOrder>;
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
}

const SOURCE = 'own-orders';

/** The order's kind as a fill carries it (how the venue settles a sale), when the read states it. */
export function kindOf(o: Pick<VenueOrder, 'sv2OrderKind'>): { orderKind?: 0 | 1 | 2 } {
  const k = o.sv2OrderKind;
  return k === 0 || k === 1 || k === 2 ? { orderKind: k } : {};
}

/**
 * Shares filled so far. A V2 buy states its filled size as collateral spent, fee included: its shares
 * are src/feeds/fill-part.ts v2BuyShares's (the fee model `fees`, and `arrival`: the budget units its
 * create answer showed filled, when known). Other orders state shares.
 */
export function filledShares(o: VenueOrder, fees: FeeSpec = NO_FEES, arrival?: number): number {
  if (o.side === 0 && o.settlementVersion === 2 && o.sv2MinSharesOut !== null) return v2BuyShares(o, fees, arrival);
  return Math.max(0, totalShares(o) - remainingShares(o));
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
}

/** orders remembered at most (oldest dropped): the open list of a bot is far smaller */
const MAX_KNOWN = 20_000;
/** closed orders remembered (their filled shares), so one read again is not reported twice */
const MAX_CLOSED = 5_000;

/** The fill tracker, apart from I/O so it can be tested on plain lists. */
export class FillTracker {
  private readonly known = new Map<string, Known>();
  private readonly closed = new Map<string, { filled: number; cost: number | null }>();
  private baseline = true;
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
    for (const s of seed) this.known.set(s.nonce, { filled: s.filled, cost: s.cost ?? (s.filled === 0 ? 0 : null), nonce: s.nonce, ref: s.ref });
  }

  /** Orders seen this poll → fill events; `now` is the local clock. */
  observe(orders: readonly VenueOrder[], now: number): FeedEvent[] {
    const out: FeedEvent[] = [];
    for (const o of orders) {
      const k = o.nonce;
      const arrived = this.arrival?.(o.nonce);
      const filled = filledShares(o, this.fees, arrived);
      const wasClosed = this.closed.get(k);
      // a closed order read again (the recent-orders window) with nothing new: already reported
      if (wasClosed !== undefined && filled <= wasClosed.filled) continue;
      const held = this.known.get(k) ?? wasClosed ?? { filled: 0, cost: 0 };
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
        this.known.set(k, {
          filled: Math.max(filled, before),
          cost,
          nonce: o.nonce,
          ref: o.hash ?? o.id ?? o.nonce,
          ...(o.marketId ? { marketId: o.marketId } : {}),
        });
        if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
      } else {
        this.known.delete(k);
        this.closed.set(k, { filled: Math.max(filled, before), cost });
        if (this.closed.size > MAX_CLOSED) this.closed.delete(this.closed.keys().next().value!);
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
    return out;
  }

  /** Orders we tracked as open that this poll did not mention (to look up or forget). */
  vanished(seen: ReadonlySet<string>): { nonce: Bytes32; ref: number | string; marketId?: Bytes32 }[] {
    const out: { nonce: Bytes32; ref: number | string; marketId?: Bytes32 }[] = [];
    for (const [k, v] of this.known)
      if (!seen.has(k)) out.push(v.marketId ? { nonce: v.nonce, ref: v.ref, marketId: v.marketId } : { nonce: v.nonce, ref: v.ref });
    return out;
  }

  /**
   * Would this read of the order report a fill whose price needs the order's average, which the read
   * does not state (the recent-orders list states none)? Such an order is read again from the list
   * of orders, which does (src/feeds/fill-part.ts).
   */
  needsAverage(o: VenueOrder): boolean {
    if (this.baseline || o.avgFillPrice !== undefined) return false;
    const k = o.nonce;
    const held = this.known.get(k) ?? this.closed.get(k);
    return filledShares(o, this.fees) > (held?.filled ?? 0);
  }

  /** Is the order one this tracker saw open (its fills so far counted)? */
  knows(nonce: Bytes32): boolean {
    return this.known.has(nonce);
  }

  forget(nonce: Bytes32): void {
    this.known.delete(nonce);
  }

  get size(): number {
    return this.known.size;
  }
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
  async function read(): Promise<FeedEvent[]> {
    const byNonce = new Map<string, VenueOrder>();
    for await (const o of opts.client.orders.iterate({ trader: opts.trader, status: ['open'], limit: 100 })) byNonce.set(o.nonce, o);
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
    let lookups = 0;
    for (const v of tracker.vanished(new Set(byNonce.keys()))) {
      if (opts.isTracked && !opts.isTracked(v.nonce, v.marketId) && (!opts.isOwn || opts.isOwn(v.nonce))) {
        tracker.forget(v.nonce); // we cancelled it ourselves (a foreign order is looked up: its last fills count)
        continue;
      }
      if (lookups++ >= maxLookups) break;
      try {
        const o = await opts.client.orders.get(v.ref);
        byNonce.set(o.nonce, o);
      } catch (err) {
        // unknown to the venue: nothing more to learn. Any other failure (5xx, 429, a timeout) is
        // transient: the order is looked up again next poll, or its last fills would never be seen
        if (err instanceof VenueError && err.status === 404) tracker.forget(v.nonce);
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
    return tracker.observe([...byNonce.values()], opts.clock.now());
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
  const all = await recent({ ...p, limit: RECENT_LIMIT });
  if (all.length < RECENT_LIMIT) return all;
  const out = new Map<string, VenueOrder>();
  for (const o of all) out.set(o.nonce, o);
  for (const status of RECENT_REREAD) {
    const some = await recent({ ...p, status, limit: RECENT_LIMIT });
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
