/**
 * The persisted data of the migration state machine (docs/venue.md#migration-to-settlement-v2). Plain JSON-friendly objects
 * (bigint allowed) because they live under `state.ext.migration` and are saved with `--state FILE`.
 *
 * Per wallet we keep what the venue tracks during the Settlement V1 → V2 migration: balances still in
 * the legacy Holdings contract, legacy (V1) open orders, the restorations created when `start`
 * retires those orders, and the status of the sponsored funds migration. Operator approvals and
 * their on-chain nonces (per Holdings version) sit beside them because both the funds migration and
 * the gasless relay consume them.
 */
import type { Address, Bytes32, OutcomeIndex, SideValue } from '../../model/order.ts';

/** What a legacy Holdings token is, so moving it credits the right ledger entry. */
export type LegacyAsset = { kind: 'collateral' } | { kind: 'outcome'; marketId: Bytes32; outcomeIndex: OutcomeIndex };

export interface LegacyBalance {
  token: Address;
  amount: bigint;
  asset: LegacyAsset;
}

/** A Settlement V1 order resting at the moment migration began. */
export interface LegacyOrder {
  /** positive integer, unique across the exchange */
  id: number;
  hash: Bytes32;
  marketId: Bytes32;
  trader: Address;
  side: SideValue;
  outcomeIndex: OutcomeIndex;
  /** 1e-6 USDC per share */
  price: number;
  /** 1e-6 shares */
  size: number;
  remainingSize: number;
  nonce: Bytes32;
  /** unix seconds */
  expiry: number;
  maxFee: number;
  timeInForce: 0 | 1 | 2;
  makerRoleConstraint: 0 | 1 | 2;
  inventoryModeConstraint: 0 | 1 | 2;
  clientOrderType: 'limit' | 'market';
  status: 'open' | 'retired' | 'dismissed';
}

export type RestorationStatus = 'pending' | 'failed' | 'restored' | 'dismissed';

export interface Restoration {
  id: number;
  legacyOrderId: number;
  status: RestorationStatus;
  error: string | null;
  restoredOrderId: number | null;
  restoredOrderHash: Bytes32 | null;
}

export interface FundsMigrationStatus {
  status: 'completed' | 'failed';
  userOperationHash: Bytes32;
  txHash: Bytes32;
  error: string | null;
}

export interface WalletMigration {
  wallet: Address;
  legacyBalances: LegacyBalance[];
  legacyOrders: LegacyOrder[];
  restorations: Restoration[];
  started: boolean;
  funds: FundsMigrationStatus | null;
  /** BatchWithdraw nonces already consumed (decimal strings) */
  usedBatchNonces: string[];
}

export interface OperatorState {
  nonce: bigint;
  approved: boolean;
}

export interface MigrationData {
  /** the venue-wide switch: while true, unmigrated wallets cannot trade */
  active: boolean;
  tokensPerChunk: number;
  sponsoredAvailable: boolean;
  relayer: Address;
  nextLegacyOrderId: number;
  nextRestorationId: number;
  /** counter for simulated transaction hashes */
  txCounter: number;
  /** by lower-cased wallet */
  wallets: Record<string, WalletMigration>;
  /** by `${holdingsVersion}:${lower-cased wallet}` */
  operators: Record<string, OperatorState>;
  /** Permit2 nonces consumed, by `${lower-cased wallet}:${nonce}` */
  usedPermitNonces: Record<string, true>;
}

export function emptyMigrationData(opts: { active: boolean; tokensPerChunk: number; relayer: Address; sponsoredAvailable?: boolean }): MigrationData {
  return {
    active: opts.active,
    tokensPerChunk: opts.tokensPerChunk,
    sponsoredAvailable: opts.sponsoredAvailable ?? true,
    relayer: opts.relayer,
    nextLegacyOrderId: 1,
    nextRestorationId: 1,
    txCounter: 0,
    wallets: {},
    operators: {},
    usedPermitNonces: {},
  };
}
