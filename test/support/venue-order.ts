/**
 * One VenueOrder as the venue lists it, and a fake of the venue's order listing for the readers that
 * page through it (the ledger's catch-up, the fills feed, the stop's sweep).
 *
 *   venueOrder({ nonce, filledSize: 4_000_000, status: 'filled' })   // remainingSize follows
 *   ordersSource([a, b])                                              // { orders: { iterate } }
 */
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import type { Bytes32, NormalAddress, VenueOrder } from '../../src/model/order.ts';

export const T0 = 1_800_000_000_000;
export const MARKET = ('0x' + '11'.repeat(32)) as Bytes32;
export const TRADER = ('0x' + '33'.repeat(20)) as NormalAddress;

/** A 32-byte hex id of one repeated character: `hex32('a')` is 0xaaaa…a. */
export const hex32 = (c: string): Bytes32 => ('0x' + c.repeat(64)) as Bytes32;

/** A clock the test moves by setting `t`; its timers never run. */
export function settableClock(t = T0): Clock & { t: number } {
  const clock: Clock & { t: number } = { t, now: () => clock.t, scheduler: asyncScheduler, setTimeout: () => () => undefined };
  return clock;
}

/**
 * A V2 limit order resting at the venue: a sell of 10 YES at 0.60 in MARKET by TRADER, nothing filled,
 * listed a second after T0. `o` overrides any field; `remainingSize` follows `size` and `filledSize`
 * unless given, and `id` is the nonce unless given.
 */
export function venueOrder(o: Partial<VenueOrder> = {}): VenueOrder {
  const nonce = o.nonce ?? hex32('0');
  const size = o.size ?? 10_000_000;
  const filledSize = o.filledSize ?? 0;
  return {
    id: nonce,
    marketId: MARKET,
    trader: TRADER,
    nonce,
    side: 1,
    outcomeIndex: 1,
    price: 600_000,
    size,
    filledSize,
    remainingSize: size - filledSize,
    percentFilled: 0,
    type: 'limit',
    status: 'open',
    voidReason: null,
    insertedAt: new Date(T0 + 1_000).toISOString(),
    expiry: 0,
    settlementVersion: 2,
    sv2OrderKind: 1,
    sv2TimeInForce: 0,
    sv2MinSharesOut: null,
    sv2MaxCollateralIn: null,
    sv2MinCollateralOut: null,
    ...o,
  };
}

/**
 * The venue's order listing over `orders`, filtered by status and by nonce (`search`) as the venue
 * filters; `newestFirst` lists them in reverse, as the venue pages its history.
 */
export function ordersSource(orders: VenueOrder[], opts: { newestFirst?: boolean } = {}) {
  return {
    orders: {
      async *iterate(p: { status?: string[]; search?: string }) {
        for (const o of opts.newestFirst ? [...orders].reverse() : orders) {
          if (p.status && !p.status.includes(o.status)) continue;
          if (p.search && o.nonce !== p.search) continue;
          yield o;
        }
      },
    },
  };
}
