/**
 * The stored records of the local exchange: markets, orders, activity entries and API keys.
 * Plain data (no methods) so the whole state can be saved to a file and restored; bigint fields
 * are handled by the state file codec (./state-file.ts). Ids and addresses are lower-case
 * (./wire-ids.ts): answers checksum the addresses.
 */
import type { Address, Bytes32, OrderKindValue, OrderStatus, OutcomeIndex, SideValue, TimeInForceValue, VoidReason } from '../model/order.ts';
import type { LowerAddress } from './wire-ids.ts';

/** Permissions an API key may hold. `trade` covers orders; `can_create_markets` the market creation path. */
export type Permission = 'read' | 'trade' | 'can_create_markets' | 'admin';

export interface ApiKeyRecord {
  /** the bearer token; never logged */
  key: string;
  /** the key's primary wallet, EIP-55 checksummed (as `bookmaker sim` prints it); compare it through `walletOf` (./wire-ids.ts) */
  wallet: Address;
  perms: Permission[];
  /** demo keys only (throwaway wallets generated at start-up); never logged */
  privateKey?: `0x${string}`;
}

export type MarketStatus = 'active' | 'pending' | 'resolved' | 'closed';
export type ResolutionStatus = 'none' | 'pending' | 'resolved';

export interface MarketRecord {
  id: Bytes32;
  slug: string;
  question: string;
  shortQuestion: string;
  resolutionCriteria: string;
  category: string;
  visibility: 'public' | 'unlisted';
  creator: LowerAddress;
  oracle: LowerAddress;
  outcomeTokens: [LowerAddress, LowerAddress];
  contractAddress: LowerAddress;
  txHash: Bytes32;
  questionSubmissionId: string | null;
  /** ms since epoch */
  createdAt: number;
  /** ms since epoch */
  deadline: number;
  status: MarketStatus;
  resolutionStatus: ResolutionStatus;
  resolvedAt: number | null;
  /** when trading stopped at the deadline (the resolution was proposed); absent on markets never closed */
  closedAt?: number | null;
  /** [NO %, YES %] once resolved */
  payoutPcts: number[] | null;
  outcome: number | null;
  /** price tick in 1e-6 units (e.g. 10_000 = one cent) */
  tick: number;
  /** collateral traded, 1e-6 USDC */
  volume: bigint;
  /** last traded YES price (1e-6 units), null before the first trade */
  lastPrice: number | null;
  /** trader addresses that traded or hold orders here */
  participants: LowerAddress[];
  metadata: Record<string, unknown>;
}

export interface StoredOrder {
  /** numeric DB id, 1-based, unique across the exchange */
  id: number;
  /** EIP-712 order hash (0x, 64 hex) */
  hash: Bytes32;
  marketId: Bytes32;
  trader: LowerAddress;
  nonce: Bytes32;
  side: SideValue;
  outcomeIndex: OutcomeIndex;
  /** 1e-6 USDC per share (the signed limit price; for market orders the maxPrice) */
  price: number;
  /** spec semantics: shares for sells; for V2 buys the all-in budget (collateral + fee cap) */
  size: number;
  /** same units as size */
  filledSize: number;
  /** shares bought or sold so far, 1e-6 shares */
  filledShares: number;
  /** collateral paid or received for those shares (excluding fees), 1e-6 USDC */
  filledCollateral: number;
  feesPaid: number;
  type: 'limit' | 'market';
  clientOrderType: 'limit' | 'market' | null;
  status: OrderStatus;
  voidReason: VoidReason | null;
  voidedAt: number | null;
  /** ms since epoch */
  insertedAt: number;
  /** unix seconds (0 = none; an expiry beyond 2^53 s, "never" in practice, is 0 here and kept exactly in `expiryText`) */
  expiry: number;
  /** the signed expiry's exact decimal when it is beyond 2^53 (else absent) */
  expiryText?: string;
  maxFee: number;
  inventoryModeConstraint: number;
  makerRoleConstraint: number;
  settlementVersion: 1 | 2;
  sv2OrderKind: OrderKindValue | null;
  sv2TimeInForce: TimeInForceValue | null;
  sv2MaxShares: bigint | null;
  sv2MinSharesOut: bigint | null;
  sv2MaxCollateralIn: bigint | null;
  sv2MinCollateralOut: bigint | null;
  buyValue: number | null;
  /** the matching engine's order id, null when the engine refused it */
  engineId: number | null;
}

export type ActivityType = 'trade' | 'oracle_update' | 'resolution' | 'market_created';

export interface ActivityEntry {
  /** strictly increasing, used as the pagination cursor */
  seq: number;
  type: ActivityType;
  marketId: Bytes32;
  /** ms since epoch */
  ts: number;
  /** the spec's `data` object for this type */
  data: Record<string, unknown>;
  /** traders involved (trade entries), for per-trader filters */
  traders?: LowerAddress[];
}
