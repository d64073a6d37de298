/**
 * Fuzz of the local exchange over real HTTP: mutated signed order bodies on create / cancel /
 * cancel-replace / bulk / bulk create / bulk cancel / simulate, mutated account bodies (mint, migration,
 * gasless, questions), junk query strings and path parameters, odd methods and content types. Every answer
 * is below 500, every refusal is `{message, code}`, no request hangs (each has a deadline), no handler bug
 * reaches `onError`; afterwards the server is healthy (a fresh valid order round-trips), the engine's
 * invariants hold and the books the fuzz never touched are unchanged.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { createSigner, type Signer } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { junk, mutateJson } from './mutate.ts';

const KEY = 'fuzz-http-key';
const CONCURRENCY = 8;
const REQUEST_DEADLINE_MS = 15_000;

let ex: LocalExchange;
let base: string;
let alice: Signer;
let marketId: Bytes32;
let untouched: Bytes32;
const handlerErrors: string[] = [];
let total = 0;

before(async () => {
  ex = createLocalExchange({
    seed: 23,
    apiKeys: [
      { key: KEY, perms: ['read', 'trade', 'can_create_markets'] },
      { key: 'reader-key', perms: ['read'] },
    ],
    expirySweepMs: 0,
    rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
    onError: (e, method, path) => handlerErrors.push(`${method} ${path}: ${(e as Error)?.stack ?? String(e)}`),
  });
  base = await ex.start(0);
  alice = createSigner({ privateKey: ex.state.keys.get(KEY)!.privateKey!, chain: TESTNET });
  const ids = [...ex.state.stores.markets.values()].map((m) => m.id);
  marketId = ids[0]!;
  untouched = ids[ids.length - 1]!;
});
after(() => ex.close());

interface Req {
  method: string;
  path: string;
  body?: string;
  key?: string;
  contentType?: string;
}

async function send(r: Req): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (r.key) headers.authorization = `Bearer ${r.key}`;
  if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
  const res = await fetch(base + r.path, {
    method: r.method,
    headers,
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    ...(r.body !== undefined ? { body: r.body } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // non-JSON answers are checked below
  }
  return { status: res.status, body };
}

/** Send all requests (a few at a time) and check the contract of every answer. */
async function fuzzAll(reqs: Req[]): Promise<string[]> {
  const bad: string[] = [];
  for (let i = 0; i < reqs.length; i += CONCURRENCY) {
    await Promise.all(
      reqs.slice(i, i + CONCURRENCY).map(async (r) => {
        total++;
        const res = await send(r);
        const b = res.body as { message?: unknown; code?: unknown } | undefined;
        const what = `${r.method} ${r.path} ${r.body?.slice(0, 160) ?? ''} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 160)}`;
        if (res.status >= 500) bad.push(what);
        else if (res.status >= 400 && res.status !== 304 && !(typeof b?.message === 'string' && b.message.length > 0 && typeof b.code === 'string'))
          bad.push(`no {message, code}: ${what}`);
      }),
    );
  }
  return bad;
}

/** The levels of a book (its timestamp moves with the clock, so it is left out). */
async function bookOf(id: Bytes32): Promise<unknown> {
  const b = (await send({ method: 'GET', path: `/markets/${id}/orderbook?outcomeIndex=1&depth=100` })).body as { bids: unknown; asks: unknown };
  return { bids: b.bids, asks: b.asks };
}

