/** Order book over HTTP: both outcome views, ETag/304, and the event stream (snapshot, delta, trade, resume). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, harness, type Harness, placeBid, readSse } from './helpers.ts';

let h: Harness;
before(async () => {
  h = await harness({ heartbeatMs: 100 });
});
after(async () => {
  await h.close();
});

const A = 'alice-key';
const B = 'bob-key';

test('JSON book in cents and shares, either outcome view, depth and bad parameters', async () => {
  await call(h.base, 'POST', '/orders', h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 420_000, size: 12_500_000 }), A);
  await call(h.base, 'POST', '/orders', h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 400_000, size: 3_000_000 }), A); // YES ask 60
  const yes = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`);
  assert.equal(yes.status, 200);
  assert.deepEqual(yes.body.bids, [{ price: 42, size: 12.5 }]);
  assert.deepEqual(yes.body.asks, [{ price: 60, size: 3 }]);
  const no = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook`); // default outcomeIndex 0
  assert.deepEqual(no.body.bids, [{ price: 40, size: 3 }]);
  assert.deepEqual(no.body.asks, [{ price: 58, size: 12.5 }]);
  const slug = h.ex.state.services.findMarket(h.marketId)!.slug;
  assert.equal((await call(h.base, 'GET', `/markets/${slug}/orderbook`)).status, 200);
  assert.equal((await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?depth=0`)).body.field, 'depth');
  assert.equal((await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?depth=101`)).status, 400);
  assert.equal((await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=2`)).body.field, 'outcomeIndex');
  assert.equal((await call(h.base, 'GET', `/markets/0x${'00'.repeat(32)}/orderbook`)).status, 404);
});

test('ETag + If-None-Match → 304 until the book changes', async () => {
  const r1 = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`);
  const etag = r1.headers.get('etag');
  assert.ok(etag);
  const r2 = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`, undefined, undefined, { 'if-none-match': etag! });
  assert.equal(r2.status, 304);
  await placeBid(h, h.alice, 410_000);
  const r3 = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`, undefined, undefined, { 'if-none-match': etag! });
  assert.equal(r3.status, 200);
  assert.notEqual(r3.headers.get('etag'), etag);
});

test('stream: snapshot, then a delta with seq+1 and a trade, ids equal seq, heartbeats', async () => {
  const url = `${h.base}/markets/${h.marketId}/orderbook?outcomeIndex=1`;
  let posted = false;
  const got = await readSse(url, {}, (frames, comments) => {
    if (frames.length >= 1 && !posted) {
      posted = true;
      // a crossing taker: the book changes (delta) and trades (trade)
      void call(h.base, 'POST', '/orders', h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 590_000, size: 2_000_000 }), B);
    }
    return frames.some((f) => f.event === 'trade') && frames.some((f) => f.event === 'delta') && comments.length > 0;
  });
  const [snap, ...rest] = got.frames;
  assert.equal(snap!.event, 'snapshot');
  assert.ok(Array.isArray(snap!.data.bids) && Array.isArray(snap!.data.asks));
  assert.equal(snap!.id, String(snap!.data.seq));
  let seq = snap!.data.seq as number;
  for (const f of rest) {
    assert.equal(f.data.seq, seq + 1, 'seq increases by one per event');
    assert.equal(f.id, String(f.data.seq));
    seq = f.data.seq;
  }
  const trade = rest.find((f) => f.event === 'trade')!;
  assert.equal(trade.data.price, 42); // the YES bid at 42 was hit by a NO buyer at 58
  assert.equal(trade.data.takerSide, 'sell');
  assert.equal(trade.data.size, 2);
  const delta = rest.find((f) => f.event === 'delta')!;
  assert.ok(delta.data.changes.some((c: any) => c.side === 'bid' && c.price === 42 && c.size === 10.5));
  assert.ok(got.comments.some((c) => c.startsWith(': heartbeat')));
});

test('stream resume: Last-Event-ID replays exactly the missed events; an unknown id gets a fresh snapshot', async () => {
  const url = `${h.base}/markets/${h.marketId}/orderbook?outcomeIndex=0`;
  const first = await readSse(url, {}, (f) => f.length >= 1);
  const lastSeq = first.frames[0]!.data.seq as number;
  // two book changes while disconnected
  await placeBid(h, h.alice, 300_000);
  await placeBid(h, h.alice, 310_000);
  await new Promise((r) => setImmediate(r)); // deltas are flushed per turn of the event loop
  const resumed = await readSse(url, { 'last-event-id': String(lastSeq) }, (f) => f.length >= 2);
  assert.deepEqual(
    resumed.frames.map((f) => [f.event, f.data.seq]),
    [
      ['delta', lastSeq + 1],
      ['delta', lastSeq + 2],
    ],
  );
  // NO view of a YES bid at 30¢ is an ask at 70¢
  assert.deepEqual(resumed.frames[0]!.data.changes, [{ side: 'ask', price: 70, size: 1 }]);
  const fresh = await readSse(url, { 'last-event-id': '12' }, (f) => f.length >= 1);
  assert.equal(fresh.frames[0]!.event, 'snapshot');
  assert.equal(fresh.frames[0]!.data.seq, lastSeq + 2);
  assert.ok(fresh.frames[0]!.data.asks.some((l: any) => l.price === 70));
});
