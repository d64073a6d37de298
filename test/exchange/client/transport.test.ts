import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import diagnostics from 'node:diagnostics_channel';
import { Transport, buildQuery } from '../../../src/exchange/client/transport.ts';
import { NetworkError, TimeoutError, VenueError } from '../../../src/exchange/client/errors.ts';
import { BadResponseError } from '../../../src/model/errors.ts';
import { startFixture, type Fixture } from './fixture-server.ts';

let fx: Fixture;
let sleeps: number[];
const sleep = async (ms: number): Promise<void> => {
  sleeps.push(ms);
};
const open: Transport[] = [];
function transport(over: Partial<ConstructorParameters<typeof Transport>[0]> = {}): Transport {
  const t = new Transport({ baseUrl: fx.baseUrl, sleep, random: () => 0.5, ...over });
  open.push(t);
  return t;
}

before(async () => {
  fx = await startFixture();
});
after(async () => {
  await Promise.all(open.map((t) => t.close()));
  await fx.close();
});
beforeEach(() => {
  sleeps = [];
  fx.requests.length = 0;
});

test('base path is kept, query encoded, undefined dropped, arrays comma-joined', async () => {
  fx.on('GET /things', { body: { ok: true } });
  const t = transport();
  await t.request({ method: 'GET', path: '/things', endpoint: 'GET /things', query: { a: 'x y&z', b: undefined, c: null, d: ['open', 'filled'], e: 5 } });
  const r = fx.requests[0]!;
  assert.equal(r.path, '/v2/things');
  assert.equal(r.query.get('a'), 'x y&z');
  assert.equal(r.query.has('b'), false);
  assert.equal(r.query.has('c'), false);
  assert.equal(r.query.get('d'), 'open,filled');
  assert.equal(r.query.get('e'), '5');
  assert.equal(buildQuery({}), '');
});

test('Authorization only with a key; Content-Type only with a body', async () => {
  fx.on('GET /a', { body: {} });
  fx.on('POST /b', { status: 201, body: {} });
  await transport().request({ method: 'GET', path: '/a', endpoint: 'GET /a' });
  const keyed = transport({ apiKey: 'ctx_pk_secret_123456' });
  await keyed.request({ method: 'GET', path: '/a', endpoint: 'GET /a' });
  await keyed.request({ method: 'POST', path: '/b', endpoint: 'POST /b', body: { n: 1n } });
  const [r1, r2, r3] = fx.requests;
  assert.equal(r1!.headers.authorization, undefined);
  assert.equal(r1!.headers['content-type'], undefined);
  assert.equal(r2!.headers.authorization, 'Bearer ctx_pk_secret_123456');
  assert.equal(r2!.headers['content-type'], undefined);
  assert.equal(r3!.headers['content-type'], 'application/json');
  assert.equal(r3!.body, '{"n":"1"}'); // bigint serialised as a decimal string
  assert.equal(keyed.authenticated, true);
});

test('5xx then success: retried with the same bytes, back-off jittered', async () => {
  fx.on('POST /orders', { status: 503, body: { message: 'busy' } }, { status: 502, body: { message: 'gw' } }, { status: 201, body: { ok: 1 } });
  const res = await transport().request({ method: 'POST', path: '/orders', endpoint: 'POST /orders', body: { nonce: '0x01' }, idempotent: true });
  assert.equal(res.status, 201);
  assert.equal(res.attempts, 3);
  assert.equal(fx.requests.length, 3);
  assert.equal(new Set(fx.requests.map((r) => r.body)).size, 1);
  assert.deepEqual(sleeps, [100, 200]); // random 0.5 × 200·2^(n-1)
});

test('non-idempotent write is not retried on 5xx', async () => {
  fx.on('POST /mint', { status: 500, body: { message: 'oops' } }, { status: 200, body: {} });
  await assert.rejects(
    transport().request({ method: 'POST', path: '/mint', endpoint: 'POST /mint', body: {} }),
    (e: unknown) => e instanceof VenueError && e.status === 500,
  );
  assert.equal(fx.requests.length, 1);
});

