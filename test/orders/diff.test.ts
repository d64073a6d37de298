import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadInputError } from '../../src/model/errors.ts';
import type { Bytes32, LimitOrder } from '../../src/model/order.ts';
import { diff, diffIsEmpty, withinTolerance, type DesiredOrder, type Tolerances, type TrackedOrder } from '../../src/orders/diff.ts';
import { planCalls } from '../../src/orders/plan-calls.ts';
import { M1 } from './fake-venue.ts';

const tol: Tolerances = { price: 10_000, sizeFraction: 0.1 };
const nonce = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
const order = (price: number, size = 10_000_000, side: 0 | 1 = 0, extra: Partial<LimitOrder> = {}): LimitOrder => ({
  marketId: M1,
  outcomeIndex: 1,
  side,
  price,
  size,
  ...extra,
});
const want = (slot: string, o: LimitOrder): DesiredOrder => ({ slot, order: o });
const have = (slot: string, o: LimitOrder, n: number, state: TrackedOrder['state'] = 'working', remaining = o.size): TrackedOrder => ({
  slot,
  planned: { ...o, nonce: nonce(n) },
  remaining,
  state,
  sentAt: 0,
});
const kinds = (a: { kind: string; slot: string }[]): string[] => a.map((x) => `${x.kind}:${x.slot}`);

describe('diff', () => {
  it('creates into empty slots and cancels unwanted orders, cancels first', () => {
    const a = diff([want('b0', order(400_000))], [have('x', order(300_000), 1)], tol, 0);
    assert.deepEqual(kinds(a), ['cancel:x', 'create:b0']);
  });

  const table: [string, LimitOrder, number, string[]][] = [
    ['identical → keep', order(400_000), 10_000_000, []],
    ['price within tolerance → keep', order(410_000), 10_000_000, []],
    ['price just outside → replace', order(410_001), 10_000_000, ['replace:b0']],
    ['size within 10% → keep', order(400_000, 11_000_000), 10_000_000, []],
    ['size beyond 10% → replace', order(400_000, 11_200_000), 10_000_000, ['replace:b0']],
    ['partially filled below tolerance → replace (top up)', order(400_000), 8_000_000, ['replace:b0']],
    ['side changed → replace', order(400_000, 10_000_000, 1), 10_000_000, ['replace:b0']],
    ['a buy with another inventory mode → keep (the mode only matters for sells)', order(400_000, 10_000_000, 0, { inventoryMode: 2 }), 10_000_000, []],
  ];
  for (const [name, desired, remaining, expected] of table) {
    it(name, () => {
      const a = diff([want('b0', desired)], [have('b0', order(400_000), 1, 'working', remaining)], tol, 0);
      assert.deepEqual(kinds(a), expected);
    });
  }

  it('sell kind 1 vs kind 2 differ, buy ignores inventory mode', () => {
    const sellInv = order(600_000, 10_000_000, 1, { inventoryMode: 1 });
    const sellNoInv = order(600_000, 10_000_000, 1, { inventoryMode: 2 });
    assert.equal(withinTolerance(have('a', sellInv, 1), sellNoInv, tol, 0), false);
    assert.equal(withinTolerance(have('a', sellInv, 1), order(600_000, 10_000_000, 1), tol, 0), true);
  });

  it('leaves a slot alone while anything in it is in flight', () => {
    for (const state of ['pending-create', 'pending-cancel'] as const) {
      const a = diff([want('b0', order(500_000))], [have('b0', order(400_000), 1, state)], tol, 0);
      assert.deepEqual(a, [], state);
    }
    const a = diff([], [have('b0', order(400_000), 1, 'pending-create')], tol, 0);
    assert.deepEqual(a, []);
  });

  it('two orders in one slot: keeps the matching one, cancels the other', () => {
    const a = diff([want('b0', order(400_000))], [have('b0', order(300_000), 1), have('b0', order(400_000), 2)], tol, 0);
    assert.equal(a.length, 1);
    assert.equal(a[0]!.kind, 'cancel');
    assert.equal(a[0]!.kind === 'cancel' && a[0]!.cancel.planned.nonce, nonce(1));
  });

  it('two orders in one slot, neither matching: moves one, cancels the other', () => {
    const a = diff([want('b0', order(450_000))], [have('b0', order(300_000), 1), have('b0', order(350_000), 2)], tol, 0);
    assert.deepEqual(kinds(a), ['cancel:b0', 'replace:b0']);
  });

  it('a slot named twice in the desired set is bad input', () => {
    assert.throws(
      () => diff([want('b0', order(1)), want('b0', order(2))], [], tol, 0),
      (e: unknown) => e instanceof BadInputError && e.field === 'desired[1].slot',
    );
  });

  it('dead-man: an order close to expiry is replaced even when price and size match', () => {
    const o = { ...order(400_000), expiry: 1_000 };
    const t = have('b0', o, 1);
    const dm: Tolerances = { ...tol, refreshBeforeSec: 30 };
    assert.deepEqual(diff([want('b0', order(400_000))], [t], dm, 960), []);
    assert.deepEqual(kinds(diff([want('b0', order(400_000))], [t], dm, 970)), ['replace:b0']);
  });

  it('is deterministic: the same inputs in another order give the same actions', () => {
    const d = [want('b1', order(390_000)), want('b0', order(400_000)), want('a0', order(600_000, 5_000_000, 1))];
    const t = [have('b0', order(380_000), 1), have('z', order(1), 2)];
    assert.deepEqual(kinds(diff(d, t, tol, 0)), kinds(diff([...d].reverse(), [...t].reverse(), tol, 0)));
    assert.deepEqual(kinds(diff(d, t, tol, 0)), ['cancel:z', 'replace:b0', 'create:a0', 'create:b1']);
  });
});

