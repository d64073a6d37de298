/**
 * The reducer's orders draft keeps one instance alive (src/state/reduce.ts ORDERS_DRAFT_SHAPE) so that V8 keeps
 * the drafts' map across full GCs, and the optimised code that handled drafts with it (docs/performance/reoptimisation.md). The
 * kept instance is useful only while it has the map every draft has, also after a draft was written to: checked
 * with V8's %HaveSameMap (natives syntax, switched on for one function made here).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import type { OwnOrder } from '../../src/state/market-state.ts';
import { ORDERS_DRAFT_SHAPE, OrdersDraft } from '../../src/state/reduce.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const order = { slot: 'b0', remaining: 5, state: 'working', placedAt: 1 } as unknown as OwnOrder;

test('the kept orders draft has the map of every draft: fresh, written to, and emptied', () => {
  assert.ok(ORDERS_DRAFT_SHAPE instanceof OrdersDraft);
  const fresh = new OrdersDraft(new Map([['a', order]]));
  assert.ok(haveSameMap(ORDERS_DRAFT_SHAPE, fresh), 'a fresh draft');
  fresh.put('b', order);
  assert.ok(haveSameMap(ORDERS_DRAFT_SHAPE, fresh), 'a draft after put');
  fresh.put('a', null);
  assert.ok(haveSameMap(ORDERS_DRAFT_SHAPE, fresh), 'a draft after a removal');
  assert.equal(fresh.touched, true);
  assert.deepEqual([...fresh.result().keys()], ['b']);
  // the check itself tells maps apart: an object of another shape has another map
  assert.equal(haveSameMap(ORDERS_DRAFT_SHAPE, { copy: null, touched: false }), false);
});
