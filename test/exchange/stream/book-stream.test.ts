import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBookStream, type BookStreamOptions } from '../../../src/exchange/stream/book-stream.ts';
import { httpSnapshotFetcher, type SnapshotFetcher, type SnapshotResult } from '../../../src/exchange/stream/snapshot-fetcher.ts';
import { L2Book } from '../../../src/core/l2-book.ts';
import type { BookSnapshot } from '../../../src/model/book.ts';
import type { BookEvent } from '../../../src/model/stream.ts';
import { SseFixtureServer, type FixtureBook } from './sse-fixture-server.ts';
import { EventCollector, until } from './event-collector.ts';
import { startFixtureStream } from './stream-setup.ts';
import { ManualClock } from './manual-clock.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const TS = '2026-11-21T10:00:00.000Z';

function wireBook(seq?: number): FixtureBook {
  const b: FixtureBook = {
    marketId: M,
    bids: [
      { price: 45, size: 10 },
      { price: 44, size: 5 },
    ],
    asks: [{ price: 47, size: 3 }],
    timestamp: TS,
  };
  if (seq !== undefined) b.seq = seq;
  return b;
}

function delta(seq: number, changes: { side: 'bid' | 'ask'; price: number; size: number }[]) {
  return { marketId: M, outcomeIndex: 1, seq, timestamp: TS, changes };
}

/** A fetcher that answers from a function and counts its calls. */
function fakeFetcher(answer: () => SnapshotResult | Promise<SnapshotResult>): SnapshotFetcher & { calls: (string | undefined)[] } {
  const calls: (string | undefined)[] = [];
  const f = (async (etag?: string) => {
    calls.push(etag);
    return answer();
  }) as SnapshotFetcher & { calls: (string | undefined)[] };
  f.calls = calls;
  return f;
}

function jsonBook(seq?: number, bidPrice = 460_000): BookSnapshot {
  const b: BookSnapshot = {
    marketId: M,
    outcomeIndex: 1,
    bids: [{ price: bidPrice, size: 1_000_000 }],
    asks: [{ price: 480_000, size: 2_000_000 }],
    venueTs: 0,
  };
  if (seq !== undefined) b.seq = seq;
  return b;
}

function apply(book: L2Book, e: BookEvent): void {
  if (e.type === 'snapshot') book.applySnapshot(e.book);
  else if (e.type === 'delta') {
    for (const l of e.bids) book.applyLevel('bid', l.price, l.size);
    for (const l of e.asks) book.applyLevel('ask', l.price, l.size);
  }
}

function setup(opts: Partial<BookStreamOptions> = {}, book: FixtureBook = wireBook()) {
  return startFixtureStream(book, {
    apiKey: 'ctx_pk_test_secret_key',
    fetchSnapshot: fakeFetcher(() => ({ status: 200, book: jsonBook() })),
    ...opts,
  });
}

const isSeq = (type: string, seq: number) => (e: BookEvent) => e.type === type && 'seq' in e && e.seq === seq;

test('snapshot then deltas are emitted in integer units and applied to an L2 book', async () => {
  const t = await setup();
  try {
    const c = await t.server.waitForConn(1);
    assert.equal(c.req.headers.authorization, 'Bearer ctx_pk_test_secret_key');
    assert.equal(c.req.url, `/v2/markets/${M}/orderbook?outcomeIndex=1&depth=20`);
    assert.equal(c.lastEventId, undefined);
    c.send('snapshot', { ...wireBook(1), outcomeIndex: 1 });
    c.heartbeat();
    c.send(
      'delta',
      delta(2, [
        { side: 'bid', price: 45, size: 0 },
        { side: 'ask', price: 46.5, size: 2.5 },
      ]),
    );
    c.send('trade', { marketId: M, outcomeIndex: 1, seq: 3, timestamp: TS, price: 46.5, size: 0.5, takerSide: 'buy' });
    await t.col.waitFor(isSeq('trade', 3), 'trade 3');
    const data = t.col.data();
    assert.deepEqual(
      data.map((e) => e.type),
      ['snapshot', 'delta', 'trade'],
    );
    const snap = data[0] as Extract<BookEvent, { type: 'snapshot' }>;
    assert.equal(snap.source, 'stream');
    assert.deepEqual(snap.book.bids[0], { price: 450_000, size: 10_000_000 });
    assert.equal(snap.book.venueTs, Date.parse(TS));
    const d = data[1] as Extract<BookEvent, { type: 'delta' }>;
    assert.deepEqual(d.bids, [{ price: 450_000, size: 0 }]);
    assert.deepEqual(d.asks, [{ price: 465_000, size: 2_500_000 }]);
    const tr = data[2] as Extract<BookEvent, { type: 'trade' }>;
    assert.deepEqual([tr.price, tr.size, tr.takerSide], [465_000, 500_000, 'buy']);
    const book = new L2Book();
    for (const e of data) apply(book, e);
    assert.equal(book.bestBid(), 440_000);
    assert.equal(book.bestAsk(), 465_000);
    assert.deepEqual(t.col.states(), ['connecting', 'live']);
    assert.equal(t.stream.stats.malformed, 0);
  } finally {
    await t.done();
  }
});

