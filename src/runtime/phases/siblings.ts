/**
 * The other shards of this wallet in this shard's markets (docs/operating.md#changing-the-shard-count):
 * after a re-split (N → N′) a market can move to this shard while its old owner's orders still rest there
 * (the old owner crashed, or still runs with the old N). Their nonce tags name a sibling shard
 * (src/runtime/shard-tags.ts), so they are neither another trader's (no exit 7, no wallet halt) nor this
 * ledger's (never adopted into its books):
 *   cancelSiblingsAtStart  after the start-up reconcile, before the first quote: the siblings' orders in
 *                          this shard's markets are cancelled (a cancel that fails refuses the start, exit 7);
 *                          a market where a lower-index sibling's stood is not quoted until a listing shows
 *                          that sibling did not place again (it may still run with the old count);
 *   watchSiblings          while running: a sibling of a lower index quoting a market of this shard (an
 *                          old-count shard still running) wins it: this shard pulls its quotes there and
 *                          quotes it again once that sibling's orders are gone from SIBLING_GONE_LISTINGS
 *                          listings in a row (a running sibling's orders are missing from one listing while
 *                          it requotes after a fill or pulls a side for a moment); a sibling of a higher
 *                          index steps back itself. So no shard halts for another, and a market is quoted by
 *                          two shards only when a sibling's quotes were missing that long and it quoted again
 *                          (for a reconcile). bookmaker_shard_contested_markets.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Bytes32, VenueOrder } from '../../model/order.ts';
import type { VenuePort } from '../../model/venue.ts';
import { describeForeign, foreignText, WalletSharedError, type SiblingOrders, type WalletWatch } from '../wallet-watch.ts';
import type { StartContext } from './start-context.ts';

/**
 * The siblings' orders the start-up found in this shard's markets, cancelled before the first quote.
 * Returns each market they stood in with the lowest sibling index there (watchSiblings' `contest`).
 */
export async function cancelSiblingsAtStart(c: StartContext, watch: WalletWatch | null, venue: VenuePort): Promise<Map<Bytes32, number>> {
  const found = watch?.siblingsAtStart() ?? [];
  const lowest = new Map<Bytes32, number>();
  for (const { order, shard } of found) lowest.set(order.marketId, Math.min(shard, lowest.get(order.marketId) ?? shard));
  if (found.length === 0) return lowest;
  const byMarket = new Map<Bytes32, Bytes32[]>();
  for (const { order } of found) byMarket.set(order.marketId, [...(byMarket.get(order.marketId) ?? []), order.nonce]);
  const shards = [...new Set(found.map((f) => f.shard))].sort((a, b) => a - b);
  const failed: VenueOrder[] = [];
  let cancelled = 0;
  const limit = Math.max(1, venue.batchLimit);
  for (const [marketId, nonces] of byMarket)
    for (let i = 0; i < nonces.length; i += limit) {
      const part = nonces.slice(i, i + limit);
      try {
        const r = await venue.batch([], part, marketId);
        for (const o of r.cancels) if (o.ok) cancelled++;
        const bad = new Set(r.cancels.filter((o) => !o.ok).map((o) => o.nonce));
        for (const n of part) if (bad.has(n) || !r.cancels.some((o) => o.nonce === n)) failed.push(found.find((f) => f.order.nonce === n)!.order);
      } catch (e) {
        c.log.error({ err: (e as Error).message, market: marketId }, "cancelling a sibling shard's orders failed");
        for (const n of part) failed.push(found.find((f) => f.order.nonce === n)!.order);
      }
    }
  const what = foreignText(describeForeign(found.map((f) => f.order)));
  c.log.warn(
    { orders: found.length, markets: byMarket.size, shards, cancelled, failed: failed.length },
    `orders of sibling shard${shards.length === 1 ? '' : 's'} ${shards.join(', ')} in markets this shard owns now (the shard count changed): ${what}; ` +
      `cancelled ${cancelled} before the first quote (they are that shard's records: not adopted into this ledger)`,
  );
  if (failed.length > 0)
    throw new WalletSharedError(
      `orders of a sibling shard in this shard's markets could not be cancelled: ${foreignText(describeForeign(failed))}. ` +
        'Not quoting beside them: stop the shards of the old count (each cancels its orders), then start this one again',
      describeForeign(failed),
    );
  return lowest;
}

