/**
 * The benches' fake venue at the HTTP client's seam: a LiveOrdersClient that serialises each
 * request body as the transport would, hands it to `wire` (which notes the time) and accepts every
 * order and cancel at once. The live venue (src/runtime/live-venue.ts) signs and sends through it,
 * so a bench measures the whole live path without a network.
 *
 *   const venue = createLiveVenue({ client: { orders: stubOrdersClient((body) => ...) }, signer });
 *   bookSnapshot(marketId, mid, seq)   // a two-level book around `mid` as the stream delivers it
 */
import { systemClock } from '../../src/core/clock.ts';
import type { BulkOperation, BulkResult } from '../../src/exchange/client/orders-write.ts';
import type { Bytes32, CancelBody, CreateOrderBody, LimitOrderBody, VenueOrder } from '../../src/model/order.ts';
import type { LiveOrdersClient } from '../../src/runtime/live-venue.ts';
import type { StateEvent } from '../../src/state/events.ts';

/** The open order the venue answers for a create body (nothing filled). */
export function orderOfBody(body: LimitOrderBody | CreateOrderBody): VenueOrder {
  const b = body as LimitOrderBody;
  return {
    marketId: b.marketId,
    trader: b.trader,
    nonce: b.nonce,
    side: b.side as 0 | 1,
    outcomeIndex: b.outcomeIndex as 0 | 1,
    price: Number(b.price),
    size: Number(b.size),
    filledSize: 0,
    remainingSize: Number(b.size),
    percentFilled: 0,
    type: 'limit',
    status: 'open',
    voidReason: null,
    insertedAt: '',
    expiry: Number(b.expiry),
    settlementVersion: 2,
    sv2OrderKind: b.side === 0 ? 0 : 1,
    sv2TimeInForce: 0,
    sv2MinSharesOut: null,
    sv2MaxCollateralIn: null,
    sv2MinCollateralOut: null,
  };
}

/** `wire(body)` is called with each request body before it is answered; it should JSON.stringify it. */
export function stubOrdersClient(wire: (body: unknown) => void): LiveOrdersClient {
  const created = (b: LimitOrderBody | CreateOrderBody) => ({ type: 'create' as const, ok: true as const, order: orderOfBody(b) });
  const cancelled = (c: CancelBody) => ({ type: 'cancel' as const, ok: true as const, trader: c.trader, nonce: c.nonce, alreadyCancelled: false });
  return {
    async bulk(ops: BulkOperation[]): Promise<BulkResult> {
      wire({ operations: ops });
      return { results: ops.map((o) => (o.type === 'create' ? created(o.order as LimitOrderBody) : cancelled(o.cancel))), duplicate: false };
    },
    async bulkCreate(orders) {
      wire({ orders });
      return { results: orders.map(created), duplicate: false };
    },
    async bulkCancel(cs) {
      wire({ cancels: cs });
      return { results: cs.map(cancelled), duplicate: false };
    },
    async create(body) {
      wire(body);
      return { nonce: body.nonce, order: orderOfBody(body), duplicate: false };
    },
    async cancelReplace(cancel, create) {
      wire({ cancel, create });
      return {
        cancel: { trader: cancel.trader, nonce: cancel.nonce, alreadyCancelled: false },
        create: { nonce: create.nonce, order: orderOfBody(create), duplicate: false },
      };
    },
    // no open orders at the start
    // eslint-disable-next-line require-yield
    async *iterate() {
      return;
    },
  };
}

/** A stream snapshot of `marketId`'s YES book: two levels a side, 1¢ and 2¢ from `mid`. */
export function bookSnapshot(marketId: Bytes32, mid: number, seq: number): StateEvent {
  const now = systemClock.now();
  return {
    type: 'BookEventReceived',
    event: {
      type: 'snapshot',
      book: {
        marketId,
        outcomeIndex: 1,
        bids: [
          { price: mid - 10_000, size: 500_000_000 },
          { price: mid - 20_000, size: 500_000_000 },
        ],
        asks: [
          { price: mid + 10_000, size: 500_000_000 },
          { price: mid + 20_000, size: 500_000_000 },
        ],
        venueTs: now,
        seq,
      },
      seq,
      localTs: now,
      source: 'stream',
    },
    ts: now,
  };
}