test('a dropped connection reconnects with Last-Event-ID and resumes without a new snapshot', async () => {
  const t = await setup();
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', wireBook(1));
    c1.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 2), 'delta 2');
    const c2 = await t.reconnect(c1, 'destroy', '2');
    c2.send('delta', delta(3, [{ side: 'bid', price: 42, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 3), 'delta 3');
    assert.deepEqual(
      t.col.data().map((e) => e.type),
      ['snapshot', 'delta', 'delta'],
    );
    assert.ok(t.col.states().includes('reconnecting'));
    assert.equal(t.col.states().at(-1), 'live');
    assert.equal(t.stream.stats.reconnects, 1);
  } finally {
    await t.done();
  }
});

test('a seq gap resyncs from the JSON snapshot and replays the buffered events (snapshot without seq)', async () => {
  const fetcher = fakeFetcher(() => ({ status: 200, book: jsonBook(undefined, 470_000) }));
  const t = await setup({ fetchSnapshot: fetcher });
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    c.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    c.send('delta', delta(5, [{ side: 'ask', price: 49, size: 1 }]));
    const resync = await t.col.waitFor((e) => e.type === 'snapshot' && e.source === 'resync', 'resync snapshot');
    assert.equal(fetcher.calls.length, 1);
    assert.equal(fetcher.calls[0], undefined, 'a resync is unconditional');
    // no seq on the JSON book: it is placed just before the event that revealed the gap
    assert.equal((resync as { seq: number }).seq, 4);
    await t.col.waitFor(isSeq('delta', 5), 'delta 5 replayed');
    c.send('delta', delta(6, [{ side: 'ask', price: 50, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 6), 'delta 6');
    const book = new L2Book();
    for (const e of t.col.data()) apply(book, e);
    assert.equal(book.bestBid(), 470_000);
    assert.equal(book.sizeAt('ask', 490_000), 1_000_000);
    assert.equal(t.stream.stats.gaps, 1);
    assert.equal(t.stream.stats.resyncs, 1);
  } finally {
    await t.done();
  }
});

test('a resync snapshot with a seq drops buffered events it already contains', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const fetcher = fakeFetcher(async () => {
    await gate;
    return { status: 200, book: jsonBook(7) };
  });
  const t = await setup({ fetchSnapshot: fetcher });
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    c.send('delta', delta(4, [{ side: 'bid', price: 43, size: 1 }]));
    c.send('delta', delta(6, [{ side: 'bid', price: 41, size: 1 }]));
    c.send('delta', delta(8, [{ side: 'bid', price: 40, size: 1 }]));
    await until(() => t.stream.stats.received === 4, 'events buffered during the resync');
    release();
    await t.col.waitFor(isSeq('delta', 8), 'delta 8');
    assert.deepEqual(
      t.col.data().map((e) => `${e.type}:${(e as { seq: number }).seq}`),
      ['snapshot:1', 'snapshot:7', 'delta:8'],
    );
    assert.equal(t.stream.stats.duplicates, 2, 'deltas 4 and 6 are already in the seq-7 snapshot');
  } finally {
    await t.done();
  }
});

test('duplicated and out-of-order events are dropped, the book stays right', async () => {
  const t = await setup();
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    c.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    c.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    c.send('delta', delta(3, [{ side: 'bid', price: 43, size: 2 }]));
    c.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }])); // late old event
    c.send('snapshot', wireBook(1)); // duplicated snapshot
    c.send('delta', delta(4, [{ side: 'ask', price: 48, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 4), 'delta 4');
    assert.deepEqual(
      t.col.data().map((e) => `${e.type}:${(e as { seq: number }).seq}`),
      ['snapshot:1', 'delta:2', 'delta:3', 'delta:4'],
    );
    assert.equal(t.stream.stats.duplicates, 3);
    assert.equal(t.stream.stats.resyncs, 0);
    const book = new L2Book();
    for (const e of t.col.data()) apply(book, e);
    assert.equal(book.sizeAt('bid', 430_000), 2_000_000);
  } finally {
    await t.done();
  }
});

