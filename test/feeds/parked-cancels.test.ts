/**
 * Cancelled orders released without a read: only once the market's stream has shown an event
 * stamped after the insertion of a create sent after the cancel's answer, and only when no trade
 * since the order's last read reached its price; read as before otherwise.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookTouches, type RestingAt } from '../../src/feeds/book-touches.ts';
import { CANCEL_WAIT_POLLS, HEARTBEAT_WAIT_POLLS, ParkedCancels, witnessTime, type PolledOrder } from '../../src/feeds/parked-cancels.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { deltaEvent, streamState, tradeEvent } from './trade-event.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const N = ('0x' + 'cd'.repeat(32)) as Bytes32;
const P = ('0x' + '01'.repeat(32)) as Bytes32;
const X = ('0x' + '02'.repeat(32)) as Bytes32;
const Y = ('0x' + '03'.repeat(32)) as Bytes32;
/** a YES bid at 0.45 */
const BID: RestingAt = { outcomeIndex: 1, side: 0, price: 450_000 };
const W = 1_800_000_000_123;

/** A parked cancel of P in M with a live stream, the poll having read P open at BID. */
function setup(known: PolledOrder | null = { at: BID, owed: false }) {
  const c = new ParkedCancels();
  const t = new BookTouches();
  c.see(streamState(M, 'live'));
  c.parked(P, M);
  const see = (e: Parameters<BookTouches['see']>[0]): void => {
    t.see(e);
    c.see(e);
  };
  const poll = (unknownWaits = true) => {
    const { release, read } = c.decide(t.take(), (n) => (n === P && known !== null ? known : undefined), unknownWaits);
    return { release, read };
  };
  return { c, see, poll };
}

test('released once the stream passes the insertion of a create sent after the cancel, with no trade at its price', () => {
  const s = setup();
  s.see(deltaEvent(M, W - 5));
  assert.deepEqual(s.poll(), { release: [], read: [] }, 'no witness yet: it waits');
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.see(deltaEvent(M, W));
  assert.deepEqual(s.poll().release, [], 'an event stamped at the witness itself may be older than the cancel: not yet');
  s.see(tradeEvent(M, 550_000, 'buy', 1, W + 1)); // a purchase at 0.55: does not reach a bid at 0.45
  const d = s.poll();
  assert.deepEqual(
    d.release.map((p) => p.nonce),
    [P],
    'the stream passed the witness (old code: its market read at the next poll, one GET /orders and a lookup)',
  );
  assert.deepEqual(d.read, []);
  assert.equal(s.c.size, 1, 'still waited for until the poll that released it has gone out');
  s.c.done(d.release);
  assert.equal(s.c.size, 0);
});

test('a trade at its price before the stream passed the witness (a fill that raced the cancel, printed after its answer): its market is read', () => {
  const s = setup();
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  // the fill matched before the cancel, stamped before the witness, printed after the cancel's answer
  s.see(tradeEvent(M, 450_000, 'sell', 1, W - 3));
  s.see(deltaEvent(M, W + 2));
  const d = s.poll();
  assert.deepEqual(d.release, [], 'not released: it may have filled (without the trade check it would be)');
  assert.deepEqual(d.read, [M], 'read as before: its fills and end come from the read');
  assert.equal(s.c.size, 0, 'left to the read');
});

test('a trade that reached it in a poll before the barrier still sends it to a read', () => {
  const s = setup();
  s.see(tradeEvent(M, 440_000, 'sell', 1, W - 3));
  const d = s.poll();
  assert.deepEqual(d.read, [M]);
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.see(deltaEvent(M, W + 2));
  assert.deepEqual(s.poll(), { release: [], read: [] }, 'nothing left to release');
});

test('a create sent before the park, a resend or a refused create is no witness; the next create sent is', () => {
  const s = new ParkedCancels();
  const t = new BookTouches();
  s.see(streamState(M, 'live'));
  s.submitted(Y, false); // sent before the cancel was answered (a cancel-replace's own create)
  s.parked(P, M);
  s.accepted(Y, W + 10_000);
  s.submitted(X, true); // a resend: an earlier send may have placed it, before the cancel
  s.accepted(X, W + 10_000);
  s.see(deltaEvent(M, W + 20_000));
  const orderOf = (n: Bytes32): PolledOrder | undefined => (n === P ? { at: BID, owed: false } : undefined);
  assert.deepEqual(s.decide(t.take(), orderOf, true).release, [], 'no witness yet');
  s.submitted(X, false);
  s.rejected(X); // refused: no insertion
  assert.deepEqual(s.decide(t.take(), orderOf, true).release, []);
  s.submitted(Y, false);
  s.accepted(Y, undefined); // a duplicate: the answer names no insertion of this send
  s.submitted(X, false);
  s.accepted(X, W);
  assert.deepEqual(
    s.decide(t.take(), orderOf, true).release.map((p) => p.nonce),
    [P],
    'witnessed by the first create sent after the park that states its insertion',
  );
});

