/**
 * Cost basis per (market, outcome) of one wallet, from its filled orders. Pure.
 *
 * BUY of outcome o: shares of o bought for collateral + fees. SELL_INVENTORY of o: shares of o sold
 * for collateral − fees. SELL_NO_INVENTORY of o: economically a buy of the other outcome (the seller
 * puts up 1 − p per share and ends holding 1 − o), so it adds to the basis of 1 − o.
 */
import type { Bytes32 } from '../../../model/order.ts';
import type { LowerAddress } from '../../wire-ids.ts';
import type { StoredOrder } from '../../records.ts';

export interface OutcomeBasis {
  /** shares acquired, 1e-6 */
  bought: bigint;
  /** collateral paid for them, fees included, 1e-6 USDC */
  cost: bigint;
  sold: bigint;
  /** collateral received, net of fees */
  proceeds: bigint;
}

export function basisKey(marketId: Bytes32, outcomeIndex: number): string {
  return `${marketId}:${outcomeIndex}`;
}

function entry(map: Map<string, OutcomeBasis>, k: string): OutcomeBasis {
  let b = map.get(k);
  if (!b) {
    b = { bought: 0n, cost: 0n, sold: 0n, proceeds: 0n };
    map.set(k, b);
  }
  return b;
}

export function costBasis(orders: readonly StoredOrder[], wallet: LowerAddress): Map<string, OutcomeBasis> {
  const out = new Map<string, OutcomeBasis>();
  for (const o of orders) {
    if (o.filledShares <= 0 || o.trader !== wallet) continue;
    const kind = o.sv2OrderKind ?? (o.side === 0 ? 0 : 1);
    const shares = BigInt(o.filledShares);
    const coll = BigInt(o.filledCollateral);
    const fees = BigInt(o.feesPaid);
    if (kind === 1) {
      const b = entry(out, basisKey(o.marketId, o.outcomeIndex));
      b.sold += shares;
      b.proceeds += coll > fees ? coll - fees : 0n;
    } else {
      const outcome = kind === 0 ? o.outcomeIndex : 1 - o.outcomeIndex;
      const b = entry(out, basisKey(o.marketId, outcome));
      b.bought += shares;
      b.cost += coll + fees;
    }
  }
  return out;
}

/** Average cost per share in 1e-6 units (rounded half up), 0 before any buy. */
export function averagePrice(b: OutcomeBasis | undefined): bigint {
  if (!b || b.bought === 0n) return 0n;
  return (b.cost * 1_000_000n + b.bought / 2n) / b.bought;
}

/** Collateral still invested in `balance` shares at the average cost. */
export function netInvestment(b: OutcomeBasis | undefined, balance: bigint): bigint {
  if (!b || b.bought === 0n || balance <= 0n) return 0n;
  return (averagePrice(b) * balance) / 1_000_000n;
}