test('malformed events are counted and dropped; the stream carries on', async () => {
  const t = await setup();
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    c.send('delta', '{not json', 2);
    c.send('delta', delta(2, [{ side: 'bid', price: 'abc' as unknown as number, size: 1 }]));
    c.send('delta', delta(2, [{ side: 'middle' as 'bid', price: 40, size: 1 }]));
    c.send('delta', { ...delta(2, []), marketId: '0x' + 'cd'.repeat(32) });
    c.send('delta', delta(2, [{ side: 'bid', price: 150, size: 1 }]));
    c.send('delta', delta(2, [{ side: 'ask', price: 48, size: -1 }]));
    c.send('weird', { marketId: M, seq: 2 });
    c.send('delta', delta(2, [{ side: 'ask', price: 48, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 2), 'valid delta 2');
    assert.equal(t.stream.stats.malformed, 6);
    assert.equal(t.stream.stats.gaps, 0);
    assert.deepEqual(
      t.col.data().map((e) => e.type),
      ['snapshot', 'delta'],
    );
  } finally {
    await t.done();
  }
});

test('idle stall: heartbeats keep it alive, silence marks it stale and reconnects (manual clock)', async () => {
  const clock = new ManualClock();
  const t = await setup({ clock, idleTimeoutMs: 200, backoff: { initialMs: 50, maxMs: 50, jitter: 0 } });
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', wireBook(1));
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    clock.advance(150);
    c1.heartbeat();
    const at = clock.now();
    await until(() => t.stream.stats.lastActivityTs === at, 'heartbeat bytes seen');
    clock.advance(100); // 250 ms since connect, 100 since the heartbeat
    assert.ok(!t.col.states().includes('stale'), 'a heartbeat within the idle window keeps the stream live');
    clock.advance(100); // 200 ms of silence
    assert.ok(t.col.states().includes('stale'));
    assert.equal(t.stream.stats.idleTimeouts, 1);
    await c1.whenClosed;
    assert.equal(t.server.conns.length, 1, 'no reconnect before the back-off delay');
    clock.advance(50);
    const c2 = await t.server.waitForConn(2);
    assert.equal(c2.lastEventId, '1');
    c2.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 2), 'delta after reconnect');
    assert.equal(t.col.states().at(-1), 'live');
  } finally {
    await t.done();
  }
});

test('a quiet live stream re-emits its live status on heartbeats, at most once per keepaliveStatusMs', async () => {
  const clock = new ManualClock();
  const t = await setup({ clock, idleTimeoutMs: 60_000, keepaliveStatusMs: 1000 });
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    const beat = async (): Promise<void> => {
      const before = t.stream.stats.lastActivityTs;
      clock.advance(400);
      c.heartbeat();
      await until(() => t.stream.stats.lastActivityTs > before, 'heartbeat seen');
    };
    await beat(); // 400 ms quiet: too soon
    await beat(); // 800 ms
    assert.equal(t.col.events.filter((e) => e.type === 'status' && e.reason === 'heartbeat').length, 0);
    await beat(); // 1200 ms since the snapshot: one keep-alive
    await beat(); // 400 ms since that keep-alive: none
    const keep = t.col.events.filter((e) => e.type === 'status' && e.reason === 'heartbeat');
    assert.equal(keep.length, 1);
    assert.equal((keep[0] as { state: string }).state, 'live');
  } finally {
    await t.done();
  }
});

