/** Recovery paths of the book stream: clean server close, server restart, failed resync, the venue client as fetcher. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBookStream, type BookStreamOptions } from '../../../src/exchange/stream/book-stream.ts';
import { venueSnapshotFetcher } from '../../../src/exchange/stream/venue-snapshot-fetcher.ts';
import { createVenueClient } from '../../../src/exchange/venue-client.ts';
import type { BookEvent } from '../../../src/model/stream.ts';
import { SseFixtureServer, type FixtureBook } from './sse-fixture-server.ts';
import { EventCollector } from './event-collector.ts';
import { startFixtureStream } from './stream-setup.ts';

const M = ('0x' + '5a'.repeat(32)) as `0x${string}`;
const TS = '2026-11-21T10:00:00.000Z';
const BOOK: FixtureBook = { marketId: M, bids: [{ price: 40, size: 1 }], asks: [{ price: 60, size: 1 }], timestamp: TS };
const delta = (seq: number, price = 41) => ({ marketId: M, seq, timestamp: TS, changes: [{ side: 'bid', price, size: 1 }] });
const isSeq = (type: string, seq: number) => (e: BookEvent) => e.type === type && 'seq' in e && e.seq === seq;
const label = (e: BookEvent) => (e.type === 'status' ? `status:${e.state}` : `${e.type}:${e.seq}`);

function setup(opts: Partial<BookStreamOptions>) {
  return startFixtureStream(BOOK, { fetchSnapshot: async () => ({ status: 304 }), ...opts });
}

test('a clean end of the stream is reported as closed, then resumed with Last-Event-ID', async () => {
  const t = await setup({});
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', { ...BOOK, seq: 1 });
    c1.send('delta', delta(2));
    await t.col.waitFor(isSeq('delta', 2), 'delta 2');
    const c2 = await t.reconnect(c1, 'end', '2');
    c2.send('delta', delta(3));
    await t.col.waitFor(isSeq('delta', 3), 'delta 3');
    const states = t.col.states();
    assert.deepEqual(states.slice(0, 4), ['connecting', 'live', 'closed', 'reconnecting']);
    assert.equal(states.at(-1), 'live');
  } finally {
    await t.done();
  }
});

test('a resumed connection on a quiet market is live on its first heartbeat', async () => {
  const t = await setup({});
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', { ...BOOK, seq: 1 });
    await t.col.waitFor(isSeq('snapshot', 1), 'snapshot');
    const c2 = await t.reconnect(c1, 'destroy', '1');
    const from = t.col.events.length;
    c2.heartbeat(); // nothing was missed, so the server has no event to replay
    await t.col.waitFor((e) => e.type === 'status' && e.state === 'live', 'live after reconnect', from);
    assert.equal(t.col.data().length, 1);
  } finally {
    await t.done();
  }
});

test('after a server restart a fresh snapshot with a lower seq becomes the new baseline', async () => {
  const t = await setup({});
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', { ...BOOK, seq: 500 });
    await t.col.waitFor(isSeq('snapshot', 500), 'snapshot 500');
    const c2 = await t.reconnect(c1, 'destroy', '500');
    // the restarted server no longer knows seq 500: it starts over with a snapshot
    c2.send('snapshot', { ...BOOK, seq: 1, bids: [{ price: 42, size: 2 }] });
    c2.send('delta', delta(2, 43));
    await t.col.waitFor(isSeq('delta', 2), 'delta 2 of the new epoch');
    assert.deepEqual(t.col.data().map(label), ['snapshot:500', 'snapshot:1', 'delta:2']);
    assert.equal(t.stream.stats.duplicates, 0);
  } finally {
    await t.done();
  }
});

test('a failed resync reconnects without Last-Event-ID to get a fresh stream snapshot', async () => {
  let calls = 0;
  const t = await setup({
    fetchSnapshot: async () => {
      calls++;
      throw new Error('venue down');
    },
  });
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', { ...BOOK, seq: 1 });
    c1.send('delta', delta(3));
    const c2 = await t.server.waitForConn(2);
    assert.equal(calls, 1);
    assert.equal(c2.lastEventId, undefined, 'the book is not at any known seq any more');
    c2.send('snapshot', { ...BOOK, seq: 9 });
    await t.col.waitFor(isSeq('snapshot', 9), 'fresh snapshot');
    assert.equal(t.stream.stats.resyncErrors, 1);
    assert.deepEqual(t.col.data().map(label), ['snapshot:1', 'snapshot:9']);
  } finally {
    await t.done();
  }
});

test('the venue client works as the resync fetcher (real HTTP, cents → integer units)', async () => {
  const server = new SseFixtureServer({ ...BOOK, bids: [{ price: 39, size: 4 }] });
  const baseUrl = await server.start();
  const client = createVenueClient({ baseUrl });
  const stream = createBookStream({
    baseUrl,
    marketId: M,
    outcomeIndex: 1,
    fetchSnapshot: venueSnapshotFetcher(client, M, 1, 20),
    idleTimeoutMs: 60_000,
  });
  const col = new EventCollector(stream.events$);
  try {
    const c = await server.waitForConn(1);
    c.send('snapshot', { ...BOOK, seq: 1 });
    c.send('delta', delta(4));
    const resync = await col.waitFor((e) => e.type === 'snapshot' && e.source === 'resync', 'resync');
    assert.deepEqual((resync as Extract<BookEvent, { type: 'snapshot' }>).book.bids, [{ price: 390_000, size: 4_000_000 }]);
    await col.waitFor(isSeq('delta', 4), 'buffered delta replayed');
    const json = server.requests.find((r) => !r.sse);
    assert.equal(json?.url, `/v2/markets/${M}/orderbook?depth=20&outcomeIndex=1`);
  } finally {
    col.stop();
    await client.close();
    await server.close();
  }
});
