/**
 * Start-up continuity: fills that happened while the bot was down are fetched from the
 * venue and recorded, and the live fill tracker is told where the ledger stands so its de-duplication
 * continues where it stopped.
 *
 *   const r = await catchUpFills({ client, trader, ledger, clock });
 *   r.recorded        // fills recorded now
 *   r.openOrders      // the trader's open orders and their filled shares: the fill tracker's seed
 *
 * A fill's identity is `<nonce>:<cumulative filled shares>`, the same id the own-orders feed gives it
 * (src/feeds/own-orders-feed.ts), and the ledger keys fills by it, so a fill seen by both, or fetched
 * twice, is recorded once. The orders read, in that order:
 *  1. every open order of the trader (an order can rest across many runs);
 *  2. every order placed since the previous start-up began (newest first, any status), less a
 *     minute for clock skew: this covers orders whose record a crash lost;
 *  3. every order the ledger saw placed or adopted and never saw end (looked up by nonce), and any
 *     the caller names (at stop: the orders found open at start, whose last fills may have raced the
 *     start-up reconcile's cancels).
 * Each order's filled shares at the venue, less what the ledger accounts for, is one fill, priced from
 * the order's average fill price and what the ledger already holds of the order (src/feeds/fill-part.ts:
 * a maker's fills at its own price, a part that took liquidity at what it cost). On a fresh ledger nothing is history yet: the open orders'
 * fills so far become their baselines, not fills.
 *
 * Venue truth: the venue states no fee and no time for a fill. The fee is the configured
 * fee model's (`fees`, src/engine/fill-fee.ts; `fee_source` 'model'). The time is the earliest the
 * fill can have happened as far as the venue and the ledger show: the order's insertion (the venue's
 * `insertedAt`) or the last sign of life of the previous run (its last mark, fill or start-up),
 * whichever is later, never after now; so fills made while the bot was down stay on the day they
 * were made (to within the downtime), not the day of the restart. An order the ledger never saw
 * placed or adopted is another trader's on the same wallet (a person, another instance): its fills
 * are recorded with `origin` 'foreign' and counted like any other, so the books hold what the venue
 * holds. An order whose nonce begins with the ledger's tag (Ledger.nonceTag) is this bookmaker's
 * even when a crash lost its record between the send and the batched write. With `owns` (a shared wallet), an order in one of this instance's markets counts as its own
 * (its record may have been lost in a crash), unless its nonce carries a sibling shard's tag (`sibling`);
 * elsewhere only the orders this ledger placed do. Every
 * open order of the wallet seeds the fills feed, which reads them all.
 */
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { ListOrdersParams } from '../exchange/client/orders-read.ts';
import type { Address, Bytes32, VenueOrder } from '../model/order.ts';
import type { OrderSeed } from '../feeds/own-orders-feed.ts';
import { filledShares } from '../orders/venue-order-shares.ts';
import { fillPart } from '../feeds/fill-part.ts';
import { venueMs } from '../feeds/feed-event.ts';
import type { Ledger } from './ledger.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';

export interface CatchUpSource {
  orders: { iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder> };
}

export type OpenOrderSeed = OrderSeed;

export interface CatchUpResult {
  readonly recorded: number;
  /** shares recorded now, 1e-6 */
  readonly shares: number;
  readonly ordersRead: number;
  readonly openOrders: readonly OpenOrderSeed[];
  /** an order the ledger expected could not be read (logged); its fills come with the next start */
  readonly incomplete: boolean;
  /** of the `closing` orders, those read at the venue, with their status there (open included) */
  readonly closing: readonly VenueOrderStatus[];
}

/** An order's status as the venue stated it (CatchUpOptions.closing). */
export interface VenueOrderStatus {
  readonly nonce: Bytes32;
  readonly marketId: Bytes32;
  readonly status: VenueOrder['status'];
}

export interface CatchUpOptions {
  readonly client: CatchUpSource;
  readonly trader: Address;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** orders of step 2 read at most (default 20 000) */
  readonly maxOrders?: number;
  /** step 3 lookups at most (default 500) */
  readonly maxLookups?: number;
  /** read orders placed since this time (ms) in step 2 instead of since the previous start-up */
  readonly since?: number;
  /** more orders to look up by nonce in step 3 (the stop's sweep: the orders found open at start) */
  readonly alsoNonces?: readonly Bytes32[];
  /**
   * orders whose venue status the caller needs (the stop's sweep: the orders the cancel-all found gone
   * without seeing their end, OrderManager.endedAtStop): looked up first in step 3 (before the bound
   * of `maxLookups` can leave them out), their fills recorded like any other's, their status returned
   * in `closing`
   */
  readonly closing?: readonly Bytes32[];
  /**
   * orders.reconcileScope markets (a wallet shared with other instances, shards, or a person): an order
   * in a market this returns true for is this bot's even without a record (a crash may have lost it);
   * in the other markets only the orders this ledger placed are. Every other order's fills are still
   * recorded, as 'foreign': the books hold what the wallet holds. Absent: only the ledger's orders.
   */
  readonly owns?: (marketId: Bytes32) => boolean;
  /**
   * a sharded bot: is this order a sibling shard's (its nonce carries another shard's tag,
   * src/runtime/shard-tags.ts)? Such an order is never this bot's, even in a market it now owns (a
   * re-split moved the market here while the sibling's order rested in it): its fills are 'foreign'.
   */
  readonly sibling?: (nonce: Bytes32) => boolean;
  /** the fee model (`ledger.fees`) for the fills recorded now; default no fees */
  readonly fees?: FeeSpec;
  /** 'stop': the stop's final sweep (its log line names fills that raced the cancels); default 'start' */
  readonly when?: 'start' | 'stop';
}

const SKEW_MS = 60_000;