test('a server that does not stream is polled with If-None-Match; 304 emits nothing', async () => {
  const server = new SseFixtureServer(wireBook());
  server.streaming = false;
  const baseUrl = await server.start();
  const fetchSnapshot = httpSnapshotFetcher({ baseUrl, marketId: M, outcomeIndex: 1 });
  const stream = createBookStream({ baseUrl, marketId: M, outcomeIndex: 1, fetchSnapshot, pollIntervalMs: 10, streamRetryMs: 60_000, keepaliveStatusMs: 1 });
  const col = new EventCollector(stream.events$);
  try {
    const first = await col.waitFor((e) => e.type === 'snapshot', 'first polled snapshot');
    assert.equal((first as { source: string }).source, 'poll');
    assert.deepEqual((first as { book: BookSnapshot }).book.bids[0], { price: 450_000, size: 10_000_000 });
    assert.ok(col.states().includes('polling'));
    await until(() => server.requests.filter((r) => r.status === 304).length >= 2, 'two 304 answers');
    assert.ok(server.requests.some((r) => r.headers['if-none-match'] === '"v1"'));
    assert.equal(col.data().length, 1, 'an unchanged book emits no book');
    assert.ok(
      col.events.some((e) => e.type === 'status' && e.state === 'polling' && e.reason === 'unchanged'),
      'but 304s keep the polling status alive',
    );
    // the server logs its second 304 before the client has read it: wait for the client's own count
    await until(() => stream.stats.notModified >= 2, 'two 304 answers handled by the client');
    server.setBook({ ...wireBook(), bids: [{ price: 46, size: 1 }] }, '"v2"');
    const second = await col.waitFor((e) => e.type === 'snapshot' && e.book.bids[0]?.price === 460_000, 'changed book');
    assert.equal((second as { source: string }).source, 'poll');
    // the stream was asked only once: a JSON answer is not retried until streamRetryMs
    assert.equal(server.requests.filter((r) => r.sse).length, 1);
  } finally {
    col.stop();
    await server.close();
  }
});

test('repeated stream failures fall back to polling, and a later stream retry returns to live', async () => {
  let first = true;
  const answer = fakeFetcher(() => {
    if (first) {
      first = false;
      return { status: 200, book: jsonBook(), etag: '"e1"' };
    }
    return { status: 304 };
  });
  const t = await setup({ fetchSnapshot: answer, maxStreamFailures: 3, pollIntervalMs: 10, streamRetryMs: 80 });
  t.server.streamStatuses = [503, 503, 503, 503];
  try {
    await t.col.waitFor((e) => e.type === 'status' && e.state === 'polling', 'polling');
    await t.col.waitFor((e) => e.type === 'snapshot' && e.source === 'poll', 'polled snapshot');
    await until(() => answer.calls.includes('"e1"'), 'a conditional poll');
    // the 4th SSE request (first retry while polling) also fails; the 5th streams
    const c = await t.server.waitForConn(1);
    assert.equal(c.lastEventId, undefined, 'no resume after polling a book without a seq');
    c.send('snapshot', wireBook(9));
    await t.col.waitFor((e) => e.type === 'status' && e.state === 'live', 'live again');
    const polls = answer.calls.length;
    c.send('delta', delta(10, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 10), 'delta after returning to the stream');
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(answer.calls.length <= polls + 1, 'polling stopped once the stream is live');
    assert.equal(t.server.requests.filter((r) => r.sse && r.status === 503).length, 4);
  } finally {
    await t.done();
  }
});

test('a delta before any snapshot triggers a resync', async () => {
  const fetcher = fakeFetcher(() => ({ status: 200, book: jsonBook() }));
  const t = await setup({ fetchSnapshot: fetcher });
  try {
    const c = await t.server.waitForConn(1);
    c.send('delta', delta(5, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 5), 'delta 5 after resync');
    assert.deepEqual(
      t.col.data().map((e) => `${e.type}:${(e as { seq: number }).seq}`),
      ['snapshot:4', 'delta:5'],
    );
    assert.equal(fetcher.calls.length, 1);
  } finally {
    await t.done();
  }
});

test('unsubscribe closes the connection and stops every timer', async () => {
  const clock = new ManualClock();
  const t = await setup({ clock, idleTimeoutMs: 1000 });
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    assert.ok(clock.pending() > 0, 'the idle timer is armed');
    t.col.stop();
    await c.whenClosed;
    assert.equal(clock.pending(), 0, 'no timer left');
    assert.equal(t.stream.stats.state, 'closed');
    const n = t.server.requests.length;
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(t.server.requests.length, n, 'nothing reconnects after unsubscribe');
  } finally {
    await t.done();
  }
});

