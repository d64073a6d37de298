/**
 * Fees of the sim venue, as configured (`backtest.fees`), and their mapping onto the matching
 * engine's market rules. The engine charges them (src/engine/fill-math.ts): basis points of each
 * party's fill collateral in its own outcome's terms, maker or taker rate, rounded up to the 1e-6
 * USDC unit and never more than what is left of the order's signed `maxFee`.
 */
import { BadInputError } from '../model/errors.ts';
import type { MarketConfig } from './types.ts';

export interface FeeSpec {
  /** bps of fill collateral charged to a resting (maker) order */
  readonly makerBps: number;
  /** bps of fill collateral charged to an order that took liquidity */
  readonly takerBps: number;
}

/** The engine takes whole basis points only, so fractional ones are refused here, not rounded. */
export function checkFees(f: FeeSpec): FeeSpec {
  for (const k of ['makerBps', 'takerBps'] as const) {
    const v = f[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10_000) throw new BadInputError(`fees.${k}`, 'whole basis points in [0, 10000]', v);
  }
  return f;
}

/**
 * The engine market of one recorded market. `tick` is the grid of the recorded book (fine enough for
 * every recorded price, so the tape can rest at any of them); the market's own tick is checked
 * before an order reaches the engine. Minimum sizes are one unit: the recording shows no venue
 * minimum, and a queue-model fill can be any size.
 */
export function engineMarketConfig(tick: number, fees: FeeSpec): Partial<MarketConfig> {
  return { tick, minOrderSize: 1, minFillSize: 1, makerFeeBps: fees.makerBps, takerFeeBps: fees.takerBps };
}
