/** Unit tests of the local exchange's pure parts: router, stream ring buffer and diffs, rate limiter, cursors, book views. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, json } from '../../src/sim/router.ts';
import { BookStreamHub, diffBooks } from '../../src/sim/book-stream.ts';
import { FaultInjector } from '../../src/sim/faults.ts';
import { RateLimiter } from '../../src/sim/rate-limiter.ts';
import { decodeCursor, encodeCursor } from '../../src/sim/cursor.ts';
import { bookEtag, etagMatches, outcomeView } from '../../src/sim/book-view.ts';
import { walkBook } from '../../src/sim/book-walk.ts';
import { HttpError } from '../../src/sim/http-errors.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { Writable } from 'node:stream';

test('router: static segments beat parameters, params are decoded, 404 vs 405', () => {
  const r = new Router();
  const h = () => json(200, {});
  r.add({ method: 'GET', path: '/orders/:id', auth: true, handler: h });
  r.add({ method: 'GET', path: '/orders/recent', auth: true, handler: h });
  r.add({ method: 'POST', path: '/orders', auth: true, handler: h });
  const a = r.lookup('GET', '/orders/recent');
  assert.ok(a.ok && a.match.route.path === '/orders/recent');
  const b = r.lookup('GET', '/orders/a%20b');
  assert.ok(b.ok && b.match.params.id === 'a b');
  const c = r.lookup('GET', '/orders');
  assert.ok(!c.ok && c.status === 405 && c.allowed.includes('POST'));
  const d = r.lookup('GET', '/nothing');
  assert.ok(!d.ok && d.status === 404);
  assert.ok(!r.lookup('GET', '/orders/%E0%A4%A').ok, 'a malformed escape does not match');
  assert.throws(() => r.add({ method: 'GET', path: '/orders/:id', auth: false, handler: h }), /twice/);
});

test('diffBooks: changed, added and removed levels with absolute sizes', () => {
  const before = {
    bids: [
      { price: 400_000, size: 5 },
      { price: 390_000, size: 2 },
    ],
    asks: [{ price: 450_000, size: 1 }],
  };
  const after = {
    bids: [{ price: 400_000, size: 7 }],
    asks: [
      { price: 450_000, size: 1 },
      { price: 460_000, size: 3 },
    ],
  };
  assert.deepEqual(diffBooks(before, after), [
    { side: 'bid', price: 400_000, size: 7 },
    { side: 'bid', price: 390_000, size: 0 },
    { side: 'ask', price: 460_000, size: 3 },
  ]);
});

class Sink extends Writable {
  text = '';
  override _write(c: Buffer, _e: string, cb: () => void): void {
    this.text += c.toString();
    cb();
  }
  writeHead(): this {
    return this;
  }
}

/** a stream's market id (the hub takes any normalised id; a short one keeps the frames readable) */
const AA = '0xaa' as Bytes32;

test('stream hub: ring buffer replays after Last-Event-ID, falls back to a snapshot when evicted', () => {
  let now = 1_000;
  const hub = new BookStreamHub({ bufferSize: 3, heartbeatMs: 0, now: () => now, faults: new FaultInjector(undefined, 1) });
  const book = { bids: [], asks: [] };
  const first = new Sink();
  hub.attach(first as never, AA, 1, book, undefined, now);
  for (let i = 1; i <= 5; i++) hub.publishChanges(AA, [{ side: 'bid', price: i * 10_000, size: 1_000_000 }], ++now);
  assert.equal((first.text.match(/event: delta/g) ?? []).length, 5);
  const resumed = new Sink();
  hub.attach(resumed as never, AA, 1, book, '1003', now); // 1004 and 1005 are still buffered
  assert.deepEqual(
    [...resumed.text.matchAll(/id: (\d+)/g)].map((m) => m[1]),
    ['1004', '1005'],
  );
  const evicted = new Sink();
  hub.attach(evicted as never, AA, 1, book, '1001', now); // 1002 is gone: fresh snapshot
  assert.match(evicted.text, /^event: snapshot\nid: 1005\n/);
  // wire units: cents and shares
  assert.match(first.text, /"side":"bid","price":5,"size":1/);
  hub.closeAll();
});

test('rate limiter refills over time and reports reset', () => {
  const l = new RateLimiter(2, 1);
  assert.equal(l.take('a', 0).allowed, true);
  assert.equal(l.take('a', 0).allowed, true);
  const d = l.take('a', 0);
  assert.equal(d.allowed, false);
  assert.ok(d.retryAfter > 0.9 && d.retryAfter <= 1);
  assert.equal(l.take('a', 1000).allowed, true);
  assert.equal(l.take('a', 1000).reset, 3);
});

test('cursors round-trip; garbage is a 400 naming the field', () => {
  assert.equal(decodeCursor(encodeCursor(42)), 42);
  assert.equal(decodeCursor(null), undefined);
  assert.throws(
    () => decodeCursor('!!!'),
    (e: unknown) => e instanceof HttpError && e.status === 400 && e.field === 'cursor',
  );
});

test('book views and ETags', () => {
  const book = { bids: [{ price: 400_000, size: 2_000_000 }], asks: [{ price: 450_000, size: 1_000_000 }] };
  assert.deepEqual(outcomeView(book, 0, 10), { bids: [{ price: 550_000, size: 1_000_000 }], asks: [{ price: 600_000, size: 2_000_000 }] });
  const e = bookEtag(AA, 1, 20, outcomeView(book, 1, 20));
  assert.ok(etagMatches(`W/${e}, "other"`, e));
  assert.ok(!etagMatches('"other"', e));
  assert.notEqual(e, bookEtag(AA, 1, 20, outcomeView({ ...book, asks: [] }, 1, 20)));
});

test('walkBook: fills within the limit, ceil costs for buyers, fees in bps', () => {
  const asks = [
    { price: 400_000, size: 1_000_000, orders: 1 },
    { price: 410_000, size: 3_000_000, orders: 2 },
    { price: 500_000, size: 9_000_000, orders: 1 },
  ];
  const w = walkBook(asks, true, 410_000, 2_500_001, 50);
  assert.equal(w.filled, 2_500_001);
  assert.equal(w.cost, 400_000 + Math.ceil((410_000 * 1_500_001) / 1e6));
  assert.equal(w.liquidity, 4_000_000);
  assert.equal(w.steps.length, 2);
  assert.equal(w.fees, Math.floor((400_000 * 50) / 10_000) + Math.floor((Math.ceil((410_000 * 1_500_001) / 1e6) * 50) / 10_000));
});