/** What watchSiblings acts on: the kernel's market pauses and the operator's own pauses (never lifted here). */
export interface SiblingControls {
  pause(marketId: Bytes32 | null): boolean;
  resume(marketId: Bytes32 | null): boolean;
  isPaused(marketId: Bytes32): boolean;
  /** the operator paused this market (bookmaker ctl pause): it stays paused when the sibling goes */
  isHeldPause(marketId: Bytes32): boolean;
}

/**
 * While running: at every listing, a market of this shard where a sibling of a lower index has orders
 * is given up to it (quotes pulled) until a listing of that market shows none; a sibling of a higher
 * index is left to step back. Returns the contested markets (market → the sibling), for tests.
 */
/**
 * Listings in a row that must show a contested market without the sibling's orders before this shard quotes it
 * again: one listing catches a running sibling between its quotes (a clean-clone CI saw shard 2/3 quote a market
 * shard 0 still ran, from one such listing).
 */
export const SIBLING_GONE_LISTINGS = 3;

export function siblingHandler(
  c: Pick<StartContext, 'log'>,
  ownIndex: number,
  k: SiblingControls,
): {
  onSiblings: (found: ReadonlyMap<Bytes32, SiblingOrders>, covered: readonly Bytes32[] | null) => void;
  /**
   * start-up: a market where a lower-index sibling's orders were just cancelled is not quoted until a
   * listing shows that sibling placed none again (it may still run with the old count)
   */
  contest: (marketId: Bytes32, sibling: number) => void;
  contested: ReadonlyMap<Bytes32, number>;
} {
  const contested = new Map<Bytes32, number>();
  /** contested markets: listings in a row that showed no order of the sibling there */
  const absent = new Map<Bytes32, number>();
  const told = new Set<string>();
  /** contested markets whose sibling was seen quoting while this shard runs (logged once) */
  const said = new Set<Bytes32>();
  const onSiblings = (found: ReadonlyMap<Bytes32, SiblingOrders>, covered: readonly Bytes32[] | null): void => {
    for (const [m, s] of found) {
      if (s.shard < ownIndex) {
        if (!said.has(m)) {
          said.add(m);
          c.log.warn(
            { market: m, sibling: s.shard, orders: s.orders.length },
            `sibling shard ${s.shard} still quotes market ${m}, which this shard owns now (an old shard count still runs): ` +
              `this shard pulls its quotes there and quotes it again once shard ${s.shard}'s orders are gone (stop the shards of the old count)`,
          );
        }
        contested.set(m, s.shard);
        absent.delete(m);
        if (!k.isPaused(m)) k.pause(m);
      } else if (!told.has(`${m}:${s.shard}`)) {
        told.add(`${m}:${s.shard}`);
        c.log.warn(
          { market: m, sibling: s.shard, orders: s.orders.length },
          `sibling shard ${s.shard} has orders in market ${m}, which this shard quotes: ` +
            `shard ${s.shard} gives it up (the lower index keeps a contested market)`,
        );
      }
    }
    for (const [m, j] of contested) {
      if (found.has(m) || (covered !== null && !covered.includes(m))) continue;
      const n = (absent.get(m) ?? 0) + 1;
      if (n < SIBLING_GONE_LISTINGS) {
        absent.set(m, n);
        continue;
      }
      absent.delete(m);
      contested.delete(m);
      said.delete(m);
      const held = k.isHeldPause(m);
      if (!held) k.resume(m);
      c.log.info(
        { market: m, sibling: j },
        `sibling shard ${j}'s orders are gone from market ${m}: ${held ? 'it stays paused by the operator' : 'quoting it again'}`,
      );
    }
  };
  const contest = (m: Bytes32, j: number): void => {
    if (j >= ownIndex) return;
    contested.set(m, j);
    absent.delete(m);
    if (!k.isPaused(m)) k.pause(m);
  };
  return { onSiblings, contest, contested };
}

export function registerSiblingMetrics(registry: Registry, contested: () => number, prefix = 'bookmaker_'): void {
  new Gauge({
    name: `${prefix}shard_contested_markets`,
    help: 'Markets of this shard where a sibling shard of a lower index still quotes (an old shard count runs): this shard pulled its quotes there',
    registers: [registry],
    collect() {
      this.set(contested());
    },
  });
}
