/**
 * Fees of the sim venue: basis points of a fill's collateral in the order's own terms, maker or taker
 * rate, never more than what is left of the order's signed `maxFee` (the venue cannot charge more
 * than the trader signed for). Rounded up to the 1e-6 USDC unit, like every payer-side amount.
 */
import { BadInputError } from '../model/errors.ts';
import { notionalCeil } from '../model/units.ts';

export interface FeeSpec {
  /** bps of fill collateral charged to a resting (maker) order */
  readonly makerBps: number;
  /** bps of fill collateral charged to an order that took liquidity */
  readonly takerBps: number;
}

export function checkFees(f: FeeSpec): FeeSpec {
  for (const k of ['makerBps', 'takerBps'] as const) {
    const v = f[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 10_000) throw new BadInputError(`fees.${k}`, 'basis points in [0, 10000]', v);
  }
  return f;
}

/** Fee for `size` shares at `price` (order terms) at `bps`, capped by `maxFeeLeft` (1e-6 USDC). */
export function fillFee(price: number, size: number, bps: number, maxFeeLeft: number): number {
  if (bps <= 0 || maxFeeLeft <= 0) return 0;
  const notional = notionalCeil(price, size);
  const fee = Math.ceil((notional * bps) / 10_000);
  return Math.min(fee, maxFeeLeft);
}
