import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Bytes32, LimitOrder } from '../../src/model/order.ts';
import type { DesiredOrder, Tolerances, TrackedOrder } from '../../src/orders/diff.ts';
import { planReconcile } from '../../src/orders/reconcile.ts';
import { plannedFromVenue, remainingShares } from '../../src/orders/venue-order-shares.ts';
import { M1, venueOrder } from './fake-venue.ts';

const tol: Tolerances = { price: 10_000, sizeFraction: 0.1 };
const nonce = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
const order = (price: number, side: 0 | 1 = 0): LimitOrder => ({ marketId: M1, outcomeIndex: 1, side, price, size: 10_000_000 });
const want = (slot: string, o: LimitOrder): DesiredOrder => ({ slot, order: o });
const at = (o: LimitOrder, n: number, remaining?: number) => venueOrder({ ...o, nonce: nonce(n) }, remaining);
const tracked = (slot: string, o: LimitOrder, n: number, state: TrackedOrder['state'], sentAt = 0): TrackedOrder => ({
  slot,
  planned: { ...o, nonce: nonce(n) },
  remaining: o.size,
  state,
  sentAt,
});

describe('planReconcile', () => {
  it('adopts strangers that fit free slots and cancels the rest', () => {
    const plan = planReconcile(
      [at(order(400_000), 1), at(order(600_000, 1), 2), at(order(200_000), 3)],
      [],
      [want('b0', order(405_000)), want('a0', order(600_000, 1))],
      tol,
      0,
      1000,
    );
    assert.deepEqual(
      plan.adopt.map((a) => [a.slot, a.order.nonce]),
      [
        ['b0', nonce(1)],
        ['a0', nonce(2)],
      ],
    );
    assert.deepEqual(
      plan.cancel.map((o) => o.nonce),
      [nonce(3)],
    );
  });

  it('never adopts two orders into one slot', () => {
    const plan = planReconcile([at(order(400_000), 1), at(order(401_000), 2)], [], [want('b0', order(400_000))], tol, 0, 1000);
    assert.equal(plan.adopt.length, 1);
    assert.equal(plan.cancel.length, 1);
  });

  it('does not adopt into a slot we already fill', () => {
    const plan = planReconcile(
      [at(order(400_000), 1), at(order(400_000), 2)],
      [tracked('b0', order(400_000), 1, 'working')],
      [want('b0', order(400_000))],
      tol,
      0,
      1000,
    );
    assert.deepEqual(plan.confirm, [nonce(1)]);
    assert.deepEqual(plan.adopt, []);
    assert.deepEqual(
      plan.cancel.map((o) => o.nonce),
      [nonce(2)],
    );
  });

  it('forgets tracked orders the venue no longer lists, but waits for young creates', () => {
    const t = [
      tracked('b0', order(400_000), 1, 'working'),
      tracked('b1', order(390_000), 2, 'pending-create', 900),
      tracked('b2', order(380_000), 3, 'pending-create', 0),
      tracked('b3', order(370_000), 4, 'pending-cancel'),
    ];
    const plan = planReconcile([], t, [], tol, 1000, 500);
    assert.deepEqual(
      plan.forget.map((x) => x.planned.nonce),
      [nonce(1), nonce(3), nonce(4)],
    );
  });

  it('a young pending create keeps its slot free of strangers', () => {
    const plan = planReconcile(
      [at(order(400_000), 9)],
      [tracked('b0', order(400_000), 1, 'pending-create', 900)],
      [want('b0', order(400_000))],
      tol,
      1000,
      500,
    );
    assert.deepEqual(
      plan.cancel.map((o) => o.nonce),
      [nonce(9)],
    );
  });

  it('confirms what the venue lists open, whatever its fills; ignores non-open statuses', () => {
    const filled = { ...at(order(300_000), 5), status: 'filled' as const };
    const plan = planReconcile([at(order(400_000), 1, 4_000_000), filled], [tracked('b0', order(400_000), 1, 'pending-create')], [], tol, 0, 1000);
    assert.deepEqual(plan.confirm, [nonce(1)]);
    assert.deepEqual(plan.cancel, []);
  });
});

describe('remainingShares', () => {
  // a V2 buy of 12.345678 @ 0.37: budget 4.567901 + fee cap 0.045679 (docs/venue.md example 1)
  const buy = (filledSize: number, avgFillPrice: number) => ({
    ...at(order(370_000), 1),
    size: 4_613_580,
    filledSize,
    remainingSize: 4_613_580 - filledSize,
    avgFillPrice,
    settlementVersion: 2 as const,
    sv2MinSharesOut: 12_345_678n,
  });
  it('a V2 buy rests its minSharesOut less the shares it bought, not the unspent fraction of the budget', () => {
    // 6 shares filled at its limit (maker, no fee): 2.220000 of the budget; the budget's unspent
    // fraction would say 6.405 shares rest (the fee cap counted as if spent per share)
    assert.equal(remainingShares(buy(2_220_000, 370_000)), 6_345_678);
    // 4 shares taken at 0.30 with a 50 bps taker fee: 1.200000 + 0.006000 spent, 8.345678 rest
    // (the unspent fraction would say 9.118)
    assert.equal(remainingShares(buy(1_206_000, 300_000), { makerBps: 0, takerBps: 50 }), 8_345_678);
  });
  it("a found V2 buy is adopted at the shares it rests with, the fee it paid out of its budget: the order manager's fee model reaches the plan", () => {
    const fees = { makerBps: 0, takerBps: 50 };
    const found = buy(1_206_000, 300_000);
    assert.equal(plannedFromVenue(found, fees).size, remainingShares(found, fees));
    assert.equal(plannedFromVenue(found, fees).size, 8_345_678);
    // without the fee model the fee counts as shares bought: 8.325678 rest (20 000 units short)
    assert.equal(plannedFromVenue(found).size, 8_325_678);
    const tight: Tolerances = { price: 0, sizeFraction: 0.001 };
    const desired = [want('b0', { ...order(370_000), size: 8_345_678 })];
    const withFees = planReconcile([found], [], desired, tight, 0, 1000, fees);
    assert.deepEqual(
      withFees.adopt.map((a) => a.slot),
      ['b0'],
      'the order rests with what the slot wants: adopted (old code: read short by the fee, cancelled)',
    );
    assert.equal(planReconcile([found], [], desired, tight, 0, 1000).cancel.length, 1, 'read without the fees: outside the tolerance');
  });
  it('sells carry shares', () => {
    assert.equal(remainingShares(at(order(600_000, 1), 1, 3_000_000)), 3_000_000);
  });
});
