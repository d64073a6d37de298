/** Slot levels (src/orders/slots.ts): the shortcut for quotes that name their own levels gives what the full rule gives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bytes32 } from '../../src/model/order.ts';
import type { MappedOrder } from '../../src/strategy/to-orders.ts';
import { desiredOrders, levelsAsGiven, slotLevels, slotOf } from '../../src/orders/slots.ts';

const MARKET = ('0x' + 'cd'.repeat(32)) as Bytes32;
type Q = { side: 'bid' | 'ask'; level?: number };

/** A small deterministic generator (no Math.random: a failure must repeat). */
function* quoteSets(): Generator<Q[]> {
  const levels = [undefined, 0, 1, 2, 0, 1, -1, 1.5, Number.NaN, 3];
  const sides = ['bid', 'ask', 'bid', 'ask', 'sell'] as const;
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  for (let k = 0; k < 3000; k++) {
    const n = next(6);
    const out: Q[] = [];
    for (let i = 0; i < n; i++) {
      const level = levels[next(levels.length)];
      const side = sides[next(sides.length)] as 'bid' | 'ask';
      out.push(level === undefined ? { side } : { side, level });
    }
    yield out;
  }
}

test('levelsAsGiven: whenever it holds, slotLevels gives every quote its own level', () => {
  let given = 0;
  let other = 0;
  for (const qs of quoteSets()) {
    if (levelsAsGiven(qs)) {
      given++;
      assert.deepEqual(
        slotLevels(qs),
        qs.map((q) => q.level),
        JSON.stringify(qs),
      );
    } else other++;
  }
  // both branches were exercised
  assert.ok(given > 100 && other > 100, `${given} / ${other}`);
});

test('levelsAsGiven: a side other than bid counts as the ask side, as slotLevels reads it', () => {
  const qs = [
    { side: 'ask' as const, level: 0 },
    { side: 'sell' as unknown as 'ask', level: 0 },
  ];
  assert.equal(levelsAsGiven(qs), false);
  assert.deepEqual(slotLevels(qs), [0, 1]);
});

test('desiredOrders: the slots are those of slotLevels, shortcut or not', () => {
  for (const qs of quoteSets()) {
    const mapped = qs.map((q, i) => ({ quote: { ...q, price: 100_000 + i, size: 1 }, form: 'buy-yes', order: { marketId: MARKET } }) as unknown as MappedOrder);
    const levels = slotLevels(qs);
    const slots = desiredOrders(MARKET, mapped).map((d) => d.slot);
    assert.deepEqual(
      slots,
      qs.map((q, i) => slotOf(MARKET, q.side, levels[i]!)),
      JSON.stringify(qs),
    );
  }
});
