/**
 * Prices outside the order book whose units the venue never states (docs/venue.md#endpoints): `GET /markets/:id/quotes`
 * (bid/ask/last/spread) and `Market.outcomePrices[]`. They get the same deliberate rule as the book:
 * an explicit `BookPriceUnits`, or 'auto' decided once over every non-null number of one answer
 * (all ≤ 1 with one fractional → dollars; all ≤ 100 → cents; else 1e-6 units). Results are integers in
 * [0, 1 000 000] (0 and 1 allowed here: a spread can be 0, a resolved market's last price 100¢).
 */
import { BadResponseError } from '../../model/errors.ts';
import type { BookPriceUnits } from '../../model/book.ts';
import { numberToScaled, ONE } from '../../model/units.ts';
import { detectPriceUnits } from './normalize-orderbook.ts';

export type ConcretePriceUnits = Exclude<BookPriceUnits, 'auto'>;

/** Resolve 'auto' for one answer's numbers. */
export function resolvePriceUnits(units: BookPriceUnits, values: readonly (number | null)[]): ConcretePriceUnits {
  if (units !== 'auto') return units;
  const nums: number[] = [];
  for (const v of values) if (typeof v === 'number') nums.push(v);
  return detectPriceUnits(nums);
}

/** One quote number → integer 1e-6 units in [0, ONE], or null. Throws BadResponseError naming the field. */
export function quotePrice(v: number | null, units: ConcretePriceUnits, ep: string, field: string): number | null {
  if (v === null) return null;
  let p: number;
  try {
    if (units === 'micro') {
      if (!Number.isSafeInteger(v)) throw new Error('not an integer');
      p = v;
    } else p = numberToScaled(v, units === 'cents' ? 4 : 6, field, 'half-up');
  } catch (e) {
    throw new BadResponseError(ep, field, `a price in ${units}`, v, { cause: e });
  }
  if (p < 0 || p > ONE) throw new BadResponseError(ep, field, `a price in ${units} between 0 and 1 USDC`, v);
  return p;
}