test('a stream that is down, or does not pass the witness within a few polls: read as before', () => {
  const s = setup();
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.see(streamState(M, 'reconnecting'));
  assert.deepEqual(s.poll().read, [M], 'not streaming: read at the next poll');
  const q = setup();
  q.c.submitted(X, false);
  q.c.accepted(X, W);
  for (let i = 1; i < CANCEL_WAIT_POLLS; i++) assert.deepEqual(q.poll(), { release: [], read: [] }, `poll ${i}: it waits`);
  assert.deepEqual(q.poll().read, [M], `poll ${CANCEL_WAIT_POLLS}: read`);
});

test('an order the poll never read open waits one poll (the recent orders show its end), one owed a lookup is left to it', () => {
  const s = setup(null);
  assert.deepEqual(s.poll(), { release: [], read: [] });
  assert.deepEqual(s.poll().read, [M], 'still not ended by the next poll: read as before');
  const n = setup(null);
  assert.deepEqual(n.poll(false).read, [M], 'no recent-orders read: read at once');
  const o = setup({ at: BID, owed: true });
  assert.deepEqual(o.poll(), { release: [], read: [] });
  assert.equal(o.c.size, 0, 'the owed lookup settles it');
  const u = setup({ owed: false });
  assert.deepEqual(u.poll().read, [M], 'where it rests unknown (a seed): read');
});

test('an order ended another way is forgotten; the streams of other markets do not count', () => {
  const s = setup();
  s.c.parked(Y, N);
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.see(deltaEvent(N, W + 50));
  s.c.ended(P);
  assert.equal(s.c.size, 1);
  const d = s.c.decide(new Map(), (n) => (n === Y ? { at: BID, owed: false } : undefined), true);
  assert.deepEqual(
    d.release.map((p) => p.nonce),
    [Y],
    'its own market passed',
  );
});

test('a witness stamped in whole seconds stands for the end of that second', () => {
  assert.equal(witnessTime(1_800_000_000_000), 1_800_000_000_999);
  assert.equal(witnessTime(W), W);
  const s = setup();
  s.c.submitted(X, false);
  s.c.accepted(X, 1_800_000_000_000);
  s.see(deltaEvent(M, 1_800_000_000_500));
  assert.deepEqual(s.poll().release, [], 'within the second the stamp may have been cut from');
  s.see(deltaEvent(M, 1_800_000_001_000));
  assert.deepEqual(
    s.poll().release.map((p) => p.nonce),
    [P],
  );
});

test('a gap in the stream (its resync snapshot) after the cancel: the market is read, whatever the stream showed since', () => {
  const s = setup();
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.see({ type: 'snapshot', book: { marketId: M, outcomeIndex: 1, bids: [], asks: [], venueTs: W + 1, seq: 7 }, seq: 7, localTs: 0, source: 'resync' });
  s.see(deltaEvent(M, W + 2));
  const d = s.poll();
  assert.deepEqual(d.release, [], 'the trades in the gap are unknown');
  assert.deepEqual(d.read, [M]);
});

test('a quiet market: a heartbeat stamped after the witness releases its cancelled order (no event after the cancel)', () => {
  const s = setup();
  s.see(deltaEvent(M, W - 40)); // the cancel's own delta, stamped before the witness
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  s.c.heard(M, W);
  assert.deepEqual(s.poll(), { release: [], read: [] }, 'a heartbeat stamped at the witness itself: not yet');
  s.c.heard(N, W + 2_000); // another market's stream
  assert.deepEqual(s.poll(), { release: [], read: [] });
  s.c.heard(M, W + 2_000);
  assert.deepEqual(
    s.poll().release.map((p) => p.nonce),
    [P],
    'released at the poll after its heartbeat (old code: read after CANCEL_WAIT_POLLS polls, a GET /orders and a lookup)',
  );
});

test('heartbeats that carry the clock: a witnessed cancel waits a heartbeat interval for them, then is read; a trade at its price is read at once', () => {
  const s = setup();
  s.c.heard(N, W - 1_000); // the venue's heartbeats carry its clock
  s.c.submitted(X, false);
  s.c.accepted(X, W);
  for (let i = 1; i < HEARTBEAT_WAIT_POLLS; i++) assert.deepEqual(s.poll(), { release: [], read: [] }, `poll ${i}: it waits for a heartbeat`);
  assert.deepEqual(s.poll().read, [M], `poll ${HEARTBEAT_WAIT_POLLS}: no heartbeat passed the witness: read`);
  const u = setup();
  u.c.heard(N, W - 1_000);
  for (let i = 1; i < CANCEL_WAIT_POLLS; i++) u.poll();
  assert.deepEqual(u.poll().read, [M], 'no witness known: read after CANCEL_WAIT_POLLS as before');
  const t = setup();
  t.c.submitted(X, false);
  t.c.accepted(X, W);
  t.see(tradeEvent(M, 450_000, 'sell', 1, W - 3));
  t.c.heard(M, W + 500);
  const d = t.poll();
  assert.deepEqual(d.release, []);
  assert.deepEqual(d.read, [M], 'a trade reached it before the heartbeat: read');
});