test('mutated signed order bodies on every order route: 4xx {message, code}, never 5xx, never a hang', async (t) => {
  // a resting order on a market the fuzz never addresses: it must still be there, unchanged, afterwards
  const resting = alice.signOrder({ marketId: untouched, outcomeIndex: 1, side: 0, price: 70_000, size: 2_000_000 });
  assert.equal((await send({ method: 'POST', path: '/orders', body: JSON.stringify(resting), key: KEY })).status, 201);
  const bookBefore = await bookOf(untouched);
  assert.notDeepEqual(bookBefore, { bids: [], asks: [] });
  const order = () => alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
  const good = order();
  const cancel = alice.signCancel(good.nonce);
  const shapes: ((o: unknown, c: unknown) => [string, unknown])[] = [
    (o) => ['/orders', o],
    (_o, c) => ['/orders/cancel', c],
    (o, c) => ['/orders/cancel-replace', { cancel: c, create: o }],
    (o, c) => [
      '/orders/bulk',
      {
        operations: [
          { type: 'create', order: o },
          { type: 'cancel', cancel: c },
        ],
      },
    ],
    (o) => ['/orders/bulk/create', { orders: [o, o] }],
    (_o, c) => ['/orders/bulk/cancel', { cancels: [c] }],
    (o) => ['/orders/simulate', o],
  ];
  const cases = fc.sample(fc.tuple(fc.nat(shapes.length - 1), fc.integer(), fc.integer({ min: 1, max: 3 }), fc.boolean()), { numRuns: 1500, seed: 6401 });
  const reqs: Req[] = cases.map(([s, seed, count, wholeBody]) => {
    const [path, body] = shapes[s]!(good, cancel);
    // either damage the inner order/cancel or the whole envelope
    const damaged = wholeBody ? mutateJson(body, seed, count) : shapes[s]!(mutateJson(good, seed, count), mutateJson(cancel, seed + 1, count))[1];
    return { method: 'POST', path, body: JSON.stringify(damaged) ?? 'null', key: KEY };
  });
  const bad = await fuzzAll(reqs);
  t.diagnostic(`fuzz cases: ${reqs.length}`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} bad answers`);
  assert.deepEqual(handlerErrors, []);
  assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
  assert.deepEqual(await bookOf(untouched), bookBefore, 'a market the fuzz never addressed is unchanged');
});

test('mutated account bodies (mint, migration, gasless, questions, market create): never 5xx', async (t) => {
  const bodies: [string, unknown][] = [
    ['/balance/mint-test-usdc', { address: alice.address, amount: '100' }],
    ['/account/migration/start', { address: alice.address }],
    ['/account/migration/migrate-funds', { address: alice.address, steps: [{ chunkIndex: 0, signature: '0x' + '11'.repeat(65) }] }],
    [
      '/account/migration/restore-orders',
      {
        address: alice.address,
        restorations: [{ legacyOrderId: 1, order: alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 }) }],
      },
    ],
    ['/account/migration/dismiss-orders', { address: alice.address, legacyOrderIds: [1, 2] }],
    [
      '/gasless/operator',
      { user: alice.address, operator: alice.address, approved: true, nonce: '0', deadline: '9999999999', signature: '0x' + '22'.repeat(65) },
    ],
    ['/gasless/deposit-with-permit', { user: alice.address, amount: '1000000', deadline: '9999999999', signature: '0x' + '33'.repeat(65) }],
    ['/questions', { question: 'Will the fuzz pass?' }],
    [
      '/questions/agent-submit',
      { market: { formattedQuestion: 'Q?', shortQuestion: 'Q', marketQuestion: 'Q?', resolutionCriteria: 'x', endTime: '2027-01-01T00:00:00Z' } },
    ],
    ['/markets/create', { questionId: '0x' + '44'.repeat(32) }],
    [`/markets/${marketId}/simulate`, { side: 'yes', amount: 10, amountType: 'usd' }],
  ];
  const cases = fc.sample(fc.tuple(fc.nat(bodies.length - 1), fc.integer(), fc.integer({ min: 1, max: 3 })), { numRuns: 800, seed: 6402 });
  const reqs: Req[] = cases.map(([i, seed, count]) => ({
    method: 'POST',
    path: bodies[i]![0],
    body: JSON.stringify(mutateJson(bodies[i]![1], seed, count)) ?? 'null',
    key: KEY,
  }));
  const bad = await fuzzAll(reqs);
  t.diagnostic(`fuzz cases: ${reqs.length}`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} bad answers`);
  assert.deepEqual(handlerErrors, []);
});

