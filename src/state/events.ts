/**
 * Typed events reduced by the state store (docs/architecture.md#habits (habit 4): events are past tense).
 *
 * Producers: feeds (book, metadata, oracle, balances, fills), the order manager (order lifecycle,
 * reconciliation, blocking on migration, back-off) and the risk gate (QuoteDenied). The store
 * (src/state/store.ts) is the one consumer that turns them into snapshots; metrics bind to the
 * same stream (src/metrics/bind-store-metrics.ts). All amounts in integer units (src/model/units.ts).
 * `ts` is the injected clock's time in ms when the event was produced.
 */
import type { BookEvent } from '../model/stream.ts';
import type { Bytes32, OrderStatus, OutcomeIndex, SideValue, VoidReason } from '../model/order.ts';
import type { PlannedOrder, VenueFailure } from '../model/venue.ts';
import type { QuoteDenied } from '../risk/types.ts';
import type { MarketStatus } from '../strategy/types.ts';

/** The risk gate's denial event (defined by the risk layer, reduced and counted here). */
export type { QuoteDenied };

/** A book snapshot, delta, trade or stream status from the streaming client. */
export interface BookEventReceived {
  readonly type: 'BookEventReceived';
  readonly event: BookEvent;
  readonly ts: number;
}

export interface MarketMetadataUpdated {
  readonly type: 'MarketMetadataUpdated';
  readonly marketId: Bytes32;
  readonly slug?: string;
  /** price tick, 1e-6 USDC */
  readonly tick?: number;
  /** minimum order size, 1e-6 shares */
  readonly minSize?: number;
  /** trading deadline, ms since epoch */
  readonly deadline?: number | null;
  readonly status?: MarketStatus;
  /** on resolution: what one YES share pays, in 1e-6 USDC (1e6 = YES won, 0 = NO won) */
  readonly payoutYes?: number | null;
  readonly ts: number;
}

export interface OracleUpdated {
  readonly type: 'OracleUpdated';
  readonly marketId: Bytes32;
  /** YES probability in [0, 1] */
  readonly probability: number;
  /** confidence in [0, 1] */
  readonly confidence: number;
  /** ms timestamp of the oracle quote */
  readonly updatedAt: number;
  readonly ts: number;
}

export interface BalanceUpdated {
  readonly type: 'BalanceUpdated';
  /** free collateral, 1e-6 USDC */
  readonly collateral: bigint;
  readonly ts: number;
}

/** The venue's holdings for a market; the store trusts it over its own fill arithmetic. */
export interface PositionSynced {
  readonly type: 'PositionSynced';
  readonly marketId: Bytes32;
  readonly yes: number;
  readonly no: number;
  readonly ts: number;
  /** when the read was sent (local clock, ms): it holds every fill before then; default `ts` */
  readonly readStartedAt?: number;
}

/** One of our orders traded. `price`/`side`/`outcomeIndex` are the venue order's own terms. */
export interface OrderFilled {
  readonly type: 'OrderFilled';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32 | null;
  readonly outcomeIndex: OutcomeIndex;
  readonly side: SideValue;
  readonly price: number;
  /** shares, 1e-6 */
  readonly size: number;
  /** fee paid, 1e-6 USDC */
  readonly fee: number;
  /** venue identity of the fill, for de-duplication (activity id or tx hash + index) */
  readonly fillId?: string;
  readonly ts: number;
  /** who stated `fee`: the venue or the engine that charged it ('venue', the default) or the configured fee model ('model') */
  readonly feeSource?: 'venue' | 'model';
  /** 'foreign': an order this bookmaker did not place (a person or another instance on the wallet); default own */
  readonly origin?: 'own' | 'foreign';
  /**
   * how the venue settles a sale (the order's kind): 1 from inventory, 2 without (it mints a complete
   * set per share and keeps the other outcome, whatever is held); absent: from inventory as far as
   * held, the excess minted (docs/books-and-pnl.md)
   */
  readonly orderKind?: 0 | 1 | 2;
  /**
   * the fill's collateral in its own outcome's terms, 1e-6 USDC, when it is not price × size: a part
   * of an order that filled at several prices, derived from the venue's average (`price` is then that
   * part's average, rounded); absent: price × size
   */
  readonly notional?: number;
}

/**
 * A feed saw one of our orders closed at the venue (filled, cancelled, expired or voided), after
 * reporting any fills it had: the order manager stops counting it (OrderManager.settle).
 */
export interface OrderClosed {
  readonly type: 'OrderClosed';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  readonly status: OrderStatus;
  /** why the venue voided it (status voided), when it said */
  readonly voidReason?: VoidReason;
  readonly ts: number;
}

export interface OrderSubmitted {
  readonly type: 'OrderSubmitted';
  readonly marketId: Bytes32;
  readonly slot: string;
  readonly nonce: Bytes32;
  readonly order: PlannedOrder;
  /** true when the same signed order is sent again after a retryable failure */
  readonly retry: boolean;
  readonly ts: number;
}

export interface OrderAccepted {
  readonly type: 'OrderAccepted';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the venue answered 409 duplicate: an earlier send had already placed it */
  readonly duplicate: boolean;
  /**
   * the filled size (the venue's units: shares, a V2 buy's budget spent) the create answer stated,
   * when above 0: the order crossed the book on arrival, and those fills took liquidity
   */
  readonly filledOnArrival?: number;
  /**
   * the venue's time (ms) of the order's insertion, as the create answer stated it (absent for a
   * duplicate or an answer without the order): a time the venue read after the request arrived
   */
  readonly insertedAt?: number;
  readonly ts: number;
}