describe('diffIsEmpty', () => {
  it('says whether diff finds nothing to do, over random sets and orders', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const states: TrackedOrder['state'][] = ['working', 'working', 'working', 'pending-create', 'pending-cancel'];
    let empty = 0;
    for (let round = 0; round < 5000; round++) {
      const slots = ['a', 'b', 'c', 'd'];
      const desired: DesiredOrder[] = [];
      for (const slot of slots)
        if (rand(3) > 0) desired.push(want(slot, order(500_000 + 10_000 * rand(3), 10_000_000 + 1_000_000 * rand(3), rand(2) as 0 | 1)));
      if (rand(20) === 0 && desired.length > 0) desired.push(desired[0]!); // a slot named twice: diff throws
      const tracked: TrackedOrder[] = [];
      for (const slot of slots)
        for (let n = rand(4) === 0 ? 2 : rand(2); n > 0; n--)
          tracked.push(
            have(
              slot,
              order(500_000 + 10_000 * rand(3), 10_000_000, rand(2) as 0 | 1, rand(4) === 0 ? { expiry: 100 } : {}),
              round * 10 + tracked.length,
              states[rand(5)],
            ),
          );
      const nowSec = 90 + rand(10);
      const t: Tolerances = { ...tol, refreshBeforeSec: 5 };
      let expected: boolean;
      try {
        expected = diff(desired, tracked, t, nowSec).length === 0;
      } catch {
        expected = false; // a slot named twice: diff raises it, so the set is not settled without it
      }
      assert.equal(diffIsEmpty(desired, tracked, t, nowSec), expected, `round ${round}`);
      if (expected) empty++;
    }
    assert.ok(empty > 100);
  });

  it('says the same with many slots and orders (past the 30 tracked orders its bits hold, and below)', () => {
    let seed = 11;
    // the generator's high bits (its low bits cycle: rand(2) would alternate)
    const rand = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor(seed / 65_536) % n;
    };
    const states: TrackedOrder['state'][] = ['working', 'working', 'working', 'working', 'working', 'pending-create', 'pending-cancel'];
    let empty = 0;
    let wide = 0;
    let wideEmpty = 0;
    for (let round = 0; round < 3000; round++) {
      // a third of the rounds clean (every slot wanted, one working order in tolerance, now and then one in flight)
      const clean = rand(3) === 0;
      const slots = Array.from({ length: rand(2) === 0 ? 36 : 10 }, (_, i) => `m:bid:${i}`);
      // in a clean round a slot now and then no longer wanted: settled only while its order is still in flight
      const unwanted = slots.map(() => clean && rand(12) === 0);
      const desired: DesiredOrder[] = [];
      slots.forEach((slot, i) => {
        if (!unwanted[i] && (clean || rand(8) > 0)) desired.push(want(slot, order(500_000, 10_000_000, 1)));
      });
      const tracked: TrackedOrder[] = [];
      slots.forEach((slot, i) => {
        for (let n = clean ? 1 : rand(6) === 0 ? 2 + rand(2) : rand(8) === 0 ? 0 : 1; n > 0; n--) {
          const price = clean || rand(12) > 0 ? 500_000 : 520_000;
          const inFlight = unwanted[i] ? (rand(3) > 0 ? 'pending-cancel' : 'working') : rand(10) === 0 ? 'pending-create' : 'working';
          const state = clean ? inFlight : states[rand(7)];
          tracked.push(have(slot, order(price, 10_000_000, 1), round * 100 + tracked.length, state));
        }
      });
      let expected: boolean;
      try {
        expected = diff(desired, tracked, tol, 100).length === 0;
      } catch {
        expected = false;
      }
      assert.equal(diffIsEmpty(desired, tracked, tol, 100), expected, `round ${round} (${tracked.length} tracked)`);
      if (expected) empty++;
      if (tracked.length > 30) {
        wide++;
        if (expected) wideEmpty++;
      }
    }
    assert.ok(empty > 300 && wide > 1000 && wideEmpty > 100 && wide < 2500, `${empty} empty, ${wide} past 30 tracked (${wideEmpty} empty)`);
  });
});