export async function catchUpFills(o: CatchUpOptions): Promise<CatchUpResult> {
  const log = (o.logger ?? silentLogger).child({ component: 'ledger-catch-up' });
  const fresh = o.ledger.isFresh();
  const last = o.ledger.lastStartup();
  const seen = new Map<Bytes32, VenueOrder>();
  const open: VenueOrder[] = [];
  for await (const v of o.client.orders.iterate({ trader: o.trader, status: ['open'], limit: 100 })) {
    seen.set(v.nonce, v);
    open.push(v);
  }
  let incomplete = false;
  if (!fresh && last) {
    const since = (o.since ?? last.ts) - SKEW_MS;
    let n = 0;
    for await (const v of o.client.orders.iterate({ trader: o.trader, limit: 100 })) {
      if (venueMs(v.insertedAt) < since) break;
      seen.set(v.nonce, v);
      if (++n >= (o.maxOrders ?? 20_000)) {
        log.warn({ read: n }, 'more orders since the last start than the catch-up reads; older ones are looked up by nonce');
        break;
      }
    }
    let lookups = 0;
    const lookups3 = new Set([...(o.closing ?? []), ...o.ledger.unendedOrders().map((u) => u.nonce), ...(o.alsoNonces ?? [])]);
    for (const nonce of lookups3) {
      const u = { nonce };
      if (seen.has(u.nonce)) continue;
      if (lookups++ >= (o.maxLookups ?? 500)) {
        incomplete = true;
        break;
      }
      try {
        for await (const v of o.client.orders.iterate({ trader: o.trader, search: u.nonce, limit: 100 })) {
          // an order the books placed is ours whatever its market (the scope may have moved since)
          if (v.nonce === u.nonce) seen.set(u.nonce, v);
        }
        // never placed (a send whose answer was lost and that did not land): nothing to wait for
        if (!seen.has(u.nonce)) o.ledger.orderEnded(u.nonce, 'not-found', o.clock.now());
      } catch (e) {
        incomplete = true;
        log.warn({ nonce: u.nonce, err: (e as Error).message }, 'an unfinished order could not be read; its fills are fetched at the next start');
      }
    }
  }
  // only the orders read (an index lookup each), not every order the ledger ever filled
  const accounted = o.ledger.accountedFor(seen.keys());
  const now = o.clock.now();
  const alive = fresh ? now : Math.min(now, o.ledger.lastSignOfLife());
  const birth = fresh ? null : o.ledger.firstStartup();
  const fees = o.fees ?? NO_FEES;
  let recorded = 0;
  let shares = 0;
  // each open order's filled shares and their collateral as the ledger holds them after this catch-up
  const costs = new Map<Bytes32, number | null>();
  for (const [k, v] of seen) {
    const filled = filledShares(v, fees);
    const held = accounted.get(k);
    const before = held?.filled;
    // unknown while any of the order's shares are history (a baseline, or fills from before the ledger began)
    costs.set(k, held !== undefined ? held.cost : filled === 0 ? 0 : null);
    if (before === undefined && fresh) {
      // every open order gets a baseline, 0 included: an order the ledger has no figure for and that
      // was placed before it began is history (below), so an open one must be on record to count its later fills
      if (v.status === 'open') o.ledger.fillBaseline(k, filled);
      continue;
    }
    // placed before this ledger began and not open then (it would have a baseline): its fills are
    // history, in the holdings the ledger began with (its baseline), never fills of these books
    if (before === undefined && birth !== null && venueMs(v.insertedAt) < birth) continue;
    const from = before ?? 0;
    if (filled <= from) continue;
    const size = filled - from;
    const ts = Math.min(now, Math.max(alive, venueMs(v.insertedAt)));
    // ours: the ledger saw it placed (or adopted) or its nonce has the ledger's tag; else another trader's on this wallet
    // (a nonce with the ledger's tag was signed by this bookmaker even if a crash lost its record)
    // (a sibling shard's order is a sibling's, whatever market it rests in)
    const own = o.ledger.isTagged(k) || o.ledger.hasOrder(k) || (o.owns !== undefined && o.owns(v.marketId) && !(o.sibling?.(k) ?? false));
    const part = fillPart(v, filled, held ?? { filled: 0, cost: 0 }, fees);
    costs.set(k, part.cost);
    o.ledger.fill({
      fillId: `${k}:${filled}`,
      nonce: k,
      marketId: v.marketId,
      outcomeIndex: v.outcomeIndex,
      side: v.side,
      price: part.price,
      size,
      fee: part.fee,
      feeSource: 'model',
      origin: own ? 'own' : 'foreign',
      ts,
      source: 'catch-up',
      filled,
      orderKind: v.sv2OrderKind ?? null,
      notional: part.notional ?? null,
    });
    recorded++;
    shares += filled - from;
  }
  // orders that ended while we were down end in the ledger too (with or without fills)
  for (const [k, v] of seen) if (v.status !== 'open') o.ledger.orderEnded(k, v.status, now);
  o.ledger.flush();
  if (recorded > 0)
    log.info(
      { fills: recorded, shares },
      o.when === 'stop'
        ? 'stop: fills that landed while the orders were being cancelled (after the feeds closed) read from the venue and recorded'
        : 'fills made while the bot was down recorded',
    );
  return {
    recorded,
    shares,
    ordersRead: seen.size,
    openOrders: open.map((v) => ({ nonce: v.nonce, filled: filledShares(v, fees), ref: v.hash ?? v.id ?? v.nonce, cost: costs.get(v.nonce) ?? null })),
    incomplete,
    closing: (o.closing ?? []).flatMap((n) => {
      const v = seen.get(n);
      return v === undefined ? [] : [{ nonce: n, marketId: v.marketId, status: v.status }];
    }),
  };
}
