/**
 * Which events say that one of our orders is over at the venue without a cancel of ours still to
 * come, so per-order memory kept for it (the live venue's cancel body signed ahead) can go.
 *
 * Entry point: `endedOrderNonce(event)` → the order's nonce, or null.
 *
 * A feed's OrderClosed (filled, cancelled, expired, voided), the order manager's OrderGone (left the
 * venue) and OrderCancelled, and an OrderRemainingChanged to 0 (every share filled). Getting one
 * wrong costs little either way: a cancel sent after all is signed on the spot.
 */
import type { Bytes32 } from '../model/order.ts';
import type { StateEvent } from '../state/events.ts';

export function endedOrderNonce(e: StateEvent): Bytes32 | null {
  switch (e.type) {
    case 'OrderClosed':
    case 'OrderGone':
    case 'OrderCancelled':
      return e.nonce;
    case 'OrderRemainingChanged':
      return e.remaining === 0 ? e.nonce : null;
    default:
      return null;
  }
}