test('bad options are rejected with the field named', () => {
  const fetchSnapshot = fakeFetcher(() => ({ status: 304 }));
  assert.throws(() => createBookStream({ baseUrl: 'ftp://x', marketId: M, outcomeIndex: 1, fetchSnapshot }), /baseUrl/);
  assert.throws(() => createBookStream({ baseUrl: 'http://x', marketId: 'bad id!', outcomeIndex: 1, fetchSnapshot }), /marketId/);
  assert.throws(() => createBookStream({ baseUrl: 'http://x', marketId: M, outcomeIndex: 2 as 1, fetchSnapshot }), /outcomeIndex/);
  assert.throws(() => createBookStream({ baseUrl: 'http://x', marketId: M, outcomeIndex: 1, depth: 500, fetchSnapshot }), /depth/);
});

test('event: status becomes a market-status event once per change, in sequence; an unknown status is a counted drop', async () => {
  const dropped: string[] = [];
  const t = await setup({ onMalformed: (e) => dropped.push(e.message) });
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', wireBook(1));
    c1.send('status', { marketId: M, outcomeIndex: 1, seq: 2, timestamp: TS, status: 'closed', resolutionStatus: 'pending', outcome: null, payoutPcts: null });
    c1.send('status', { marketId: M, outcomeIndex: 1, seq: 3, timestamp: TS, status: 'halted-ish' });
    c1.send('delta', delta(3, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 3), 'delta 3 (the unknown status took no seq)');
    assert.equal(t.stream.stats.malformed, 1);
    assert.equal(dropped.length, 1, "handed to onMalformed (the bot's bookmaker_book_events_dropped_total)");
    assert.match(dropped[0]!, /status/);
    assert.equal(t.stream.stats.gaps, 0, 'the status took its seq: no resync after it');
    // the resolution, then the server ends the stream; a reconnect gets snapshot + the same status again
    c1.send('status', { marketId: M, outcomeIndex: 1, seq: 4, timestamp: TS, status: 'resolved', outcome: 1, payoutPcts: [0, 100] });
    c1.end();
    const c2 = await t.server.waitForConn(2);
    c2.send('snapshot', wireBook(4));
    c2.send('status', { marketId: M, outcomeIndex: 1, seq: 4, timestamp: TS, status: 'resolved', outcome: 1, payoutPcts: [0, 100] });
    c2.send('delta', delta(5, [{ side: 'bid', price: 42, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 5), 'delta 5');
    const told = t.col.data().filter((e) => e.type === 'market-status');
    assert.deepEqual(
      told.map((e) => (e.type === 'market-status' ? [e.seq, e.status, e.payoutYes, e.venueTs] : [])),
      [
        [2, 'closed', null, Date.parse(TS)],
        [4, 'resolved', 1_000_000, Date.parse(TS)],
      ],
    );
    assert.equal(t.stream.stats.marketStatuses, 2);
  } finally {
    await t.done();
  }
});

test('a redirect is followed to the stream (headers and all); a redirect loop is a failed connection, retried', async () => {
  const { createServer } = await import('node:http');
  const fixture = new SseFixtureServer(wireBook());
  const target = await fixture.start();
  let hops = 0;
  let loop = false;
  const front = createServer((req, res) => {
    hops++;
    // moved: once to the fixture; in a loop, to itself for ever
    res.writeHead(307, { location: loop ? (req.url ?? '/') : `${target.replace(/\/v2$/, '')}${req.url}` });
    res.end();
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const port = (front.address() as { port: number }).port;
  const stream = createBookStream({
    baseUrl: `http://127.0.0.1:${port}/v2`,
    marketId: M,
    outcomeIndex: 1,
    apiKey: 'ctx_pk_test_secret_key',
    fetchSnapshot: fakeFetcher(() => ({ status: 200, book: jsonBook() })),
    idleTimeoutMs: 60_000,
    backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
    maxStreamFailures: 1_000,
  });
  const col = new EventCollector(stream.events$);
  try {
    const c = await fixture.waitForConn(1);
    assert.equal(c.req.headers.authorization, 'Bearer ctx_pk_test_secret_key');
    assert.equal(c.req.headers.accept, 'text/event-stream');
    c.send('snapshot', { ...wireBook(1), outcomeIndex: 1 });
    await col.waitFor(isSeq('snapshot', 1), 'snapshot 1');
    assert.equal(hops, 1);
    loop = true;
    c.destroy();
    await until(() => stream.stats.reconnects >= 3, 'reconnects after redirect loops');
    // 1 + 6 requests per looping connection (the first and 5 redirects followed)
    assert.ok(hops >= 1 + 2 * 6, `hops ${hops}`);
    assert.equal(stream.stats.malformed, 0);
  } finally {
    col.stop();
    await fixture.close();
    await new Promise((r) => front.close(r));
  }
});

/**
 * A clock whose timers can fire late, as after a stalled event loop: `stall(ms)` moves time, then runs
 * the timers that were due, late (not the ones they set: those wait for the next turn); `advance(ms)`
 * runs them on time, as ManualClock does.
 */
class StalledClock extends ManualClock {
  stall(ms: number): void {
    const self = this as unknown as { timers: { at: number; fn: () => void }[] };
    const end = this.now() + ms;
    // what is due by the end of the stall runs after it, with the clock there
    const held = self.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at);
    self.timers = self.timers.filter((x) => x.at > end);
    this.advance(ms);
    for (const x of held) x.fn();
  }
}

test('an idle check late after a stalled loop waits one turn for the bytes that came meanwhile; a silent stream still goes stale', async () => {
  const clock = new StalledClock();
  const t = await setup({ clock, idleTimeoutMs: 30_000, backoff: { initialMs: 50, maxMs: 50, jitter: 0 } });
  try {
    const c1 = await t.server.waitForConn(1);
    c1.send('snapshot', wireBook(1));
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    // the loop stalls 35 s: the idle check runs 5 s late, before the turn's reads
    clock.stall(35_000);
    assert.ok(!t.col.states().includes('stale'), 'not judged before the bytes of the stall are read');
    assert.equal(t.stream.stats.idleTimeouts, 0);
    // the turn's reads: the heartbeat that arrived during the stall
    c1.heartbeat();
    const at = clock.now();
    await until(() => t.stream.stats.lastActivityTs === at, 'heartbeat bytes seen');
    clock.advance(1);
    assert.ok(!t.col.states().includes('stale'), 'the stream was alive all along');
    assert.equal(t.server.conns.length, 1, 'no reconnect');
    // a stall with nothing behind it: stale one turn later
    clock.stall(40_000);
    assert.ok(!t.col.states().includes('stale'));
    clock.advance(1);
    assert.ok(t.col.states().includes('stale'), 'silent after the stall: stale');
    assert.equal(t.stream.stats.idleTimeouts, 1);
    // on time, the check judges at once, as before
    await c1.whenClosed;
    clock.advance(50);
    const c2 = await t.server.waitForConn(2);
    c2.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 2), 'delta after reconnect');
    clock.advance(30_000);
    assert.equal(t.stream.stats.idleTimeouts, 2, 'an on-time check of a silent stream');
  } finally {
    await t.done();
  }
});

