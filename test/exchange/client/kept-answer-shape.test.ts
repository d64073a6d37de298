/**
 * src/exchange/client/transport.ts keeps the last successful answer of each endpoint (keptAnswerOf) so that V8
 * keeps its JSON objects' and headers object's maps across full GCs, and the optimised code that read answers
 * with them (parseOrder and the other readers: docs/performance/reoptimisation.md). The kept answer is useful only
 * while it has the maps of the next answer of its endpoint: checked with V8's %HaveSameMap (natives syntax,
 * switched on for one function made here). Error answers and long answers are not kept. The module also keeps one
 * resource of queueMicrotask's kind (MICROTASK_SHAPE: undici queues microtasks per request), checked the same way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { createHook } from 'node:async_hooks';
import { keptAnswerOf, MICROTASK_SHAPE, Transport } from '../../../src/exchange/client/transport.ts';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { orderJson, startFixture, type Fixture } from './fixture-server.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

let fx: Fixture;
let t: Transport;
before(async () => {
  fx = await startFixture();
  t = new Transport({ baseUrl: fx.baseUrl, sleep: async () => {}, random: () => 0.5, retry: { maxAttempts: 1 } });
});
after(async () => {
  await t.close();
  await fx.close();
});

type Orders = { orders: object[]; cursor: string | null };

test("an endpoint's kept answer has the maps of its next answer: the JSON, its nested objects and the headers", async () => {
  fx.on(
    'GET /orders',
    { body: { orders: [orderJson({ id: 1 })], cursor: null } },
    { body: { orders: [orderJson({ id: 2 }), orderJson({ id: 3 })], cursor: null } },
    { status: 500, body: { error: 'boom' } },
  );
  const first = await t.request({ method: 'GET', path: '/orders', endpoint: 'GET /orders' });
  const kept = keptAnswerOf('GET /orders')!;
  assert.ok(kept !== undefined);
  assert.equal(kept.json, first.json);
  assert.equal(kept.headers, first.headers);
  const next = await t.request({ method: 'GET', path: '/orders', endpoint: 'GET /orders' });
  // the kept answer has the next one's maps, and the next one is kept now
  const was = kept.json as Orders;
  const now = next.json as Orders;
  assert.ok(haveSameMap(was, now), 'the answer');
  assert.ok(haveSameMap(was.orders[0]!, now.orders[1]!), 'an order');
  assert.ok(haveSameMap(kept.headers, next.headers), 'the headers');
  assert.equal(keptAnswerOf('GET /orders')!.json, next.json);
  // an error answer keeps the last good one
  await assert.rejects(t.request({ method: 'GET', path: '/orders', endpoint: 'GET /orders' }), VenueError);
  assert.equal(keptAnswerOf('GET /orders')!.json, next.json);
  // the check itself tells maps apart
  assert.equal(haveSameMap(now.orders[0]!, now), false);
});

test('an answer longer than 64 KiB is not kept', async () => {
  fx.on('GET /long', { body: { items: Array.from({ length: 200 }, (_, i) => orderJson({ id: i })) } });
  const r = await t.request({ method: 'GET', path: '/long', endpoint: 'GET /long' });
  assert.ok(JSON.stringify(r.json).length > 64 * 1024);
  assert.equal(keptAnswerOf('GET /long'), undefined);
});

test("the kept microtask resource has the map of queueMicrotask's resources", async () => {
  const made: object[] = [];
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'Microtask') made.push(resource);
    },
  });
  hook.enable();
  try {
    queueMicrotask(() => {});
  } finally {
    hook.disable();
  }
  await Promise.resolve();
  assert.equal(made.length, 1);
  assert.ok(haveSameMap(MICROTASK_SHAPE, made[0]!));
  // the check itself tells maps apart: a resource of the same class without the callback has another map
  const { AsyncResource } = await import('node:async_hooks');
  assert.equal(haveSameMap(MICROTASK_SHAPE, new AsyncResource('Microtask', { requireManualDestroy: true })), false);
});