export interface OrderRejected {
  readonly type: 'OrderRejected';
  readonly marketId: Bytes32;
  readonly slot: string;
  readonly nonce: Bytes32;
  /** why, in the failure vocabulary (src/model/venue.ts); the metrics label is refusalLabel's */
  readonly reason: VenueFailure;
  readonly retryable: boolean;
  /** the order may still have reached the venue (a lost answer): it stays in flight until settled */
  readonly mayHaveLanded: boolean;
  /** the venue's answer, when there was one: HTTP status, its `code` and message (for logs and labels) */
  readonly status?: number;
  readonly venueCode?: string;
  readonly message?: string;
  readonly ts: number;
}

export interface CancelSubmitted {
  readonly type: 'CancelSubmitted';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the order is a stranger reconciliation is cancelling (an `orphan:` slot, src/orders/orphan-slot.ts), not one of this run's */
  readonly stranger?: true;
  readonly ts: number;
}

export interface OrderCancelled {
  readonly type: 'OrderCancelled';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the order is a stranger reconciliation is cancelling (an `orphan:` slot, src/orders/orphan-slot.ts), not one of this run's */
  readonly stranger?: true;
  readonly alreadyCancelled: boolean;
  readonly ts: number;
}

export interface CancelFailed {
  readonly type: 'CancelFailed';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the order is a stranger reconciliation is cancelling (an `orphan:` slot, src/orders/orphan-slot.ts), not one of this run's */
  readonly stranger?: true;
  readonly reason: VenueFailure;
  readonly retryable: boolean;
  readonly ts: number;
}

/** Reconciliation found an order of ours at the venue we did not track and took it into a slot. */
export interface OrderAdopted {
  readonly type: 'OrderAdopted';
  readonly marketId: Bytes32;
  readonly slot: string;
  readonly nonce: Bytes32;
  readonly order: PlannedOrder;
  readonly remaining: number;
  readonly ts: number;
}

/**
 * The order left the venue (a cancel was answered, or it vanished from the open list) but fills it
 * may have had are not known yet: it keeps counting at worst case, no longer as a live quote, until
 * OrderCancelled / OrderGone ends it (see the order manager's `settleMs`).
 */
export interface OrderParked {
  readonly type: 'OrderParked';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the venue answered our cancel of it (not already cancelled): OrderCancelled ends it; absent: it was found gone */
  readonly cancelled?: true;
  readonly ts: number;
}

/** Reconciliation found a tracked order no longer open at the venue (filled, cancelled, expired). */
export interface OrderGone {
  readonly type: 'OrderGone';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  readonly ts: number;
}

/** The remaining size of a working order changed (partial fill seen on the venue). */
export interface OrderRemainingChanged {
  readonly type: 'OrderRemainingChanged';
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  readonly remaining: number;
  readonly ts: number;
}

export interface OrdersReconciled {
  readonly type: 'OrdersReconciled';
  readonly marketId: Bytes32 | null;
  readonly adopted: number;
  readonly cancelled: number;
  readonly dropped: number;
  readonly ts: number;
}

/** Trading in a market stopped (409 migration, or a halt) / resumed. */
export interface MarketBlocked {
  readonly type: 'MarketBlocked';
  readonly marketId: Bytes32;
  readonly reason: 'migration' | 'halted';
  readonly ts: number;
}
export interface MarketUnblocked {
  readonly type: 'MarketUnblocked';
  readonly marketId: Bytes32;
  readonly ts: number;
}

/** The venue rate-limited us; only cancels are sent until `until` (ms). */
export interface VenueBackedOff {
  readonly type: 'VenueBackedOff';
  readonly until: number;
  /** requotes not sent because of the back-off */
  readonly shed: number;
  readonly ts: number;
}

/** A venue call finished (for the error-rate kill switch and metrics). */
export interface VenueCallCompleted {
  readonly type: 'VenueCallCompleted';
  readonly call: 'batch' | 'cancel-replace' | 'open-orders';
  readonly ok: boolean;
  readonly ms: number;
  readonly ts: number;
}

/**
 * Market rotation retired a market (src/runtime/rotation): its cancels are confirmed and its feeds
 * closed, so its book, trade and mid history, oracle and edge state are dropped and memory returns.
 * With `keepPosition` and a position or an order still counted, a small record stays (position,
 * orders, status and payout, the last mid as the mark) so the position is still tracked and
 * reported; otherwise the market leaves the store.
 */
export interface MarketReleased {
  readonly type: 'MarketReleased';
  readonly marketId: Bytes32;
  readonly keepPosition: boolean;
  readonly ts: number;
}

export type StateEvent =
  | MarketReleased
  | BookEventReceived
  | MarketMetadataUpdated
  | OracleUpdated
  | BalanceUpdated
  | PositionSynced
  | OrderFilled
  | OrderClosed
  | OrderSubmitted
  | OrderAccepted
  | OrderRejected
  | CancelSubmitted
  | OrderCancelled
  | CancelFailed
  | OrderAdopted
  | OrderGone
  | OrderParked
  | OrderRemainingChanged
  | OrdersReconciled
  | MarketBlocked
  | MarketUnblocked
  | VenueBackedOff
  | VenueCallCompleted
  | QuoteDenied;

/** Events the order manager emits. */
export type OrderManagerEvent = Extract<
  StateEvent,
  {
    type:
      | 'OrderSubmitted'
      | 'OrderAccepted'
      | 'OrderRejected'
      | 'CancelSubmitted'
      | 'OrderCancelled'
      | 'CancelFailed'
      | 'OrderAdopted'
      | 'OrderGone'
      | 'OrderParked'
      | 'OrderRemainingChanged'
      | 'OrdersReconciled'
      | 'MarketBlocked'
      | 'MarketUnblocked'
      | 'VenueBackedOff'
      | 'VenueCallCompleted';
  }
>;
