/**
 * Shared test fixtures: viem's view of our EIP-712 types (the reference we must match byte for byte),
 * a seeded random generator, and random order generators.
 */
import type { ChainConfig } from '../../../src/exchange/chains.ts';
import type { Bytes32, LimitOrder } from '../../../src/model/order.ts';
import { mulberry32 } from '../../../src/sim/rng.ts';

export const ORDER_TYPES = {
  Order: [
    { name: 'marketId', type: 'bytes32' },
    { name: 'trader', type: 'address' },
    { name: 'maxShares', type: 'uint256' },
    { name: 'minSharesOut', type: 'uint256' },
    { name: 'maxCollateralIn', type: 'uint256' },
    { name: 'minCollateralOut', type: 'uint256' },
    { name: 'outcomeIndex', type: 'uint8' },
    { name: 'orderKind', type: 'uint8' },
    { name: 'nonce', type: 'bytes32' },
    { name: 'expiry', type: 'uint256' },
    { name: 'maxFee', type: 'uint256' },
    { name: 'timeInForce', type: 'uint8' },
    { name: 'makerRoleConstraint', type: 'uint8' },
  ],
} as const;

export const CANCEL_TYPES = {
  CancelNonce: [
    { name: 'trader', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export const OPERATOR_APPROVAL_TYPES = {
  OperatorApproval: [
    { name: 'user', type: 'address' },
    { name: 'operator', type: 'address' },
    { name: 'approved', type: 'bool' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export const BATCH_WITHDRAW_TYPES = {
  BatchWithdraw: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'withdrawsHash', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export const PERMIT2_TYPES = {
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

export const settlementV2Domain = (c: ChainConfig) => ({ name: 'Settlement', version: '2', chainId: c.chainId, verifyingContract: c.settlementV2 }) as const;
export const holdingsNewDomain = (c: ChainConfig) => ({ name: 'Holdings', version: '1', chainId: c.chainId, verifyingContract: c.holdingsNew }) as const;
export const holdingsLegacyDomain = (c: ChainConfig) => ({ name: 'Holdings', version: '1', chainId: c.chainId, verifyingContract: c.holdingsLegacy }) as const;
export const permit2Domain = (c: ChainConfig) => ({ name: 'Permit2', chainId: c.chainId, verifyingContract: c.permit2 }) as const;

/** Test keys (well-known, worthless): never use them for anything real. */
export const TEST_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x0000000000000000000000000000000000000000000000000000000000000001',
  '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140', // n − 1, the largest valid key
] as const;

export const MARKET = '0x3f1c8e2d0a9b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3b4a5968778695a4b' as Bytes32;

/** mulberry32: small, fast, deterministic. */
export const rng = mulberry32;

export function randInt(r: () => number, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

/** Random bytes as lower-case hex (typed Bytes32: the normal form; a shorter one is still a Hex). */
export function randHex(r: () => number, bytes: number): Bytes32 {
  let s = '0x';
  for (let i = 0; i < bytes; i++) s += randInt(r, 0, 255).toString(16).padStart(2, '0');
  return s as Bytes32;
}

/** A random valid order of the given kind: 0 buy, 1 sell from inventory, 2 sell without inventory. */
export function randomOrder(r: () => number, kind: 0 | 1 | 2): LimitOrder {
  const price = randInt(r, 1, 999_999);
  // Sizes from tiny to very large, so P·S crosses 2^53 sometimes (the bigint paths).
  const size = r() < 0.1 ? randInt(r, 1, 1_000_000_000_000) * 1000 : randInt(r, 1, 5_000_000_000);
  const o: LimitOrder = {
    marketId: randHex(r, 32) as Bytes32,
    outcomeIndex: randInt(r, 0, 1) as 0 | 1,
    side: kind === 0 ? 0 : 1,
    price,
    size,
    inventoryMode: (kind === 2 ? 2 : kind === 1 ? randInt(r, 0, 1) : randInt(r, 0, 2)) as 0 | 1 | 2,
    timeInForce: randInt(r, 0, 2) as 0 | 1 | 2,
    makerRole: (r() < 0.8 ? 0 : 2) as 0 | 2,
    expiry: randInt(r, 1_700_000_000, 2_000_000_000),
    nonce: randHex(r, 32) as Bytes32,
  };
  if (r() < 0.5) o.maxFee = randInt(r, 0, 10_000_000);
  if (kind === 0 && r() < 0.3) o.buyValue = randInt(r, 1, 100_000_000_000);
  return o;
}
