/**
 * src/runtime/live-venue.ts keeps one cleared Immediate alive so that V8 keeps the Immediates' map across full
 * GCs, and the optimised code that handled Immediates with it (docs/performance/reoptimisation.md). The kept one is useful only
 * while it has the map of the Immediates setImmediate makes, pending and cleared: checked with V8's
 * %HaveSameMap (natives syntax, switched on for one function made here).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { IMMEDIATE_SHAPE } from '../../src/runtime/live-venue.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

test('the kept Immediate has the map of the Immediates setImmediate makes, pending, run and cleared', async () => {
  let ran = false;
  const pending = setImmediate(() => {
    ran = true;
  });
  assert.ok(haveSameMap(IMMEDIATE_SHAPE, pending), 'a pending Immediate');
  await new Promise<void>((r) => setImmediate(r));
  assert.ok(ran);
  assert.ok(haveSameMap(IMMEDIATE_SHAPE, pending), 'an Immediate that ran');
  const cleared = setImmediate(() => assert.fail('a cleared Immediate ran'));
  clearImmediate(cleared);
  assert.ok(haveSameMap(IMMEDIATE_SHAPE, cleared), 'a cleared Immediate');
  // the check itself tells maps apart
  assert.equal(
    haveSameMap(
      IMMEDIATE_SHAPE,
      setTimeout(() => {}, 0),
    ),
    false,
  );
});