test("a heartbeat's venue time reaches onHeartbeat in stream order, only while the stream is live and in sequence", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const fetcher = fakeFetcher(async () => {
    await gate;
    return { status: 200, book: jsonBook(7) };
  });
  /** each heartbeat's time, and the data events emitted before it */
  const beats: { ts: number; after: string[] }[] = [];
  const t = await setup({
    fetchSnapshot: fetcher,
    onHeartbeat: (ts) => beats.push({ ts, after: t.col.data().map((e) => `${e.type}:${(e as { seq: number }).seq}`) }),
  });
  try {
    const c = await t.server.waitForConn(1);
    c.heartbeat(1_000); // before the connection's snapshot: the book is not there yet
    c.send('snapshot', wireBook(1));
    c.send('delta', delta(2, [{ side: 'bid', price: 43, size: 1 }]));
    c.heartbeat(1_800_000_000_002);
    c.comment(' keep-alive'); // a comment without a time
    c.heartbeat(-5 as number);
    c.comment(' heartbeat 12x');
    c.send('delta', delta(3, [{ side: 'bid', price: 42, size: 1 }]));
    await t.col.waitFor(isSeq('delta', 3), 'delta 3');
    assert.deepEqual(beats, [{ ts: 1_800_000_000_002, after: ['snapshot:1', 'delta:2'] }], 'after the events sent before it, before the ones after it');
    // a gap: the events after it wait for the resync; a heartbeat meanwhile says nothing of them
    c.send('delta', delta(6, [{ side: 'bid', price: 41, size: 1 }]));
    await until(() => t.stream.stats.received === 4, 'the event after the gap buffered');
    c.heartbeat(1_800_000_000_009);
    c.send('delta', delta(8, [{ side: 'bid', price: 40, size: 1 }]));
    await until(() => t.stream.stats.received === 5, 'delta 8 buffered');
    assert.equal(beats.length, 1, 'no heartbeat passed on during the resync');
    release();
    await t.col.waitFor(isSeq('delta', 8), 'delta 8 replayed');
    c.heartbeat(1_800_000_000_020);
    await until(() => beats.length === 2, 'the next heartbeat after the resync');
    assert.deepEqual(beats[1], { ts: 1_800_000_000_020, after: ['snapshot:1', 'delta:2', 'delta:3', 'snapshot:7', 'delta:8'] });
    assert.equal(t.stream.stats.heartbeats, 2);
  } finally {
    await t.done();
  }
});

