/**
 * The fee of a fill the venue states no fee for. The venue's order reads (`GET /orders`,
 * `/orders/recent`, `/orders/:id`) give an order's filled size but no fee and no fill time, and no
 * other endpoint states an own fill's fee (docs/books-and-pnl.md#venue-truth-fees-times-other-traders-fills). Such fills are recorded with
 * the configured fee model's fee (`ledger.fees`) and `fee_source` 'model'; fills whose fee an engine
 * charged and stated (paper trading, the backtest's sim venue) keep theirs, as 'venue'.
 *
 * The model is the matching engine's rule (src/engine/fill-math.ts feeFor): basis points of the
 * fill's collateral in the order's own outcome terms, rounded up to the 1e-6 unit. The role is
 * decided by how a part filled (src/feeds/fill-part.ts): an order that can only take (IOC, FOK), the
 * fills a GTC order made on arrival (its create answer stated them) and a part better than the limit
 * pay the taker rate; a resting order's fills the maker rate (docs/books-and-pnl.md).
 */
import { feeFor } from './fill-math.ts';
import type { FeeSpec } from './fee-model.ts';
import type { TimeInForceValue } from '../model/order.ts';

export type { FeeSpec };

/** Fees charged by no one: the model when `ledger.fees` is zero. */
export const NO_FEES: FeeSpec = Object.freeze({ makerBps: 0, takerBps: 0 });

/** The model fee of `size` shares (1e-6) at `price` (1e-6 USDC, the order's own outcome), 1e-6 USDC. */
export function modelFee(fees: FeeSpec, price: number, size: number, timeInForce: TimeInForceValue | null | undefined): number {
  const bps = timeInForce === 1 || timeInForce === 2 ? fees.takerBps : fees.makerBps;
  if (bps <= 0 || size <= 0 || price <= 0) return 0;
  const collateral = Number((BigInt(price) * BigInt(size)) / 1_000_000n);
  return feeFor(collateral, bps, Number.MAX_SAFE_INTEGER);
}
