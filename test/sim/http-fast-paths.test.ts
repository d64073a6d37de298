/**
 * The local exchange's request shortcuts answer as the general paths do: JSON without a replacer
 * only when no bigint is inside, exact-path routes without the scan, plain request targets without
 * URL parsing (and anything else through it), and book streams that stay quiet until one is opened.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookStreamHub } from '../../src/sim/book-stream.ts';
import { FaultInjector } from '../../src/sim/faults.ts';
import { toJson } from '../../src/sim/http-server.ts';
import { Router, json } from '../../src/sim/router.ts';
import { request } from 'node:http';
import { harness } from './helpers.ts';
import type { Bytes32 } from '../../src/model/order.ts';

/** The former serialiser: a replacer for every value. */
const viaReplacer = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

test('toJson: the same text as a replacer for every value, bigints anywhere included', () => {
  let deep: unknown = { last: 7n };
  for (let i = 0; i < 40; i++) deep = { next: deep, i };
  const cases: unknown[] = [
    { success: true, order: { id: 3, price: '500000', status: 'open', voidedAt: null, filled: [1, 2, 3] } },
    { balance: 12n, nested: { list: [1, { x: 2n }, null] } },
    [1n, 'a', { b: [2n] }],
    { when: new Date(0), n: 1 },
    { toJSON: () => ({ big: 5n }) },
    deep,
    'text',
    42,
    null,
    [],
    {},
  ];
  for (const c of cases) assert.equal(toJson(c), viaReplacer(c));
});

test('router: exact static paths, parameters, trailing slashes and 405 answer as before', () => {
  const r = new Router();
  const h = () => json(200, {});
  r.add({ method: 'GET', path: '/orders/:id', auth: false, handler: h });
  r.add({ method: 'GET', path: '/orders/recent', auth: false, handler: h });
  r.add({ method: 'POST', path: '/orders', auth: false, handler: h });
  const recent = r.lookup('GET', '/orders/recent');
  assert.ok(recent.ok);
  assert.equal(recent.match.route.path, '/orders/recent');
  assert.deepEqual(recent.match.params, {});
  const byId = r.lookup('GET', '/orders/42');
  assert.ok(byId.ok);
  assert.deepEqual(byId.match.params, { id: '42' });
  const slash = r.lookup('POST', '/orders/');
  assert.ok(slash.ok, 'a trailing slash still reaches the route through the scan');
  const wrong = r.lookup('DELETE', '/orders');
  assert.ok(!wrong.ok);
  assert.equal(wrong.status, 405);
  assert.deepEqual(wrong.allowed, ['POST']);
  const none = r.lookup('GET', '/nothing');
  assert.ok(!none.ok);
  assert.equal(none.status, 404);
});

test('book streams: none open until a subscriber, and publishing before is a no-op', () => {
  const hub = new BookStreamHub({ bufferSize: 4, heartbeatMs: 0, now: () => 0, faults: new FaultInjector(undefined, 1) });
  assert.equal(hub.hasStreams(), false);
  hub.publishChanges(('0x' + 'a'.repeat(64)) as Bytes32, [{ side: 'bid', price: 500_000, size: 1_000_000 }], 0);
  hub.publishTrade(('0x' + 'a'.repeat(64)) as Bytes32, 500_000, 1_000_000, 'buy', 0);
  assert.equal(hub.hasStreams(), false);
  assert.equal(hub.subscriberCount(), 0);
});

test('request targets: plain paths, queries, escapes and dot segments reach the same routes', async (t) => {
  const h = await harness();
  t.after(() => h.close());
  const url = new URL(h.base);
  // node:http sends the target as written (fetch would resolve dot segments before sending)
  const get = (target: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: target, method: 'GET' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  const id = h.marketId;
  assert.equal(await get(`/v2/markets/${id}`), 200);
  assert.equal(await get(`/v2/markets/${id}?x=1`), 200);
  assert.equal(await get(`/v2/./markets/${id}`), 200);
  assert.equal(await get(`/v2/markets/%30x${id.slice(2)}`), 200);
  assert.equal(await get(`/v2/markets/0x${'0'.repeat(64)}`), 404);
  assert.equal(await get('/v3/markets'), 404);
});