test('coalescing: the consecutive deltas of one read go out as one (the later size of a level wins), a trade or heartbeat between them in its place; off, one event per delta', async () => {
  const beats: string[] = [];
  const t = await setup({ coalesceDeltas: true, onHeartbeat: (ts) => beats.push(`beat ${ts} after ${t.col.data().length} events`) });
  const trade = (seq: number) => ({ marketId: M, outcomeIndex: 1, seq, timestamp: TS, price: 45, size: 1, takerSide: 'sell' });
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    // a backlog read at once: four deltas, a trade, two deltas, then a heartbeat
    c.sendAll(
      [
        ['delta', delta(2, [{ side: 'bid', price: 43, size: 1 }])],
        [
          'delta',
          delta(3, [
            { side: 'bid', price: 43, size: 2 },
            { side: 'ask', price: 48, size: 4 },
          ]),
        ],
        ['delta', delta(4, [{ side: 'bid', price: 45, size: 0 }])],
        ['delta', delta(5, [{ side: 'ask', price: 48, size: 0 }])],
        ['trade', trade(6)],
        ['delta', delta(7, [{ side: 'bid', price: 42, size: 3 }])],
        ['delta', delta(8, [{ side: 'bid', price: 42, size: 5 }])],
      ],
      ' heartbeat 1800000000000',
    );
    await t.col.waitFor(isSeq('delta', 8), 'the second run');
    const out = t.col.data().slice(1);
    assert.deepEqual(
      out.map((e) => `${e.type}:${(e as { seq: number }).seq}:${(e as { merged?: number }).merged ?? 1}`),
      ['delta:5:4', 'trade:6:1', 'delta:8:2'],
      'old code: seven events, and a tick on the oldest book first',
    );
    const first = out[0] as Extract<BookEvent, { type: 'delta' }>;
    assert.deepEqual(first.bids, [
      { price: 430_000, size: 2_000_000 },
      { price: 450_000, size: 0 },
    ]);
    assert.deepEqual(first.asks, [{ price: 480_000, size: 0 }]);
    assert.deepEqual(beats, ['beat 1800000000000 after 4 events'], 'the heartbeat after the deltas before it');
    // applied once, the book is the one the seven deltas make
    const merged = new L2Book();
    for (const e of t.col.data()) apply(merged, e);
    const one = new L2Book();
    apply(one, t.col.data()[0]!);
    for (const d of [
      [{ side: 'bid', price: 430_000, size: 1_000_000 }],
      [
        { side: 'bid', price: 430_000, size: 2_000_000 },
        { side: 'ask', price: 480_000, size: 4_000_000 },
      ],
      [{ side: 'bid', price: 450_000, size: 0 }],
      [{ side: 'ask', price: 480_000, size: 0 }],
      [{ side: 'bid', price: 420_000, size: 3_000_000 }],
      [{ side: 'bid', price: 420_000, size: 5_000_000 }],
    ] as const)
      for (const l of d) one.applyLevel(l.side, l.price, l.size);
    assert.deepEqual(merged.levels('bid', 10), one.levels('bid', 10));
    assert.deepEqual(merged.levels('ask', 10), one.levels('ask', 10));
    assert.equal(t.stream.stats.received, 8, 'every wire event counted as received');
  } finally {
    await t.done();
  }
  const u = await setup();
  try {
    const c = await u.server.waitForConn(1);
    c.send('snapshot', wireBook(1));
    c.sendAll([
      ['delta', delta(2, [{ side: 'bid', price: 43, size: 1 }])],
      ['delta', delta(3, [{ side: 'bid', price: 43, size: 2 }])],
    ]);
    await u.col.waitFor(isSeq('delta', 3), 'delta 3');
    assert.equal(u.col.data().length, 3, 'not coalescing (the recorder, the book command): one event per delta');
  } finally {
    await u.done();
  }
});
