/**
 * judgeStall's answer is one literal, not `{ ...base, ranSeconds, waitedSeconds, cause }`: a spread followed by
 * new keys gave each stall a V8 map of its own (docs/performance/map-churn.md). Counted with V8's %HaveSameMap (natives
 * syntax, switched on for one function made here); the keys keep their order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { judgeStall } from '../../src/runtime/loop-stall.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

function distinctMaps(objs: readonly object[]): number {
  const reps: object[] = [];
  for (const o of objs) if (!reps.some((r) => haveSameMap(r, o))) reps.push(o);
  return reps.length;
}

test('100 judged stalls (figures known, and unknown) share one map per kind, keys in order', () => {
  const known = Array.from({ length: 100 }, (_, i) => judgeStall(500 + i, { runNs: 0, waitNs: 0 }, { runNs: 3e8 + i, waitNs: 1e8 }, 1.5, 2));
  const unknown = Array.from({ length: 100 }, (_, i) => judgeStall(500 + i, null, null, 1.5, 2));
  const keys = ['seconds', 'loadAverage', 'cores', 'ranSeconds', 'waitedSeconds', 'cause'];
  assert.deepEqual(Object.keys(known[0]!), keys);
  assert.deepEqual(Object.keys(unknown[0]!), keys);
  assert.deepEqual(known[0], { seconds: 0.5, loadAverage: 1.5, cores: 2, ranSeconds: 0.3, waitedSeconds: 0.1, cause: 'busy' });
  assert.equal(distinctMaps(known), 1);
  assert.equal(distinctMaps(unknown), 1);
  // the check tells maps apart: a stall of another shape has another map
  assert.equal(haveSameMap(known[0]!, { ...known[0]!, extra: 1 }), false);
});
