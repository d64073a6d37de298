/**
 * Bounded resources: a stalled body gets 408 and its connection closed; bodies held at once are
 * capped (a body that does not fit the budget gets 503 at once, memory stays bounded); connections
 * past the cap are closed; one flooding unauthenticated client does not starve another; a keyed
 * client is served throughout. No timing assertions: the bench (sim-resources) measures RSS and p99.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { call, harness, onHarness } from './helpers.ts';

function rawRequest(port: number, head: string): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let got = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d: string) => (got += d));
    socket.on('close', () => resolve(got));
    socket.on('error', () => resolve(got));
  });
  socket.write(head);
  return { socket, answer };
}

const portOf = (base: string) => Number(new URL(base).port);

type Held = { socket: Socket; answer: Promise<string> };

/** A harness with `opts` and `n` uploads of `head(h)` sent and left stalled; runs `fn`, then drops the uploads and closes. */
async function withStalledUploads(
  opts: Parameters<typeof harness>[0],
  n: number,
  head: (h: Awaited<ReturnType<typeof harness>>) => string,
  fn: (h: Awaited<ReturnType<typeof harness>>, held: Held[], port: number) => Promise<void>,
): Promise<void> {
  const h = await harness(opts);
  const port = portOf(h.base);
  const held: Held[] = [];
  try {
    for (let i = 0; i < n; i++) held.push(rawRequest(port, head(h)));
    await fn(h, held, port);
  } finally {
    for (const x of held) x.socket.destroy();
    await h.close();
  }
}

/**
 * The answers to the uploads after the first `fit`, or null if they are not all answered within 20 s. The
 * timer is cleared once they are: left running, it kept this file's process up for 20 s after its last test.
 */
async function answersAfter(held: Held[], fit: number): Promise<string[] | null> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([Promise.all(held.slice(fit).map((x) => x.answer)), new Promise<null>((r) => (t = setTimeout(() => r(null), 20_000)))]);
  } finally {
    clearTimeout(t);
  }
}

test('a stalled body gets 408 REQUEST_TIMEOUT and the connection is closed', async () => {
  await onHarness(
    async (h) => {
      const { answer } = rawRequest(
        portOf(h.base),
        'POST /v2/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-key\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"half":',
      );
      const text = await answer; // resolves on close: the server closed it
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.match(text, /"code":"REQUEST_TIMEOUT"/);
    },
    { bodyTimeoutMs: 300 },
  );
});

test('bodies in flight are capped: stalled uploads past the budget get 503 at once; a keyed client is served meanwhile', async () => {
  // 40 unauthenticated uploads (a public POST that reads its body) declaring 400 kB each, sending a
  // few bytes and stalling: 16 MB if all were held; 2 fit the anonymous half of the 2 MB budget
  await withStalledUploads(
    { bodyTimeoutMs: 30_000, bodyBytesInFlight: 2_000_000, bodyLimitBytes: 500_000 },
    40,
    (h) => `POST /v2/markets/${h.marketId}/simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400000\r\n\r\n{"q":`,
    async (h, held, port) => {
      // the ones that did not fit are answered 503 (and closed) without waiting for their bodies
      const refused = await answersAfter(held, 2);
      assert.ok(refused, 'the uploads beyond the budget were answered');
      for (const a of refused!) assert.match(a, /^HTTP\/1\.1 503 /);
      // an unauthenticated upload to a keyed route is answered 401 and closed without its body being read
      const noKey = rawRequest(port, `POST /v2/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400000\r\n\r\n{"q":`);
      assert.match(await noKey.answer, /^HTTP\/1\.1 401 /);
      // keyed client: served while uploads stall
      for (let i = 0; i < 5; i++) assert.equal((await call(h.base, 'GET', '/orders', undefined, 'alice-key')).status, 200);
      const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 1_000_000 });
      assert.equal((await call(h.base, 'POST', '/orders', body, 'alice-key')).status, 201);
    },
  );
});

test('keyed stalled uploads beyond the body budget get 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
  await withStalledUploads(
    { bodyTimeoutMs: 30_000, bodyBytesInFlight: 1_000_000, bodyLimitBytes: 500_000 },
    6,
    () => `POST /v2/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bob-key\r\nContent-Type: application/json\r\nContent-Length: 400000\r\n\r\n{"q":`,
    async (h, held) => {
      // two fit (800 kB); the other four are refused at once
      const answers = await answersAfter(held, 2);
      assert.ok(answers, 'the uploads beyond the budget were answered');
      for (const a of answers!) {
        assert.match(a, /^HTTP\/1\.1 503 /);
        assert.match(a, /Retry-After: 1/i);
      }
      assert.equal((await call(h.base, 'GET', '/orders', undefined, 'alice-key')).status, 200);
    },
  );
});

test('connections past the cap are closed; the others are served', async () => {
  const h = await harness({ maxConnections: 20 });
  const port = portOf(h.base);
  const sockets: Socket[] = [];
  try {
    const closed: Promise<boolean>[] = [];
    // the closes are counted as they come, not after a fixed wait (a loaded machine accepts late); 10 s at most
    let dropped = 0;
    let tenClosed: () => void = () => {};
    const waitForTen = new Promise<void>((r) => (tenClosed = r));
    for (let i = 0; i < 30; i++) {
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      closed.push(
        new Promise((r) =>
          s.on('close', () => {
            if (++dropped >= 10) tenClosed();
            r(true);
          }),
        ),
      );
    }
    let guard: NodeJS.Timeout | undefined;
    await Promise.race([waitForTen, new Promise((r) => (guard = setTimeout(r, 10_000)))]);
    clearTimeout(guard);
    assert.ok(dropped >= 10, `at least the 10 over the cap are closed within 10 s (closed: ${dropped})`);
    for (const s of sockets) s.destroy();
    await Promise.all(closed);
    assert.equal((await call(h.base, 'GET', '/orders', undefined, 'alice-key')).status, 200);
  } finally {
    for (const s of sockets) s.destroy();
    await h.close();
  }
});

test('one flooding unauthenticated client does not starve another unauthenticated client', async () => {
  const h = await harness({ rateLimit: { capacity: 5, refillPerSecond: 0.001 } });
  const port = portOf(h.base);
  try {
    // the flooder: one keep-alive connection, 12 requests
    const flood = rawRequest(port, Array.from({ length: 12 }, () => 'GET /v2/markets HTTP/1.1\r\nHost: x\r\n\r\n').join(''));
    await new Promise((r) => setTimeout(r, 500));
    flood.socket.end();
    const text = await flood.answer;
    assert.ok((text.match(/HTTP\/1\.1 429/g) ?? []).length >= 5, 'the flooder is limited');
    // another client (its own connection) still gets its answers
    const other = await fetch(`${h.base}/markets`, { headers: { connection: 'close' } });
    assert.equal(other.status, 200);
  } finally {
    await h.close();
  }
});
