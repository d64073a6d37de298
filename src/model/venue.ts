/**
 * The venue port: the one interface the order manager talks to (docs/architecture.md#the-pipeline). Two
 * implementations: the live venue (HTTP client + EIP-712 signing at the edge, src/runtime) and the
 * sim venue (matching engine + latency/queue model, src/backtest). Orders arrive unsigned with their
 * nonce already assigned by the order manager; the live venue signs, the sim venue does not.
 */
import type { Address, Bytes32, LimitOrder, VenueOrder } from './order.ts';

/** A create with its nonce fixed, so a retry resends the same order (and the same signed body). */
export type PlannedOrder = LimitOrder & { nonce: Bytes32 };

export type CreateOutcome =
  | { ok: true; nonce: Bytes32; order: VenueOrder | null; duplicate: boolean }
  | { ok: false; nonce: Bytes32; code: string; message: string; retryable: boolean; migration?: boolean; status?: number; venueCode?: string };

export type CancelOutcome =
  | { ok: true; nonce: Bytes32; alreadyCancelled: boolean }
  | { ok: false; nonce: Bytes32; code: string; message: string; retryable: boolean };

export interface BatchResult {
  creates: CreateOutcome[];
  cancels: CancelOutcome[];
}

export interface VenuePort {
  readonly trader: Address;
  /** the venue's batch limit (orders per bulk call) */
  readonly batchLimit: number;
  /**
   * Cancels and creates in as few calls as possible (one mixed bulk call when they fit). `marketId`:
   * the one market they all belong to, when the caller knows it (a cancel carries no market; the
   * live venue's tick-to-wire metric needs one); omitted for calls across markets.
   */
  batch(creates: PlannedOrder[], cancels: Bytes32[], marketId?: Bytes32): Promise<BatchResult>;
  /** One-for-one move: cancel `cancelNonce` and create `create` in one call. */
  cancelReplace(cancelNonce: Bytes32, create: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }>;
  /** Every open order of the trader (all pages), optionally for one market. */
  openOrders(marketId?: Bytes32): Promise<VenueOrder[]>;
}
