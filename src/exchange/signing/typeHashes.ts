/**
 * EIP-712 encodeType strings and their type hashes, hashed once at load. Field order is exact
 * (docs/venue.md#eip-712-domains-and-structs); the tests pin each hash to the docs/venue.md value and to viem's.
 */
import { pureKeccak256 } from './keccak.ts';

export const TYPE_STRINGS = {
  EIP712Domain: 'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
  /** Permit2's domain has no version field. */
  EIP712DomainNoVersion: 'EIP712Domain(string name,uint256 chainId,address verifyingContract)',
  Order:
    'Order(bytes32 marketId,address trader,uint256 maxShares,uint256 minSharesOut,uint256 maxCollateralIn,' +
    'uint256 minCollateralOut,uint8 outcomeIndex,uint8 orderKind,bytes32 nonce,uint256 expiry,uint256 maxFee,' +
    'uint8 timeInForce,uint8 makerRoleConstraint)',
  CancelNonce: 'CancelNonce(address trader,bytes32 nonce)',
  OperatorApproval: 'OperatorApproval(address user,address operator,bool approved,uint256 nonce,uint256 deadline)',
  BatchWithdraw: 'BatchWithdraw(address from,address to,bytes32 withdrawsHash,uint256 nonce,uint256 deadline)',
  /** A referenced struct type is appended after the primary type (EIP-712 encodeType). */
  PermitTransferFrom:
    'PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)' + 'TokenPermissions(address token,uint256 amount)',
  TokenPermissions: 'TokenPermissions(address token,uint256 amount)',
} as const;

export type TypeName = keyof typeof TYPE_STRINGS;

function hashAll(): Record<TypeName, Buffer> {
  const out = {} as Record<TypeName, Buffer>;
  for (const k of Object.keys(TYPE_STRINGS) as TypeName[]) {
    out[k] = Buffer.from(pureKeccak256(Buffer.from(TYPE_STRINGS[k], 'utf8')));
  }
  return out;
}

/** keccak256(encodeType) per type, as 32-byte Buffers (never mutate them). */
export const TYPE_HASHES: Readonly<Record<TypeName, Buffer>> = Object.freeze(hashAll());