test('429 honours Retry-After (seconds) and then succeeds', async () => {
  fx.on('GET /r', { status: 429, body: { message: 'slow' }, headers: { 'retry-after': '2' } }, { body: { ok: true } });
  const res = await transport().request({ method: 'GET', path: '/r', endpoint: 'GET /r' });
  assert.deepEqual(res.json, { ok: true });
  assert.deepEqual(sleeps, [2000]);
});

test('429 with X-RateLimit-Reset, and the rate-limit state is exposed', async () => {
  const now = 1_800_000_000_000;
  fx.on(
    'GET /r2',
    {
      status: 429,
      body: { message: 'slow' },
      headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 3) },
    },
    { body: {}, headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': String(now / 1000 + 60) } },
  );
  const t = transport({ now: () => now });
  await t.request({ method: 'GET', path: '/r2', endpoint: 'GET /r2' });
  assert.deepEqual(sleeps, [3000]);
  assert.deepEqual(t.rateLimit, { limit: 10, remaining: 9, resetAtMs: now + 60_000, observedAtMs: now });
});

test('retry budget: attempts are bounded and the last error is thrown', async () => {
  fx.on('GET /down', { status: 500, body: { message: 'down', code: 'internal' } });
  await assert.rejects(
    transport({ retry: { maxAttempts: 3 } }).request({ method: 'GET', path: '/down', endpoint: 'GET /down' }),
    (e: unknown) => e instanceof VenueError && e.venueCode === 'internal',
  );
  assert.equal(fx.requests.length, 3);
  assert.equal(sleeps.length, 2);
});

test('retry budget: a Retry-After beyond the total budget is not waited for', async () => {
  fx.on('GET /long', { status: 429, body: { message: 'later' }, headers: { 'retry-after': '3600' } });
  await assert.rejects(
    transport().request({ method: 'GET', path: '/long', endpoint: 'GET /long' }),
    (e: unknown) => e instanceof VenueError && e.status === 429 && e.retryAfterMs === 3_600_000,
  );
  assert.equal(fx.requests.length, 1);
  assert.deepEqual(sleeps, []);
});

test('4xx is not retried and carries {message, code}', async () => {
  fx.on('GET /bad', { status: 400, body: { message: 'limit too large', code: 'validation_error' } });
  await assert.rejects(transport().request({ method: 'GET', path: '/bad', endpoint: 'GET /bad' }), (e: unknown) => {
    assert.ok(e instanceof VenueError);
    assert.equal(e.status, 400);
    assert.equal(e.venueCode, 'validation_error');
    assert.equal(e.venueMessage, 'limit too large');
    return true;
  });
  assert.equal(fx.requests.length, 1);
});

test('malformed 2xx body → BadResponseError', async () => {
  fx.on('GET /junk', { raw: '{"markets": [' });
  await assert.rejects(
    transport().request({ method: 'GET', path: '/junk', endpoint: 'GET /junk' }),
    (e: unknown) => e instanceof BadResponseError && e.endpoint === 'GET /junk',
  );
});

test('network error: connection refused is a NetworkError, retried for reads', async () => {
  const srv = http.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  const t = transport({ baseUrl: `http://127.0.0.1:${port}/v2`, retry: { maxAttempts: 2 } });
  await assert.rejects(t.request({ method: 'GET', path: '/x', endpoint: 'GET /x' }), (e: unknown) => e instanceof NetworkError && e.endpoint === 'GET /x');
  assert.equal(sleeps.length, 1);
});

