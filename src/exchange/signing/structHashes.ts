/**
 * EIP-712 struct hashes written by hand: one fixed layout per type into a reused scratch buffer, no
 * generic type walking. Inputs are validated by the callers (./validate.ts, ./orderMapping.ts).
 */
import type { Address, Bytes32, SettlementV2Order } from '../../model/order.ts';
import type { KeccakFn } from './keccak.ts';
import { TYPE_HASHES } from './typeHashes.ts';
import { writeAddress, writeBytes32Hex, writeSmallUint, writeUint256 } from './words.ts';

export interface OperatorApprovalMessage {
  user: Address;
  operator: Address;
  approved: boolean;
  nonce: bigint;
  deadline: bigint;
}

export interface BatchWithdrawMessage {
  from: Address;
  to: Address;
  withdrawsHash: Bytes32;
  nonce: bigint;
  deadline: bigint;
}

export interface PermitTransferFromMessage {
  token: Address;
  amount: bigint;
  spender: Address;
  nonce: bigint;
  deadline: bigint;
}

// Scratch buffers, reused: everything here is synchronous, so no call can interleave with another.
const ORDER = Buffer.alloc(14 * 32);
TYPE_HASHES.Order.copy(ORDER, 0);
const CANCEL = Buffer.alloc(3 * 32);
TYPE_HASHES.CancelNonce.copy(CANCEL, 0);
const SIX = Buffer.alloc(6 * 32);
const PERMIT = Buffer.alloc(5 * 32);
const TOKEN_PERMISSIONS = Buffer.alloc(3 * 32);
TYPE_HASHES.TokenPermissions.copy(TOKEN_PERMISSIONS, 0);
const DIGEST = Buffer.alloc(66);
DIGEST[0] = 0x19;
DIGEST[1] = 0x01;

export function hashOrderStruct(o: SettlementV2Order, keccak256: KeccakFn): Uint8Array {
  const b = ORDER;
  writeBytes32Hex(b, 32, o.marketId);
  writeAddress(b, 64, o.trader);
  writeUint256(b, 96, o.maxShares);
  writeUint256(b, 128, o.minSharesOut);
  writeUint256(b, 160, o.maxCollateralIn);
  writeUint256(b, 192, o.minCollateralOut);
  writeSmallUint(b, 224, o.outcomeIndex);
  writeSmallUint(b, 256, o.orderKind);
  writeBytes32Hex(b, 288, o.nonce);
  writeUint256(b, 320, o.expiry);
  writeUint256(b, 352, o.maxFee);
  writeSmallUint(b, 384, o.timeInForce);
  writeSmallUint(b, 416, o.makerRoleConstraint);
  return keccak256(b);
}

export function hashCancelStruct(trader: Address, nonce: Bytes32, keccak256: KeccakFn): Uint8Array {
  writeAddress(CANCEL, 32, trader);
  writeBytes32Hex(CANCEL, 64, nonce);
  return keccak256(CANCEL);
}

export function hashOperatorApprovalStruct(m: OperatorApprovalMessage, keccak256: KeccakFn): Uint8Array {
  const b = SIX;
  TYPE_HASHES.OperatorApproval.copy(b, 0);
  writeAddress(b, 32, m.user);
  writeAddress(b, 64, m.operator);
  writeSmallUint(b, 96, m.approved ? 1 : 0);
  writeUint256(b, 128, m.nonce);
  writeUint256(b, 160, m.deadline);
  return keccak256(b);
}

export function hashBatchWithdrawStruct(m: BatchWithdrawMessage, keccak256: KeccakFn): Uint8Array {
  const b = SIX;
  TYPE_HASHES.BatchWithdraw.copy(b, 0);
  writeAddress(b, 32, m.from);
  writeAddress(b, 64, m.to);
  writeBytes32Hex(b, 96, m.withdrawsHash);
  writeUint256(b, 128, m.nonce);
  writeUint256(b, 160, m.deadline);
  return keccak256(b);
}

export function hashPermitTransferFromStruct(m: PermitTransferFromMessage, keccak256: KeccakFn): Uint8Array {
  // The nested struct is encoded as the hash of its own encoding (EIP-712 encodeData).
  writeAddress(TOKEN_PERMISSIONS, 32, m.token);
  writeUint256(TOKEN_PERMISSIONS, 64, m.amount);
  const b = PERMIT;
  TYPE_HASHES.PermitTransferFrom.copy(b, 0);
  b.set(keccak256(TOKEN_PERMISSIONS), 32);
  writeAddress(b, 64, m.spender);
  writeUint256(b, 96, m.nonce);
  writeUint256(b, 128, m.deadline);
  return keccak256(b);
}

/**
 * keccak256(abi.encode(address[] tokens, uint256[] amounts)): two head words with the tail offsets,
 * then each array as its length followed by its elements.
 */
export function withdrawsHash(tokens: readonly Address[], amounts: readonly bigint[], keccak256: KeccakFn): Uint8Array {
  const n = tokens.length;
  const b = Buffer.alloc(32 * (4 + 2 * n));
  const second = 32 * (3 + n); // offset of the amounts array, from the start of the encoding
  writeUint256(b, 0, 64n);
  writeUint256(b, 32, BigInt(second));
  writeUint256(b, 64, BigInt(n));
  for (let i = 0; i < n; i++) writeAddress(b, 96 + 32 * i, tokens[i]!);
  writeUint256(b, second, BigInt(n));
  for (let i = 0; i < n; i++) writeUint256(b, second + 32 + 32 * i, amounts[i]!);
  return keccak256(b);
}

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash). */
export function typedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array, keccak256: KeccakFn): Uint8Array {
  DIGEST.set(domainSeparator, 2);
  DIGEST.set(structHash, 34);
  return keccak256(DIGEST);
}

/** EIP-191 personal_sign digest: keccak256("\x19Ethereum Signed Message:\n" + byteLength + message). */
export function personalMessageDigest(message: string, keccak256: KeccakFn): Uint8Array {
  const body = Buffer.from(message, 'utf8');
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'utf8');
  return keccak256(Buffer.concat([prefix, body]));
}
