/**
 * HealthModel.evaluateOncePerTurn ends its synchronous turn in a reaction on a resolved promise, not in
 * queueMicrotask: node's queueMicrotask makes an AsyncResource('Microtask') per call, a class none of whose
 * instances is alive at most full GCs (one scrape every few seconds), so its map died and V8 discarded the
 * optimised code that embedded it (docs/performance/reoptimisation.md). Checked with an async hook: a scrape's
 * evaluations make no 'Microtask' resource; and the turn still ends where it did (health-model.test.ts has the
 * rest: what recomputes within a turn).
 */
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { test } from 'node:test';
import { HealthModel } from '../../src/health/health-model.ts';
import { StateStore } from '../../src/state/store.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { M1, M2 } from '../orders/fake-venue.ts';

test('a scrape ends its turn without a queueMicrotask resource, at the same point of the microtask queue', async () => {
  const clock = new ManualClock();
  const state = new StateStore().state;
  let classified = 0;
  const h = new HealthModel({
    markets: [M1, M2],
    state: () => state,
    lastTick: () => {
      classified++;
      return null;
    },
    clock,
  });
  const evaluations = (): number => classified / 2; // one classification per market
  const seen: string[] = [];
  const hook = createHook({
    init(_id, type) {
      seen.push(type);
    },
  });
  const order: string[] = [];
  queueMicrotask(() => order.push(`before: ${evaluations()}`)); // queued before the scrape: runs before its turn ends
  hook.enable();
  try {
    h.evaluateOncePerTurn(); // the turn's first call: the one that schedules the turn's end
  } finally {
    hook.disable();
  }
  h.evaluateOncePerTurn();
  queueMicrotask(() => {
    // queued after the scrape: its turn has ended, the next call evaluates again
    h.evaluateOncePerTurn();
    order.push(`after: ${evaluations()}`);
  });
  await new Promise<void>((r) => setImmediate(r));
  assert.ok(!seen.includes('Microtask'), `resources made: ${seen.join(', ')}`);
  assert.deepEqual(order, ['before: 1', 'after: 2']);
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 3);
  // the check itself sees queueMicrotask's resource
  const own: string[] = [];
  const hook2 = createHook({
    init(_id, type) {
      own.push(type);
    },
  });
  hook2.enable();
  try {
    queueMicrotask(() => {});
  } finally {
    hook2.disable();
  }
  assert.deepEqual(own, ['Microtask']);
});
