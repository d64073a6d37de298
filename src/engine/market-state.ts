/**
 * The engine's per-market state: rules, book, status and the supply bookkeeping of complete sets.
 */
import type { PriceLadder } from './price-ladder.ts';
import type { MarketConfig, MarketStatus } from './types.ts';

export interface MarketState {
  index: number;
  config: MarketConfig;
  ladder: PriceLadder;
  status: MarketStatus;
  /** collateral locked in complete sets (and, after resolution, in unclaimed payouts) */
  backing: number;
  supplyYes: number;
  supplyNo: number;
  payoutYes: number | null;
  lastPrice: number | null;
  volume: number;
  /** per (side, level) "changed in this command" flags, for coalesced level events */
  dirty: Uint8Array;
}
