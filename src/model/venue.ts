/**
 * The venue port: the one interface the order manager talks to (docs/architecture.md#the-pipeline). Two
 * implementations: the live venue (HTTP client + EIP-712 signing at the edge, src/runtime) and the
 * sim venue (matching engine + latency/queue model, src/backtest). Orders arrive unsigned with their
 * nonce already assigned by the order manager; the live venue signs, the sim venue does not.
 */
import type { Address, Bytes32, LimitOrder, VenueOrder } from './order.ts';

/** A create with its nonce fixed, so a retry resends the same order (and the same signed body). */
export type PlannedOrder = LimitOrder & { nonce: Bytes32 };

/**
 * What went wrong with a venue call, as the venue client's classifier names it
 * (src/exchange/client/classify.ts; the HTTP statuses behind each: docs/venue.md#authentication-errors-and-retries).
 */
export type ErrorReason =
  | 'rate-limited'
  | 'server-error'
  | 'network'
  | 'timeout'
  | 'duplicate'
  | 'migration-required'
  | 'invalid-signature'
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'bad-response'
  | 'not-idempotent'
  | 'unknown';

/**
 * Why a create or a cancel failed: the one failure vocabulary from the venue client to the order
 * manager. A venue maps its answer (or the error its call threw) to it once, where it reads the answer
 * (the live venue with the client's classifier and `failureOf`, the sim and paper venues from their
 * own refusals); the order manager, its events and the metrics use it as it is. The venue's own code,
 * when it gave one, travels beside it as `venueCode`.
 * - an ErrorReason: the venue's answer (or the call's failure) for this item;
 * - `not-applied`: the venue refused another item of the same call, so this one was not applied;
 * - `no-answer`: the venue's answer said nothing about this item.
 */
export type VenueFailure = ErrorReason | 'not-applied' | 'no-answer';

export type CreateOutcome =
  | { ok: true; nonce: Bytes32; order: VenueOrder | null; duplicate: boolean }
  | { ok: false; nonce: Bytes32; code: VenueFailure; message: string; retryable: boolean; migration?: boolean; status?: number; venueCode?: string };

export type CancelOutcome =
  | { ok: true; nonce: Bytes32; alreadyCancelled: boolean }
  | { ok: false; nonce: Bytes32; code: VenueFailure; message: string; retryable: boolean };

export interface BatchResult {
  creates: CreateOutcome[];
  cancels: CancelOutcome[];
}

export interface VenuePort {
  /**
   * The bot's wallet as it is sent (docs/venue.md#encodings-and-enums): EIP-55, the signer's `address`,
   * for the live venue. Compare it with an address from elsewhere through its normal form
   * (src/model/ids.ts `addressOf`), never as text.
   */
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