describe('planCalls', () => {
  const create = (i: number) => ({ kind: 'create' as const, slot: `s${i}`, desired: want(`s${i}`, order(400_000 + i)) });
  const cancel = (i: number) => ({ kind: 'cancel' as const, slot: `c${i}`, cancel: have(`c${i}`, order(1), i) });
  const replace = (i: number) => ({ kind: 'replace' as const, slot: `r${i}`, cancel: have(`r${i}`, order(1), i), desired: want(`r${i}`, order(2)) });

  it('one replace alone is one cancel-replace call', () => {
    const c = planCalls([replace(1)], 50);
    assert.deepEqual(
      c.map((x) => x.kind),
      ['cancel-replace'],
    );
  });

  it('a 4-order requote is one bulk call', () => {
    const c = planCalls([replace(1), replace(2), replace(3), replace(4)], 50);
    assert.equal(c.length, 1);
    assert.equal(c[0]!.kind, 'batch');
  });

  it('batches at the limit: 120 creates with limit 50 → 50, 50, 20', () => {
    const c = planCalls(
      Array.from({ length: 120 }, (_, i) => create(i)),
      50,
    );
    assert.deepEqual(
      c.map((x) => (x.kind === 'batch' ? x.actions.length : -1)),
      [50, 50, 20],
    );
  });

  it('exactly at the limit is one call; one more is two', () => {
    assert.equal(
      planCalls(
        Array.from({ length: 50 }, (_, i) => create(i)),
        50,
      ).length,
      1,
    );
    assert.equal(
      planCalls(
        Array.from({ length: 51 }, (_, i) => create(i)),
        50,
      ).length,
      2,
    );
  });

  it('never splits a replace across calls and counts it as two operations', () => {
    const c = planCalls([cancel(1), replace(2), replace(3)], 3);
    assert.deepEqual(
      c.map((x) => (x.kind === 'batch' ? x.actions.map((a) => a.slot) : [])),
      [['c1', 'r2'], ['r3']],
    );
  });

  it('refuses a batch limit below 2', () => {
    assert.throws(() => planCalls([create(1)], 1), BadInputError);
  });

  it('nothing to do is no call', () => {
    assert.deepEqual(planCalls([], 50), []);
  });
});
