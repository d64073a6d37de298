/**
 * accountFill (src/account/account-fill.ts): a store fill event as the books' fill. It is built from
 * literals (a spread of conditional objects took V8's slow path on every fill); the books, the ledger
 * and the tests read the same object the spreads built: the same keys in the same order, the optional
 * ones (orderKind, notional) only when the event has them, never as an undefined-valued key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { accountFill, fillKey, fillOrigin, fillTerms } from '../../src/account/account-fill.ts';
import type { OrderFilled } from '../../src/state/events.ts';
import type { Bytes32 } from '../../src/model/order.ts';

/** What accountFill built before, with spreads: the reference. */
function spreadFill(e: OrderFilled): object {
  return {
    fillId: fillKey(e),
    ...fillTerms(e),
    feeSource: e.feeSource ?? 'venue',
    ts: e.ts,
    origin: fillOrigin(e),
    ...(e.orderKind !== undefined ? { orderKind: e.orderKind } : {}),
    ...(e.notional !== undefined ? { notional: e.notional } : {}),
  };
}

const MARKET = `0x${'ab'.repeat(32)}` as Bytes32;
const NONCE = `0x${'cd'.repeat(32)}` as Bytes32;

const fill = fc.record(
  {
    type: fc.constant('OrderFilled' as const),
    marketId: fc.constant(MARKET),
    nonce: fc.constantFrom(NONCE, null),
    outcomeIndex: fc.constantFrom(0 as const, 1 as const),
    side: fc.constantFrom(0 as const, 1 as const),
    price: fc.integer({ min: 1, max: 999_999 }),
    size: fc.integer({ min: 1, max: 1e9 }),
    fee: fc.integer({ min: 0, max: 1e6 }),
    fillId: fc.string({ minLength: 1, maxLength: 12 }),
    ts: fc.integer({ min: 0, max: 2e12 }),
    feeSource: fc.constantFrom('venue' as const, 'model' as const),
    origin: fc.constantFrom('own' as const, 'foreign' as const),
    orderKind: fc.constantFrom(0 as const, 1 as const, 2 as const),
    notional: fc.integer({ min: 0, max: 1e12 }),
  },
  // every optional key present or absent, in any combination
  { requiredKeys: ['type', 'marketId', 'nonce', 'outcomeIndex', 'side', 'price', 'size', 'fee', 'ts'] },
);

describe('accountFill', () => {
  it('builds the object the spreads built: the same keys in the same order, and the same values', () => {
    fc.assert(
      fc.property(fill, (e) => {
        const got = accountFill(e as OrderFilled);
        const want = spreadFill(e as OrderFilled);
        assert.deepStrictEqual(Object.keys(got), Object.keys(want));
        assert.deepStrictEqual(got, want);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves out orderKind and notional when the event has none (no undefined-valued key)', () => {
    const e: OrderFilled = { type: 'OrderFilled', marketId: MARKET, nonce: NONCE, outcomeIndex: 1, side: 0, price: 400_000, size: 5_000_000, fee: 0, ts: 1 };
    const f = accountFill(e);
    assert.equal('orderKind' in f, false);
    assert.equal('notional' in f, false);
    assert.deepStrictEqual(Object.keys(f), ['fillId', 'marketId', 'outcomeIndex', 'side', 'price', 'size', 'fee', 'feeSource', 'ts', 'origin']);
    assert.deepStrictEqual(Object.keys(accountFill({ ...e, notional: 7, orderKind: 2 })), [...Object.keys(f), 'orderKind', 'notional']);
  });
});
