/**
 * fast-check: the terms of one fill, in 1e-6 units: an outcome, a side, a price inside (0, 1), a size up
 * to `maxSize` and a fee up to `maxFee`. Spread into `fc.record({ ...fillTerms(…), more })` for more keys.
 */
import fc from 'fast-check';

export function fillTerms(maxSize: number, maxFee: number) {
  return {
    outcomeIndex: fc.constantFrom(0 as const, 1 as const),
    side: fc.constantFrom(0 as const, 1 as const),
    price: fc.integer({ min: 1, max: 999_999 }),
    size: fc.integer({ min: 1, max: maxSize }),
    fee: fc.integer({ min: 0, max: maxFee }),
  };
}
