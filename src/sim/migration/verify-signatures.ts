/**
 * Signature checks of the account flows (protocol.md §2, §6): BatchWithdraw on the legacy Holdings
 * domain, OperatorApproval on either Holdings domain, Permit2 PermitTransferFrom, and the EIP-191
 * migration authorization message. Each returns whether the recovered signer is `expected`; a
 * malformed signature is simply "not the signer" (never a throw into the handler).
 *
 * These are off the hot path (one call per migration step or relay), so they use viem's reference
 * recovery rather than the hand-rolled order hashing the order routes need for throughput.
 */
import { encodeAbiParameters, keccak256, recoverMessageAddress, recoverTypedDataAddress } from 'viem';
import type { ChainConfig } from '../../exchange/chains.ts';
import type { Address, Bytes32, Hex } from '../../model/order.ts';

const BATCH_WITHDRAW_TYPES = {
  BatchWithdraw: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'withdrawsHash', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

const OPERATOR_APPROVAL_TYPES = {
  OperatorApproval: [
    { name: 'user', type: 'address' },
    { name: 'operator', type: 'address' },
    { name: 'approved', type: 'bool' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

const PERMIT_TYPES = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

async function recovered(p: Promise<Address>): Promise<Address | null> {
  try {
    return await p;
  } catch {
    return null;
  }
}

/** keccak256(abi.encode(address[] tokens, uint256[] amounts)), the chunk commitment of BatchWithdraw. */
export function chunkWithdrawsHash(tokens: readonly Address[], amounts: readonly bigint[]): Bytes32 {
  return keccak256(encodeAbiParameters([{ type: 'address[]' }, { type: 'uint256[]' }], [tokens as Address[], amounts as bigint[]]));
}

export interface BatchWithdrawCheck {
  chain: ChainConfig;
  from: Address;
  to: Address;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export async function isBatchWithdrawSigner(c: BatchWithdrawCheck): Promise<boolean> {
  const signer = await recovered(
    recoverTypedDataAddress({
      domain: { name: 'Holdings', version: '1', chainId: c.chain.chainId, verifyingContract: c.chain.holdingsLegacy },
      types: BATCH_WITHDRAW_TYPES,
      primaryType: 'BatchWithdraw',
      message: { from: c.from, to: c.to, withdrawsHash: chunkWithdrawsHash(c.tokens, c.amounts), nonce: c.nonce, deadline: c.deadline },
      signature: c.signature,
    }),
  );
  return signer !== null && same(signer, c.from);
}

export interface OperatorApprovalCheck {
  holdings: Address;
  chainId: number;
  user: Address;
  operator: Address;
  approved: boolean;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export async function isOperatorApprovalSigner(c: OperatorApprovalCheck): Promise<boolean> {
  const signer = await recovered(
    recoverTypedDataAddress({
      domain: { name: 'Holdings', version: '1', chainId: c.chainId, verifyingContract: c.holdings },
      types: OPERATOR_APPROVAL_TYPES,
      primaryType: 'OperatorApproval',
      message: { user: c.user, operator: c.operator, approved: c.approved, nonce: c.nonce, deadline: c.deadline },
      signature: c.signature,
    }),
  );
  return signer !== null && same(signer, c.user);
}

export interface PermitCheck {
  chain: ChainConfig;
  owner: Address;
  token: Address;
  amount: bigint;
  spender: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

export async function isPermitSigner(c: PermitCheck): Promise<boolean> {
  const signer = await recovered(
    recoverTypedDataAddress({
      domain: { name: 'Permit2', chainId: c.chain.chainId, verifyingContract: c.chain.permit2 },
      types: PERMIT_TYPES,
      primaryType: 'PermitTransferFrom',
      message: { permitted: { token: c.token, amount: c.amount }, spender: c.spender, nonce: c.nonce, deadline: c.deadline },
      signature: c.signature,
    }),
  );
  return signer !== null && same(signer, c.owner);
}

/**
 * The public migration authorization message (protocol.md §6): five lines joined by "\n", no
 * trailing newline; ids sorted ascending and comma-joined, or "all".
 */
export function migrationAuthorizationMessage(action: 'start' | 'dismiss-orders', wallet: Address, legacyOrderIds: readonly number[], deadline: bigint): string {
  const ids = [...legacyOrderIds].sort((a, b) => a - b);
  return [
    'Context public API migration authorization',
    `Action: ${action}`,
    `Wallet: ${wallet.toLowerCase()}`,
    `Legacy order ids: ${ids.length ? ids.join(',') : 'all'}`,
    `Deadline: ${deadline}`,
  ].join('\n');
}

export async function isPersonalSigner(message: string, signature: Hex, expected: Address): Promise<boolean> {
  const signer = await recovered(recoverMessageAddress({ message, signature }));
  return signer !== null && same(signer, expected);
}
