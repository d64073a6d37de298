/**
 * Signature checks of the account flows (docs/venue.md#eip-712-domains-and-structs, #migration-to-settlement-v2), as booleans over the signing module's
 * recovery functions: BatchWithdraw on the legacy Holdings domain, OperatorApproval on either Holdings
 * domain, Permit2 PermitTransferFrom, and the EIP-191 migration authorization message. A malformed
 * signature is simply "not the signer": these never throw into a handler.
 *
 * The expected signer arrives normalised (the routes' validators, ../wire-ids.ts); the recovered one
 * is normalised here, where it enters, so the two compare with `===`.
 */
import type { ChainConfig } from '../../exchange/chains.ts';
import {
  recoverBatchWithdrawSigner,
  recoverOperatorApprovalSigner,
  recoverPermit2Signer,
  recoverPersonalMessageSigner,
} from '../../exchange/signing/recover.ts';
import { migrationAuthorizationMessage } from '../../exchange/signing/migrationMessage.ts';
import { addressOf } from '../../model/ids.ts';
import type { Address, Hex } from '../../model/order.ts';
import type { LowerAddress } from '../wire-ids.ts';

function signerIs(recover: () => string, expected: LowerAddress): boolean {
  try {
    return addressOf(recover()) === expected;
  } catch {
    return false;
  }
}

export interface BatchWithdrawCheck {
  chain: ChainConfig;
  from: LowerAddress;
  to: Address;
  tokens: readonly { token: Address; amount: bigint }[];
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export function isBatchWithdrawSigner(c: BatchWithdrawCheck): boolean {
  const { chain, ...m } = c;
  return signerIs(() => recoverBatchWithdrawSigner(m, chain), c.from);
}

export interface OperatorApprovalCheck {
  chain: ChainConfig;
  /** 2: new Holdings domain, operator = Settlement V2; 1: legacy Holdings, operator = Settlement V1 */
  version: 1 | 2;
  user: LowerAddress;
  approved: boolean;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export function isOperatorApprovalSigner(c: OperatorApprovalCheck): boolean {
  const operator = c.version === 1 ? c.chain.settlementV1 : c.chain.settlementV2;
  return signerIs(
    () =>
      recoverOperatorApprovalSigner(
        { user: c.user, operator, approved: c.approved, nonce: c.nonce, deadline: c.deadline, settlementVersion: c.version, signature: c.signature },
        c.chain,
      ),
    c.user,
  );
}

export interface PermitCheck {
  chain: ChainConfig;
  owner: LowerAddress;
  token: Address;
  amount: bigint;
  spender: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export function isPermitSigner(c: PermitCheck): boolean {
  const { chain, owner, ...m } = c;
  return signerIs(() => recoverPermit2Signer(m, chain), owner);
}

/** Did `wallet` sign the five-line migration authorization for this action, ids and deadline? */
export function isMigrationAuthorizationSigner(
  action: 'start' | 'dismiss-orders',
  wallet: LowerAddress,
  legacyOrderIds: readonly number[],
  deadline: number,
  signature: Hex,
): boolean {
  return signerIs(() => recoverPersonalMessageSigner(migrationAuthorizationMessage({ action, wallet, legacyOrderIds, deadline }), signature), wallet);
}
