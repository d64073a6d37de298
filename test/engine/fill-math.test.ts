import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { feeFor, fillCapacity, fillFits, legAmount, ownPrice, proRataFloor, type LimitState } from '../../src/engine/fill-math.ts';

const state = (over: Partial<LimitState>): LimitState => ({
  kind: 0,
  filled: 0,
  paid: 0,
  received: 0,
  fees: 0,
  maxFee: 0,
  maxCollateralIn: 0,
  minCollateralOut: 0,
  maxShares: 0,
  ...over,
});

describe('fill arithmetic', () => {
  it('legs: payers round up, receivers down, exact beyond 2^53', () => {
    assert.equal(legAmount(0, 330_000, 1), 1); // ⌈0.33⌉
    assert.equal(legAmount(1, 330_000, 1), 0); // ⌊0.33⌋
    assert.equal(legAmount(2, 330_000, 1), 1); // ⌈0.67⌉
    assert.equal(legAmount(0, 370_000, 12_345_678), 4_567_901);
    assert.equal(legAmount(2, 620_000, 10_000_000), 3_800_000);
    const n = 9_000_000_000_000; // q·n far above 2^53
    assert.equal(legAmount(0, 999_999, n), Number((999_999n * BigInt(n) + 999_999n) / 1_000_000n));
    assert.equal(legAmount(1, 999_999, n), Number((999_999n * BigInt(n)) / 1_000_000n));
  });

  it('own price of each outcome at a YES price', () => {
    assert.equal(ownPrice(1, 400_000), 400_000);
    assert.equal(ownPrice(0, 400_000), 600_000);
  });

  it('fees round up and stop at the room under maxFee', () => {
    assert.equal(feeFor(1_000_001, 50, 1e9), 5_001);
    assert.equal(feeFor(1_000_000, 50, 3_000), 3_000);
    assert.equal(feeFor(1_000_000, 0, 3_000), 0);
    assert.equal(feeFor(1_000_000, 50, 0), 0);
    assert.equal(feeFor(2 ** 52, 10_000, 2 ** 53), 2 ** 52);
  });

  it('pro-rata floor of an inventory sale', () => {
    assert.equal(proRataFloor(4_428_600, 7_333_333, 7_333_333), 4_428_600);
    assert.equal(proRataFloor(1_000, 1, 3), 333);
    assert.equal(proRataFloor(0, 5, 10), 0);
  });

  it('capacity of a payer is the exact largest fill within maxCollateralIn (earlier fees count)', () => {
    const s = state({ kind: 0, paid: 100, fees: 7, maxFee: 1_000, maxCollateralIn: 600_107 });
    // 50¢ and 0 bps: 600 000 left buys exactly 1.2 shares
    assert.equal(fillCapacity(s, 500_000, 5_000_000, 0), 1_200_000);
    assert.equal(fillFits(s, 500_000, 1_200_000, 0), true);
    assert.equal(fillFits(s, 500_000, 1_200_001, 0), false);
  });

  it('an inventory seller fills in full or not at all against its floor', () => {
    const s = state({ kind: 1, maxShares: 4_000_000, minCollateralOut: 2_000_001, maxFee: 10 });
    assert.equal(fillCapacity(s, 500_000, 4_000_000, 0), 0);
    const ok = state({ kind: 1, maxShares: 4_000_000, minCollateralOut: 1_999_990, maxFee: 10 });
    assert.equal(fillCapacity(ok, 500_000, 4_000_000, 0), 4_000_000);
  });

  it('legs and fees equal the exact bigint results over the whole safe range', () => {
    // the float floor-division with remainder correction must match exact arithmetic, including
    // products just around multiples of 1e6 / 1e4 and just below 2^53
    const ceilDiv = (a: bigint, d: bigint) => (a + d - 1n) / d;
    const amount = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));
    // at a leg price of 1e-6 the product is n itself: multiples of 1e6 plus or minus one, where a
    // float quotient rounds the wrong way
    const edge = fc.tuple(fc.integer({ min: 1, max: 9_007_199_254 }), fc.constantFrom(-1, 1), fc.constantFrom(0, 1, 2));
    const cases = fc.oneof(
      fc.tuple(fc.integer({ min: 1, max: 999_999 }), amount, fc.constantFrom(0, 1, 2)),
      edge.map(([k, d, kind]) => [kind === 2 ? 999_999 : 1, k * 1_000_000 + d, kind] as [number, number, number]),
    );
    fc.assert(
      fc.property(cases, ([q, n, kind]) => {
        const price = BigInt(kind === 2 ? 1_000_000 - q : q);
        const p = price * BigInt(n);
        const exact = kind === 1 ? p / 1_000_000n : ceilDiv(p, 1_000_000n);
        assert.equal(legAmount(kind, q, n), Number(exact));
      }),
      { numRuns: 3_000, seed: 1121 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: 10_000 }), (a, bps) => {
        const exact = ceilDiv(BigInt(a) * BigInt(bps), 10_000n);
        assert.equal(feeFor(a, bps, Number.MAX_SAFE_INTEGER), Number(exact < BigInt(Number.MAX_SAFE_INTEGER) ? exact : BigInt(Number.MAX_SAFE_INTEGER)));
      }),
      { numRuns: 3_000, seed: 1122 },
    );
  });
});
