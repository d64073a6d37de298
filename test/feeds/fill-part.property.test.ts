/**
 * An order that fills at several prices, read in parts: however its fills are split between the reads
 * of the fills poll, the books' cash for it is the venue's total for the order (its average fill price ×
 * its filled shares, to the unit), within ½ unit per share of what it paid (the rounding of the stated
 * average), and exactly what it paid when that average is exact or every fill was at its own limit.
 * On the code before the parts were derived from the change of (filled, average), every part after the
 * first was booked at the order's limit and the books' cash of a buy that took liquidity fell below
 * the venue's by the price improvement of those parts (the gap the chaos soak used to tolerate).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FillTracker } from '../../src/feeds/own-orders-feed.ts';
import { Account } from '../../src/account/account.ts';
import { accountFill } from '../../src/account/account-fill.ts';
import type { OrderFilled } from '../../src/state/events.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { notionalCeil, notionalFloor } from '../../src/model/units.ts';

const M = `0x${'ab'.repeat(32)}` as Bytes32;
const N = `0x${'01'.repeat(32)}` as Bytes32;

/** The venue's read of an order after `fills` (shares stated directly: a sale, or a buy in shares). */
function read(side: 0 | 1, limit: number, size: number, fills: readonly { q: number; n: number }[]): { order: VenueOrder; paid: number } {
  let filled = 0;
  let coll = 0;
  for (const f of fills) {
    filled += f.n;
    // as the venue settles each match: a buyer pays ⌈q·n⌉, a seller receives ⌊q·n⌋
    coll += side === 0 ? notionalCeil(f.q, f.n) : notionalFloor(f.q, f.n);
  }
  // the local exchange's average: collateral over shares, rounded half up (src/sim/order-json.ts)
  const avg = filled === 0 ? null : Number((BigInt(coll) * 1_000_000n + BigInt(filled) / 2n) / BigInt(filled));
  const order: VenueOrder = {
    id: 7,
    marketId: M,
    trader: '0x0000000000000000000000000000000000000001',
    nonce: N,
    side,
    outcomeIndex: 1,
    price: limit,
    size,
    filledSize: filled,
    remainingSize: size - filled,
    percentFilled: 0,
    type: 'limit',
    status: filled === size ? 'filled' : 'open',
    voidReason: null,
    insertedAt: '2026-11-21T00:00:00.000Z',
    expiry: 0,
    settlementVersion: 1,
    sv2OrderKind: side === 0 ? 0 : 1,
    sv2TimeInForce: 0,
    sv2MinSharesOut: null,
    sv2MaxCollateralIn: null,
    sv2MinCollateralOut: null,
    avgFillPrice: avg,
  };
  return { order, paid: coll };
}

/** The books' cash after the fills poll read the order at each cut (one account, no fees). */
function booksCash(side: 0 | 1, limit: number, size: number, fills: readonly { q: number; n: number }[], cuts: readonly number[]): bigint {
  const tracker = new FillTracker([{ nonce: N, filled: 0, ref: 7, cost: 0 }]);
  const account = new Account();
  // a sale from inventory: the shares it sells were bought before at its limit, in their own fill
  if (side === 1)
    account.applyFill({ fillId: 'held', marketId: M, outcomeIndex: 1, side: 0, price: limit, size, fee: 0, feeSource: 'venue', ts: 0, origin: 'own' });
  const start = account.figures().cash;
  let t = 1;
  for (const c of [...cuts, fills.length]) {
    for (const e of tracker.observe([read(side, limit, size, fills.slice(0, c)).order], t++)) {
      if (e.event.type === 'OrderFilled') account.applyFill(accountFill(e.event as OrderFilled));
    }
  }
  return account.figures().cash - start;
}

const ONE = 1_000_000;

/** An order at a limit on a cent tick, and fills at it or better, each of any size. */
const order = fc
  .record({
    side: fc.constantFrom(0 as const, 1 as const),
    limitCents: fc.integer({ min: 5, max: 95 }),
    // each fill at least 0.01 share (the venue's smallest order), of any size above
    fills: fc.array(fc.record({ better: fc.integer({ min: 0, max: 4 }), n: fc.integer({ min: 10_000, max: 40_000_000 }) }), { minLength: 1, maxLength: 8 }),
    cuts: fc.array(fc.nat(), { maxLength: 8 }),
  })
  .map(({ side, limitCents, fills, cuts }) => {
    const limit = limitCents * 10_000;
    // a buy fills at its limit or lower, a sale at its limit or higher (whole cents)
    const fs = fills.map((f) => ({ q: side === 0 ? limit - f.better * 10_000 : limit + f.better * 10_000, n: f.n }));
    const size = fs.reduce((a, f) => a + f.n, 0);
    const cutAt = [...new Set(cuts.map((c) => c % (fs.length + 1)))].sort((a, b) => a - b);
    return { side, limit, size, fills: fs, cuts: cutAt };
  });

