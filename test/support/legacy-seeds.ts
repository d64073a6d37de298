/**
 * A legacy (Settlement V1) account's holdings and orders for the migration tests, one call each:
 *
 *   installMigration(state, { legacyAccounts: [{ wallet, collateral: 50_000_000n,
 *     positions: [holding(m0, 1, 5_000_000n)], orders: [legacyOrder(m0, 1, 0, 400_000, 10_000_000)] }] });
 */
import type { LegacyOrderSeed, LegacyPositionSeed } from '../../src/sim/migration/legacy-seeds.ts';
import type { Bytes32 } from '../../src/model/order.ts';

/** `amount` (1e-6 shares) of outcome `outcomeIndex` of `marketId`. */
export function holding(marketId: Bytes32, outcomeIndex: 0 | 1, amount: bigint): LegacyPositionSeed {
  return { marketId, outcomeIndex, amount };
}

/** A V1 order: `side` 0 buys, 1 sells; price in 1e-6 USDC, size and `filled` in 1e-6 shares. */
export function legacyOrder(marketId: Bytes32, outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number, filled?: number): LegacyOrderSeed {
  return { marketId, outcomeIndex, side, price, size, ...(filled !== undefined ? { filled } : {}) };
}