test('junk queries, path parameters, methods and content types: never 5xx', async (t) => {
  const templates = [
    '/markets?$q',
    '/markets/search?$q',
    '/markets/$p',
    '/markets/$p/orderbook?$q',
    '/markets/$p/prices?$q',
    '/markets/$p/quotes',
    '/markets/$p/oracle',
    '/markets/$p/oracle/quotes',
    '/markets/$p/activity?$q',
    '/activity?$q',
    '/orders?$q',
    '/orders/recent?$q',
    '/orders/$p',
    '/portfolio/$p?$q',
    '/portfolio/$p/positions?$q',
    '/portfolio/$p/claimable',
    '/portfolio/$p/stats',
    '/balance/$p',
    '/balance/settlement?$q',
    '/questions/submissions/$p',
    '/account/migration?$q',
  ];
  const names = [
    'limit',
    'cursor',
    'depth',
    'outcomeIndex',
    'status',
    'sortBy',
    'timeframe',
    'q',
    'offset',
    'trader',
    'marketId',
    'windowSeconds',
    'address',
    'tokenAddress',
    'kind',
  ];
  const word = fc.oneof(
    junk.map((j) => (typeof j === 'string' ? j.slice(0, 300) : (JSON.stringify(j) ?? ''))),
    fc.constantFrom(marketId, alice.address, '-1', '0', '1e9', '%zz', '..', '../..', 'null'),
  );
  const cases = fc.sample(
    fc.tuple(
      fc.constantFrom(...templates),
      fc.constantFrom(...names),
      word,
      word,
      fc.constantFrom('GET', 'GET', 'GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'),
      fc.constantFrom(KEY, 'reader-key', undefined, 'wrong-key'),
    ),
    { numRuns: 1200, seed: 6403 },
  );
  const reqs: Req[] = cases.map(([tpl, name, a, b, method, key]) => {
    // raw % sequences are kept on purpose half of the time: the router must survive malformed escapes
    const p = a.includes('%zz') ? a : encodeURIComponent(a) || 'x';
    const path = tpl.replace('$p', p).replace('$q', `${encodeURIComponent(name)}=${encodeURIComponent(b)}&${name}=${encodeURIComponent(a)}`);
    return {
      method,
      path,
      ...(key ? { key } : {}),
      ...(method === 'POST' || method === 'PUT'
        ? { body: b, contentType: ['application/json', 'text/plain', 'application/x-www-form-urlencoded'][b.length % 3]! }
        : {}),
    };
  });
  const bad = await fuzzAll(reqs);
  t.diagnostic(`fuzz cases: ${reqs.length}`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} bad answers`);
  assert.deepEqual(handlerErrors, []);
});

test('a wrong-typed field of a signed order is refused with a 400 naming that field', async (t) => {
  const fresh = () => alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
  const wrong = [{}, [], true, 'not-a-number', -1, 1.5, '0x', null];
  let n = 0;
  const unnamed: string[] = [];
  for (const field of Object.keys(fresh())) {
    for (const w of wrong) {
      n++;
      // a fresh nonce each time: a lenient field may accept the junk and place the order
      const good = fresh();
      total++;
      const r = await send({ method: 'POST', path: '/orders', body: JSON.stringify({ ...good, [field]: w }), key: KEY });
      const b = r.body as { message?: string; code?: string; field?: string };
      if (r.status === 201) continue; // some junk is still a valid value of a lenient field
      assert.ok(r.status >= 400 && r.status < 500, `${field}=${JSON.stringify(w)} → ${r.status}`);
      // a refusal names the field, unless the refusal is the signature check (a changed field breaks it)
      if (!`${b.field ?? ''} ${b.message ?? ''}`.includes(field) && !/signature|signer/i.test(b.message ?? ''))
        unnamed.push(`${field}=${JSON.stringify(w)}: ${b.message}`);
    }
  }
  t.diagnostic(`fuzz cases: ${n}`);
  assert.deepEqual(unnamed, []);
});

test('afterwards: healthy server, a valid order round-trips, invariants hold', async (t) => {
  const body = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 50_000, size: 1_000_000 });
  const created = await send({ method: 'POST', path: '/orders', body: JSON.stringify(body), key: KEY });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const cancelled = await send({ method: 'POST', path: '/orders/cancel', body: JSON.stringify(alice.signCancel(body.nonce)), key: KEY });
  assert.ok(cancelled.status === 200 || cancelled.status === 201, JSON.stringify(cancelled.body));
  assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
  t.diagnostic(`fuzz requests in this file: ${total}`);
});