test('per-request timeout → TimeoutError', async () => {
  const srv = http.createServer(() => {
    /* never answers */
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  const t = transport({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 50, retry: { maxAttempts: 1 } });
  try {
    await assert.rejects(t.request({ method: 'GET', path: '/slow', endpoint: 'GET /slow' }), (e: unknown) => e instanceof TimeoutError && e.timeoutMs === 50);
  } finally {
    srv.closeAllConnections();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});

/**
 * The held-server tests wait on their events, not on the clock: their deadlines only stop a hang. The loop is
 * held from the turn the request is written to the socket (undici's sendHeaders diagnostics message), before
 * its timer can run however busy the machine, and the timeout leaves that write many turns.
 */
const HANG_GUARD_MS = 120_000;

/**
 * A server on a thread of its own, so it answers while the test's event loop is held: flags[0] = a
 * request to /held or /after arrived, flags[1] = the test lets it answer, flags[2] = the answer is written.
 */
const HELD_SERVER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const flags = new Int32Array(workerData.flags);
const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url !== '/held' && req.url !== '/after') return res.end('{"warm":true}');
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
  Atomics.wait(flags, 1, 0, ${HANG_GUARD_MS});
  const body = req.url === '/held' ? '{"answered":"during the stall"}' : '{"answered":"after the stall"}';
  res.end(body, () => { Atomics.store(flags, 2, 1); Atomics.notify(flags, 2); });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => { server.closeAllConnections(); server.close(() => parentPort.close()); });
`;

/** A request that opens the connection the next one reuses: tried again when a busy machine timed it out. */
async function warm(t: Transport): Promise<void> {
  const giveUp = performance.now() + HANG_GUARD_MS;
  for (;;) {
    try {
      await t.request({ method: 'GET', path: '/warm', endpoint: 'GET /warm' });
      return;
    } catch (e) {
      if (!(e instanceof TimeoutError) || performance.now() > giveUp) throw e;
    }
  }
}

/**
 * Holds the event loop from the turn a request to `path` is written to the socket (call it before the request)
 * until the server has it, then runs `during` and holds on until `until()` is true.
 */
function holdLoop(flags: Int32Array, path: string, during: () => void, until: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSend = (m: unknown): void => {
      if ((m as { request?: { path?: string } }).request?.path !== path) return;
      diagnostics.unsubscribe('undici:client:sendHeaders', onSend);
      setImmediate(() => {
        Atomics.wait(flags, 0, 0, HANG_GUARD_MS);
        assert.equal(Atomics.load(flags, 0), 1, 'the request reached the server');
        during();
        while (!until()) Atomics.wait(flags, 3, 0, 20);
        resolve();
      });
    };
    diagnostics.subscribe('undici:client:sendHeaders', onSend);
  });
}

for (const holdMs of [1_300, 400])
  test(`an answer that arrived while the event loop was held ${holdMs} ms, past the timeout, is read, not timed out; a request still unanswered after one turn times out`, async () => {
    const flags = new Int32Array(new SharedArrayBuffer(16));
    const worker = new Worker(HELD_SERVER, { eval: true, workerData: { flags: flags.buffer } });
    try {
      const [port] = (await once(worker, 'message')) as [number];
      const timeoutMs = 1_000;
      const t = transport({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs, retry: { maxAttempts: 1 } });
      await warm(t); // the connection is open
      // hold the loop in a turn of its own (as a long turn of socket reads does) while the server
      // answers, until the timer is holdMs past due: Node then runs the due timer before the read
      const sent = performance.now();
      const held = holdLoop(
        flags,
        '/held',
        () => {
          Atomics.store(flags, 1, 1);
          Atomics.notify(flags, 1);
          Atomics.wait(flags, 2, 0, HANG_GUARD_MS);
        },
        () => performance.now() - sent >= timeoutMs + holdMs,
      );
      const answer = t.request({ method: 'GET', path: '/held', endpoint: 'GET /held' });
      await held;
      assert.equal(Atomics.load(flags, 2), 1, 'answered during the hold');
      const r = await answer; // old code: TimeoutError, the timer ran before the socket was read
      assert.deepEqual(r.json, { answered: 'during the stall' });
    } finally {
      worker.postMessage('close');
      await worker.terminate();
    }
    // a late timer whose request has no answer after that turn still times out
    const srv = http.createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const t = transport({ baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, timeoutMs: 50, retry: { maxAttempts: 1 } });
    try {
      const p = t.request({ method: 'GET', path: '/never', endpoint: 'GET /never' });
      await new Promise<void>((r) =>
        setImmediate(() => {
          const t0 = performance.now();
          while (performance.now() - t0 < holdMs) Atomics.wait(flags, 0, 1, 20);
          r();
        }),
      );
      await assert.rejects(p, (e: unknown) => e instanceof TimeoutError);
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });

test("a timeout a stall made late gives the request the stall's time back, once: answered after the late timer's verdict, it is taken", async () => {
  const flags = new Int32Array(new SharedArrayBuffer(16));
  const worker = new Worker(HELD_SERVER, { eval: true, workerData: { flags: flags.buffer } });
  try {
    const [port] = (await once(worker, 'message')) as [number];
    // the timer runs 1.6 s late, past LATE_TIMER_MS: the request gets min(1.6 s, the timeout) back, time
    // enough for a busy machine's server to answer once the test lets it
    const timeoutMs = 1_500;
    const t = transport({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs, retry: { maxAttempts: 1 } });
    await warm(t);
    const sent = performance.now();
    const held = holdLoop(
      flags,
      '/after',
      () => {},
      () => performance.now() - sent >= timeoutMs + 1_600,
    );
    const answer = t.request({ method: 'GET', path: '/after', endpoint: 'GET /after' });
    await held;
    // the late timer runs in the next turn and gives its verdict after that turn's reads (an immediate); the
    // server is let go from the turn after it, so the answer comes after the verdict
    await new Promise((r) => setImmediate(() => setImmediate(r)));
    Atomics.store(flags, 1, 1);
    Atomics.notify(flags, 1);
    // old code: TimeoutError (the verdict one turn after the late timer, before the answer)
    assert.deepEqual((await answer).json, { answered: 'after the stall' });
  } finally {
    worker.postMessage('close');
    await worker.terminate();
  }
});

test('pacing: minimum spacing between requests uses the injected sleep', async () => {
  fx.on('GET /p', { body: {} });
  let now = 1000;
  const t = transport({ now: () => now, pacing: { minIntervalMs: 250 } });
  await t.request({ method: 'GET', path: '/p', endpoint: 'GET /p' });
  now += 100;
  await t.request({ method: 'GET', path: '/p', endpoint: 'GET /p' });
  assert.deepEqual(sleeps, [150]);
});

test('pacing: after X-RateLimit-Remaining 0 the next request waits for the reset (opt-in; off without pacing)', async () => {
  const now = 1_800_000_000_000;
  const exhausted = { body: {}, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 4) } };
  fx.on('GET /q', exhausted);
  const paced = transport({ now: () => now, pacing: {} });
  await paced.request({ method: 'GET', path: '/q', endpoint: 'GET /q' });
  assert.deepEqual(sleeps, []);
  await paced.request({ method: 'GET', path: '/q', endpoint: 'GET /q' });
  assert.deepEqual(sleeps, [4000]);
  sleeps = [];
  const off = transport({ now: () => now, pacing: { waitOnExhausted: false } });
  const none = transport({ now: () => now });
  for (const t of [off, none]) {
    await t.request({ method: 'GET', path: '/q', endpoint: 'GET /q' });
    await t.request({ method: 'GET', path: '/q', endpoint: 'GET /q' });
  }
  assert.deepEqual(sleeps, []);
});

test('an invalid base URL is a BadInputError naming baseUrl', () => {
  assert.throws(() => new Transport({ baseUrl: 'not a url' }), /baseUrl/);
  assert.throws(() => new Transport({ baseUrl: 'ftp://x' }), /baseUrl/);
});

test('onResponse: every attempt observed with its method, endpoint template and status (failures as network)', async () => {
  fx.on('POST /orders', { status: 503, body: { message: 'busy' } }, { status: 201, body: { ok: 1 } });
  const seen: { method: string; endpoint: string; status: string; seconds: number }[] = [];
  const t = transport({ onResponse: (r) => seen.push(r) });
  await t.request({ method: 'POST', path: '/orders', endpoint: 'POST /orders', body: { a: 1 }, idempotent: true });
  fx.on('GET /markets/0xabc/orderbook', { body: {} });
  await t.request({ method: 'GET', path: '/markets/0xabc/orderbook', endpoint: 'GET /markets/:id/orderbook' });
  assert.deepEqual(
    seen.map((r) => `${r.method} ${r.endpoint} ${r.status}`),
    ['POST /orders 503', 'POST /orders 201', 'GET /markets/:id/orderbook 200'],
  );
  for (const r of seen) assert.ok(r.seconds >= 0 && r.seconds < 60);
  const dead = transport({ baseUrl: 'http://127.0.0.1:1/v2', onResponse: (r) => seen.push(r), retry: { maxAttempts: 1 } });
  await assert.rejects(dead.request({ method: 'GET', path: '/markets/0xdef', endpoint: 'GET /markets/:id' }), NetworkError);
  assert.equal(`${seen.at(-1)!.endpoint} ${seen.at(-1)!.status}`, '/markets/:id network');
});