test('property: however an order that took liquidity is read in parts, the books hold what its stated average says it paid (within a unit per share)', () => {
  fc.assert(
    fc.property(order, ({ side, limit, size, fills, cuts }) => {
      const { order: last, paid } = read(side, limit, size, fills);
      const sign = side === 0 ? -1n : 1n;
      const cash = booksCash(side, limit, size, fills, cuts);
      // the books' total for the order is one the venue's final average states: avg × filled to within
      // its rounding (½ unit per share), whatever the split between reads
      const d = (sign * cash * 1_000_000n - BigInt(last.avgFillPrice!) * BigInt(size)) * 2n;
      assert.ok(
        d <= BigInt(size) + 2_000_000n && d >= -BigInt(size) - 2_000_000n,
        `parts at cuts ${cuts.join(',')}: ${cash} against the average ${last.avgFillPrice}`,
      );
      // what was paid lies within the same rounding of the average: one unit per share apart at most
      const off = cash - sign * BigInt(paid);
      const bound = BigInt(Math.ceil(size / ONE) + 1);
      assert.ok(off <= bound && off >= -bound, `within a unit per share of what was paid: off by ${off}`);
    }),
    { numRuns: 400 },
  );
});

test('property: an order that only ever fills at its own limit (a maker), in amounts the venue settles without rounding, is booked to the unit in any parts', () => {
  fc.assert(
    fc.property(order, ({ side, limit, fills, cuts }) => {
      // whole cents × multiples of 1e-4 share: every match settles a whole 1e-6 USDC
      const atLimit = fills.map((f) => ({ q: limit, n: f.n - (f.n % 100) }));
      const size = atLimit.reduce((a, f) => a + f.n, 0);
      const paid = atLimit.reduce((a, f) => a + (side === 0 ? notionalCeil(f.q, f.n) : notionalFloor(f.q, f.n)), 0);
      assert.equal(booksCash(side, limit, size, atLimit, cuts), (side === 0 ? -1n : 1n) * BigInt(paid));
    }),
    { numRuns: 200 },
  );
});

test('a buy read after each level it crossed: each part at the change of (filled, average), to the unit when the averages are exact', () => {
  // limit 0.55; 4 @ 0.50 (read), 3 @ 0.51 (read), 5 @ 0.53 (read): paid 2.00 + 1.53 + 2.65 = 6.18 USDC
  const fills = [
    { q: 500_000, n: 4_000_000 },
    { q: 510_000, n: 3_000_000 },
    { q: 530_000, n: 5_000_000 },
  ];
  // 12 shares, average 0.515 exactly: the books pay what the venue took
  assert.equal(booksCash(0, 550_000, 12_000_000, fills, [1, 2]), -6_180_000n);
  assert.equal(booksCash(0, 550_000, 12_000_000, fills, []), -6_180_000n);
  // 7 shares (4 @ 0.50, 3 @ 0.51): the average 0.504286 is rounded; the books hold its total, 2 units over
  // (the venue states no more: ½ unit per share is what an average in 1e-6 units can say)
  assert.equal(booksCash(0, 550_000, 7_000_000, fills.slice(0, 2), [1]), -3_530_002n);
});

test('a sale that crossed two levels, rested, and filled at its limit as a maker: to the unit', () => {
  // limit 0.48: takes 4 @ 0.50 and 4 @ 0.49 (read: average 0.495), then 6 fill at 0.48 (read: average
  // 0.488571, rounded); the resting part at the limit is what the average allows: 3.96 + 2.88 = 6.84
  const fills = [
    { q: 500_000, n: 4_000_000 },
    { q: 490_000, n: 4_000_000 },
    { q: 480_000, n: 6_000_000 },
  ];
  assert.equal(booksCash(1, 480_000, 14_000_000, fills, [2]), 6_840_000n);
});
