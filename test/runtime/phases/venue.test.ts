/**
 * The bot's venue client writes every request it sends at once: the order calls in flight (at most
 * MAX_ORDER_CALLS_IN_FLIGHT) and the polls beside them each have a connection, so none waits in the
 * HTTP client's queue with its timeout running (after a stall such requests timed out unsent).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { MAX_ORDER_CALLS_IN_FLIGHT } from '../../../src/runtime/live-venue.ts';
import { venuePhase } from '../../../src/runtime/phases/venue.ts';

const M = `0x${'ab'.repeat(32)}`;

test('the venue client holds a connection for every order call in flight and the polls: all are written at once', async () => {
  const n = MAX_ORDER_CALLS_IN_FLIGHT + 4;
  const held: http.ServerResponse[] = [];
  // answers nothing until n requests are in at once (old code: 8 connections, the rest queued unsent)
  const srv = http.createServer((_req, res) => {
    held.push(res);
    if (held.length < n) return;
    for (const r of held) {
      r.setHeader('content-type', 'application/json');
      r.end(JSON.stringify({ marketId: M, bids: [], asks: [], timestamp: new Date(0).toISOString() }));
    }
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const closers: (() => unknown)[] = [];
  const { client } = venuePhase({
    v: { baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v2`, chain: 'testnet' },
    metrics: { apiLatency: { observe: () => undefined } },
    o: {},
    life: { add: (f: () => unknown) => closers.push(f) },
  } as never);
  try {
    const answers = await Promise.allSettled(Array.from({ length: n }, () => client.markets.orderbook(M)));
    const failed = answers.filter((a) => a.status === 'rejected');
    assert.equal(
      failed.length,
      0,
      `all answered (old code: ${n - 8} timed out waiting for a connection): ${failed.map((f) => String((f as PromiseRejectedResult).reason)).slice(0, 2)}`,
    );
    assert.equal(held.length, n);
  } finally {
    for (const f of closers) await f();
    srv.closeAllConnections();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
