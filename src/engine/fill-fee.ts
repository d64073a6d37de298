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
import type { FeeSpec } from './fee-model.ts';

export type { FeeSpec };

/** Fees charged by no one: the model when `ledger.fees` is zero. */
export const NO_FEES: FeeSpec = Object.freeze({ makerBps: 0, takerBps: 0 });
