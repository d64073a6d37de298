/** The claims tracker tests' venue portfolio rows (src/exchange/client/portfolio.ts Holding) and market ids. */
import type { ClaimState, Holding } from '../../../src/exchange/client/portfolio.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';

/** A market id of one byte repeated (`'a1'` → 0xa1a1…). */
export const marketOf = (c: string): Bytes32 => ('0x' + c.repeat(32)) as Bytes32;

/** The token address of every row (one token: the tests tell rows apart by market and outcome). */
export const TOKEN = ('0x' + 'cd'.repeat(20)) as Address;

/**
 * A portfolio row of `marketId`'s outcome `outcome` (default 1, YES): `balance` held (nothing by default), its claim
 * state, the tokens redeemed and the amount claimable (none by default).
 */
export function holdingRow(
  marketId: Bytes32,
  o: { balance?: bigint; state?: ClaimState | null; redeemed?: bigint; claimable?: bigint; outcome?: 0 | 1 } = {},
): Holding {
  return {
    tokenAddress: TOKEN,
    marketId,
    outcomeIndex: o.outcome ?? 1,
    outcomeName: 'Yes',
    balance: o.balance ?? 0n,
    settlementBalance: o.balance ?? 0n,
    walletBalance: 0n,
    netInvestment: 0n,
    currentValue: 0n,
    claimState: o.state ?? null,
    claimableAmount: o.claimable ?? 0n,
    tokensRedeemed: o.redeemed ?? 0n,
  };
}
