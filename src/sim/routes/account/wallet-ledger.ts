/**
 * The account routes' view of the V2 ledger (the matching engine's balances), by wallet address and
 * market id rather than engine indexes. Portfolio and balance answers read it; mint, deposits and
 * the funds migration credit it.
 */
import type { Address, Bytes32, OutcomeIndex } from '../../../model/order.ts';
import type { LowerAddress } from '../../wire-ids.ts';

export interface LedgerCollateral {
  /** total collateral, reserved included (1e-6 USDC) */
  total: bigint;
  reserved: bigint;
  available: bigint;
}

export interface LedgerPosition {
  marketId: Bytes32;
  /** outcome tokens held, reserved included (1e-6 shares) */
  yes: bigint;
  no: bigint;
  yesReserved: bigint;
  noReserved: bigint;
  /** after resolution: what a claim would pay now */
  claimable: bigint;
}

/** What a market's outcome tokens are worth now. */
export interface LedgerMark {
  /** YES mark in 1e-6 units: mid of the book, else the last trade, else null */
  yesMark: number | null;
  /** after resolution: payout per YES share in 1e-6 (NO gets 1e6 − this) */
  payoutYes: number | null;
}

export interface WalletLedger {
  mark(marketId: Bytes32): LedgerMark;
  /** any spelling (also read from outside the routes) */
  collateral(wallet: Address): LedgerCollateral;
  /** positions of the wallet in every market it touched */
  positions(wallet: Address): LedgerPosition[];
  /** credit collateral (test mint, permit deposit, migrated legacy USDC) */
  depositCollateral(wallet: LowerAddress, amount: bigint): void;
  /** credit outcome tokens moved in from outside the book (migrated legacy positions) */
  creditOutcome(wallet: LowerAddress, marketId: Bytes32, outcomeIndex: OutcomeIndex, amount: bigint): void;
}
