import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { BookmakerError, InvariantError } from '../../src/model/errors.ts';
import type { Bytes32, LimitOrder } from '../../src/model/order.ts';
import type { DesiredOrder } from '../../src/orders/diff.ts';
import { NonceSource } from '../../src/orders/nonces.ts';
import { createLogger } from '../../src/core/logger.ts';
import { OrderManager, type OrderManagerOptions } from '../../src/orders/order-manager.ts';
import { strangerMessage, type OrderRecord } from '../../src/orders/reconciler.ts';
import { refusalLabel } from '../../src/orders/refusal.ts';
import type { OrderManagerEvent } from '../../src/state/events.ts';
import { FakeVenue, M1, M2, ManualClock, venueOrder } from './fake-venue.ts';

const order = (price: number, side: 0 | 1 = 0, marketId: Bytes32 = M1, size = 10_000_000): LimitOrder => ({ marketId, outcomeIndex: 1, side, price, size });
const quotes = (mid: number, marketId: Bytes32 = M1): DesiredOrder[] => [
  { slot: `${marketId}:bid:0`, order: order(mid - 10_000, 0, marketId) },
  { slot: `${marketId}:bid:1`, order: order(mid - 30_000, 0, marketId) },
  { slot: `${marketId}:ask:0`, order: order(mid + 10_000, 1, marketId) },
  { slot: `${marketId}:ask:1`, order: order(mid + 30_000, 1, marketId) },
];

/** Holds the venue's calls until the returned release runs. */
function holdVenue(venue: FakeVenue): () => void {
  let release!: () => void;
  venue.hold = new Promise<void>((r) => (release = r));
  return release;
}

/** One turn of the event loop. */
const turn = () => new Promise((r) => setImmediate(r));

function setup(opts: Partial<OrderManagerOptions> = {}, batchLimit = 50) {
  const venue = new FakeVenue(batchLimit);
  const clock = new ManualClock();
  const events: OrderManagerEvent[] = [];
  const om = new OrderManager({ venue, clock, tolerances: { price: 5_000, sizeFraction: 0.1 }, emit: (e) => events.push(e), cancelAllDelayMs: 0, ...opts });
  const of = <T extends OrderManagerEvent['type']>(t: T) => events.filter((e): e is Extract<OrderManagerEvent, { type: T }> => e.type === t);
  return { venue, clock, om, events, of };
}

/** Each slot has at most one order open at the venue. */
function assertOnePerSlot(venue: FakeVenue, om: OrderManager): void {
  const slotOf = new Map(om.tracked().map((t) => [t.planned.nonce, t.slot]));
  const seen = new Set<string>();
  for (const o of venue.open.values()) {
    const slot = slotOf.get(o.nonce);
    assert.ok(slot, `venue order ${o.nonce} is not tracked`);
    assert.ok(!seen.has(slot), `two open orders in slot ${slot}`);
    seen.add(slot);
  }
}

describe('OrderManager.sync', () => {
  it('first quote is one bulk call; same or noisy quotes send nothing', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.venueCalls().length, 1);
    assert.equal(venue.open.size, 4);
    await om.sync(M1, quotes(500_000));
    await om.sync(M1, quotes(504_000)); // within the 5 000 price tolerance
    assert.equal(venue.venueCalls().length, 1);
  });

  it('a set that matches what rests is settled within the call: nothing queued, no call, the set is the last', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    const same = quotes(504_000); // within the price tolerance
    const p = om.sync(M1, same);
    assert.equal(om.hasPendingWork(M1), false, 'no chain left running for a set with nothing to send');
    assert.equal(om.isIdle(M1), false, 'its orders are still held');
    await p;
    assert.equal(venue.venueCalls().length, 1);
    // the settled set is the market's last: a refresh re-runs it (and again sends nothing)
    await om.refreshAll();
    assert.equal(venue.venueCalls().length, 1);
    // a set that needs a call still goes through the chain
    const moved = om.sync(M1, quotes(600_000));
    assert.equal(om.hasPendingWork(M1), true);
    await moved;
    assert.equal(venue.venueCalls().length, 2);
  });

  it('a sync asked while a reconcile is pending waits behind it, even with nothing to send', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    const r = om.reconcile(M1);
    const s = om.sync(M1, quotes(500_000));
    assert.equal(om.hasPendingWork(M1), true, 'queued behind the reconcile');
    await r;
    await s;
    assert.equal(venue.calls.filter((c) => c.kind === 'open-orders').length, 1);
    assert.equal(om.hasPendingWork(M1), false);
    // the reconcile is over: the next matching set settles at once again
    void om.sync(M1, quotes(500_000));
    assert.equal(om.hasPendingWork(M1), false);
  });

  it('a sync whose turn comes while a reconcile holds the gate sends nothing until the reconcile is done', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    // the venue's list of open orders answers only when released
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const list = venue.openOrders.bind(venue);
    venue.openOrders = async (marketId) => {
      await answered;
      return list(marketId);
    };
    const r = om.reconcile(M1);
    await turn(); // the reconcile holds the gate, waiting for the list
    const s = om.sync(M1, quotes(600_000));
    await turn();
    await turn();
    assert.deepEqual(
      venue.calls.map((c) => c.kind),
      ['batch'],
      'the move waits behind the reconcile',
    );
    answer();
    await r;
    await s;
    assert.deepEqual(
      venue.calls.map((c) => c.kind),
      ['batch', 'open-orders', 'batch'],
    );
  });

  it('a one-order move is one cancel-replace; a full requote is one bulk call', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    const moved = quotes(500_000);
    moved[0] = { ...moved[0]!, order: order(480_000) };
    await om.sync(M1, moved);
    assert.equal(venue.venueCalls()[1]!.kind, 'cancel-replace');
    await om.sync(M1, quotes(550_000));
    const last = venue.venueCalls()[2]!;
    assert.equal(last.kind, 'batch');
    assert.equal(last.kind === 'batch' && last.creates.length + last.cancels.length, 8);
    assert.equal(venue.open.size, 4);
    assertOnePerSlot(venue, om);
  });

  it('null/empty desired pulls every quote', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000));
    await om.sync(M1, []);
    assert.equal(venue.open.size, 0);
    assert.equal(om.tracked().length, 0);
  });

  it('rejects desired orders of another market', () => {
    const { om } = setup();
    assert.throws(() => om.sync(M1, quotes(500_000, M2)), /marketId/);
  });

  it('in flight at worst case: a held call shows pending orders and later ticks coalesce into one follow-up', async () => {
    const { venue, om } = setup();
    const release = holdVenue(venue);
    const first = om.sync(M1, quotes(500_000));
    await turn();
    assert.deepEqual(
      om.tracked().map((t) => t.state),
      ['pending-create', 'pending-create', 'pending-create', 'pending-create'],
    );
    const a = om.sync(M1, quotes(600_000));
    const b = om.sync(M1, quotes(700_000));
    assert.equal(a, b, 'queued ticks share one follow-up');
    venue.hold = null;
    release();
    await first;
    await b;
    // one create batch, one requote batch straight to 700 000 (600 000 was skipped)
    assert.equal(venue.venueCalls().length, 2);
    assert.deepEqual([...venue.open.values()].map((o) => o.price).sort(), [670_000, 690_000, 710_000, 730_000]);
  });

  it('at most one venue call per market change over a random walk, far fewer than cancel-all-then-create', async (t) => {
    const { venue, om } = setup();
    let mid = 500_000;
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const ticks = 600;
    for (let k = 0; k < ticks; k++) {
      mid += Math.round((rnd() - 0.5) * 8_000); // mostly noise inside the 5 000 tolerance, sometimes a move
      const before = venue.venueCalls().length;
      await om.sync(M1, quotes(mid));
      assert.ok(venue.venueCalls().length - before <= 1, `tick ${k}: more than one call`);
      assertOnePerSlot(venue, om);
    }
    const calls = venue.venueCalls().length;
    const naive = 2 * ticks; // a bulk cancel and a bulk create on every tick
    assert.ok(calls < naive / 4, `${calls} calls vs naive ${naive}`);
    t.diagnostic(`requote calls: ${calls} for ${ticks} ticks (naive cancel-all-then-create: ${naive})`);
  });

  it('batches within the venue limit', async () => {
    const { venue, om } = setup({}, 4);
    const many = Array.from({ length: 10 }, (_, i) => ({ slot: `s${i}`, order: order(100_000 + i * 10_000) }));
    await om.sync(M1, many);
    assert.deepEqual(
      venue.venueCalls().map((c) => (c.kind === 'batch' ? c.creates.length : -1)),
      [4, 4, 2],
    );
  });
});

describe('OrderManager outcomes', () => {
  it('5xx on create: the same planned order (same nonce) is resent; the 409 duplicate is counted once', async () => {
    const { venue, om, of } = setup();
    let fail = true;
    venue.createScript = (p) => {
      if (!fail) return undefined;
      fail = false;
      venue.open.set(p.nonce, venueOrder(p)); // it landed although the answer was lost
      return { ok: false, nonce: p.nonce, code: 'server-error', message: '502', retryable: true };
    };
    const one = [quotes(500_000)[0]!];
    await om.sync(M1, one);
    assert.equal(om.tracked()[0]!.state, 'pending-create');
    await om.sync(M1, one);
    assert.equal(venue.received.length, 2);
    assert.deepEqual(venue.received[1], venue.received[0], 'resent body identical');
    assert.equal(om.tracked()[0]!.state, 'working');
    assert.deepEqual(
      of('OrderAccepted').map((e) => e.duplicate),
      [true],
    );
    assert.equal(venue.open.size, 1);
  });

  it('a create answer that shows fills (the order crossed on arrival) says so in OrderAccepted, for the fee role of those fills', async () => {
    const { venue, om, of } = setup();
    venue.createScript = (p) => (p.side === 0 ? { ok: true, nonce: p.nonce, order: { ...venueOrder(p), filledSize: 2_412_000 }, duplicate: false } : undefined);
    await om.sync(M1, quotes(500_000));
    const accepted = new Map(of('OrderAccepted').map((e) => [e.nonce, e.filledOnArrival]));
    const side = new Map(venue.received.map((p) => [p.nonce, p.side]));
    assert.equal(accepted.size, 4);
    for (const [nonce, arrived] of accepted)
      assert.equal(arrived, side.get(nonce) === 0 ? 2_412_000 : undefined, 'the bids crossed (their answers state 2.412 filled), the asks rested');
  });

  it('a thrown network error marks the whole batch retryable, then retries', async () => {
    const { venue, om, of } = setup();
    venue.throwNext = new BookmakerError('NETWORK', 'socket hang up');
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 0);
    // our own NETWORK error speaks the same vocabulary as the venue client's classifier
    assert.deepEqual(
      new Set(of('OrderRejected').map((e) => [e.reason, refusalLabel({ code: e.reason, message: e.message ?? '' })].join(' '))),
      new Set(['network network']),
    );
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 4);
    assert.equal(new Set(venue.received.map((p) => p.nonce)).size, 4, 'no new nonces on retry');
  });

  it('after maxRetries the create is settled by reconciliation', async () => {
    const { venue, om, clock } = setup({ maxRetries: 1, inFlightTimeoutMs: 1000 });
    venue.createScript = (p) => ({ ok: false, nonce: p.nonce, code: 'server-error', message: '503', retryable: true });
    const one = [quotes(500_000)[0]!];
    await om.sync(M1, one);
    await om.sync(M1, one);
    await om.sync(M1, one);
    assert.equal(venue.received.length, 2);
    clock.t += 2000;
    venue.createScript = () => undefined;
    await om.sync(M1, one); // reconcile forgets the unplaced order, then creates a fresh one
    assert.equal(venue.open.size, 1);
    assert.equal(venue.received.length, 3);
    assert.notEqual(venue.received[2]!.nonce, venue.received[0]!.nonce);
  });

  it('429: nothing placed, back-off sheds requotes but still cancels, then resumes', async () => {
    const { venue, om, clock, of } = setup({ backoffBaseMs: 1000 });
    await om.sync(M1, quotes(500_000).slice(0, 2));
    venue.createScript = (p) => ({ ok: false, nonce: p.nonce, code: 'rate-limited', message: '429', retryable: true });
    await om.sync(M1, quotes(500_000));
    assert.equal(of('OrderRejected').filter((e) => e.reason === 'rate-limited').length, 2);
    venue.createScript = () => undefined;
    const calls = venue.venueCalls().length;
    await om.sync(M1, quotes(600_000));
    assert.equal(venue.venueCalls().length, calls, 'requotes shed during back-off');
    await om.sync(M1, []);
    assert.equal(venue.open.size, 0, 'cancels still go out');
    clock.t += 1001;
    await om.sync(M1, quotes(600_000));
    assert.equal(venue.open.size, 4);
  });

  it('409 migration blocks the market until resumeMarket; other markets keep quoting', async () => {
    const { venue, om, of } = setup();
    venue.createScript = (p) =>
      p.marketId === M1 ? { ok: false, nonce: p.nonce, code: 'migration-required', message: '409', retryable: false, migration: true } : undefined;
    await om.sync(M1, quotes(500_000));
    await om.sync(M2, quotes(500_000, M2));
    assert.equal(om.isBlocked(M1), true);
    assert.equal(of('MarketBlocked').length, 1);
    const before = venue.received.length;
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.received.length, before, 'no creates while blocked');
    venue.createScript = () => undefined;
    om.resumeMarket(M1);
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 8);
  });

  it('a thrown 429 with Retry-After backs off at least that long', async () => {
    const { venue, om, clock } = setup({ backoffBaseMs: 100 });
    venue.throwNext = new VenueError({ status: 429, venueCode: null, message: 'slow down', endpoint: 'POST /orders/bulk', retryAfterMs: 5000, body: null });
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 0);
    assert.equal(om.backedOffUntil(), clock.t + 5000);
    clock.t += 5000;
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 4);
  });

  it('a thrown 409 migration blocks the market', async () => {
    const { venue, om } = setup();
    venue.throwNext = new VenueError({
      status: 409,
      venueCode: 'MIGRATION_REQUIRED',
      message: 'wallet must migrate',
      endpoint: 'POST /orders/bulk',
      retryAfterMs: null,
      body: null,
    });
    await om.sync(M1, quotes(500_000));
    assert.equal(om.isBlocked(M1), true);
  });

  it('an invalid-signature answer halts: everything cancelled, onHalt called', async () => {
    const box: { err: Error | null } = { err: null };
    const { venue, om } = setup({ onHalt: (e) => (box.err = e) });
    await om.sync(M2, quotes(500_000, M2));
    venue.createScript = (p) => ({ ok: false, nonce: p.nonce, code: 'invalid-signature', message: '400 bad signature', retryable: false });
    await om.sync(M1, quotes(500_000));
    assert.ok(box.err instanceof InvariantError);
    assert.equal(om.isHalted, true);
    assert.equal(venue.open.size, 0);
  });

  it('partial bulk failure: the rejected slot cools down, the others work', async () => {
    const { venue, om, clock } = setup({ rejectCooldownMs: 1000 });
    venue.createScript = (p) => (p.price === 490_000 ? { ok: false, nonce: p.nonce, code: 'bad-request', message: 'price', retryable: false } : undefined);
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 3);
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.received.length, 4, 'no hammering during cooldown');
    clock.t += 1001;
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.received.length, 5);
  });

  it('a cancel for an unknown order forgets it and reconciles the market', async () => {
    const { venue, om } = setup();
    await om.sync(M1, quotes(500_000).slice(0, 1));
    const n = [...venue.open.keys()][0]!;
    venue.open.delete(n);
    venue.cancelScript = (x) => ({ ok: false, nonce: x, code: 'not-found', message: '404', retryable: false });
    await om.sync(M1, []);
    assert.equal(om.tracked().length, 0);
    venue.cancelScript = () => undefined;
    await om.sync(M1, []);
    assert.ok(venue.calls.some((c) => c.kind === 'open-orders'));
  });

  it('a cancel refused because the order filled keeps it counted (parked) until its fills are seen', async () => {
    const { venue, om, of } = setup({ settleMs: 30_000 });
    await om.sync(M1, quotes(500_000).slice(0, 1));
    const n = [...venue.open.keys()][0]! as Bytes32;
    venue.open.delete(n); // filled at the venue; the fills feed has not reported it yet
    venue.cancelScript = (x) => ({ ok: false, nonce: x, code: 'conflict', message: '409 filled', retryable: false });
    await om.sync(M1, []);
    assert.equal(om.tracked().length, 0, 'no longer a live quote');
    assert.ok(om.knows(n), 'but still tracked as parked');
    assert.deepEqual(
      of('OrderParked').map((e) => e.nonce),
      [n],
    );
    assert.deepEqual(of('OrderGone'), [], 'the store keeps counting it');
    om.settle(n); // the feed reports it closed, its fills first
    assert.deepEqual(
      of('OrderGone').map((e) => e.nonce),
      [n],
    );
    assert.ok(!om.knows(n));
  });

  it('an order the feed reported closed while its cancel was out is not parked when the cancel returns', async () => {
    const { venue, om, of } = setup({ settleMs: 30_000 });
    await om.sync(M1, quotes(500_000).slice(0, 1));
    const n = [...venue.open.keys()][0]! as Bytes32;
    const release = holdVenue(venue);
    const pulling = om.sync(M1, []);
    await turn();
    om.settle(n); // the fills feed: closed, its fills reported first
    venue.hold = null;
    release();
    await pulling;
    assert.deepEqual(of('OrderParked'), [], 'nothing left to wait for');
    assert.deepEqual(
      of('OrderCancelled').map((e) => e.nonce),
      [n],
    );
    assert.ok(!om.knows(n));
  });

  it('a desired set checked before a fill in its market only cancels: it never tops the filled order up', async () => {
    const { venue, om } = setup();
    const q = quotes(500_000).slice(0, 1);
    await om.sync(M1, q, om.exposureVersion(M1));
    const n = [...venue.open.keys()][0]! as Bytes32;
    const basis = om.exposureVersion(M1);
    om.applyFill(n, 2_000_000); // 2 of 10 filled: the gate counted 10, the position now holds 2 of them
    venue.open.set(n, { ...venue.open.get(n)!, remainingSize: venue.open.get(n)!.size - 2_000_000 });
    const calls = venue.venueCalls().length;
    await om.sync(M1, q, basis); // the same set, risk-checked before the fill: a top-up to 10 would add 2
    assert.equal(venue.venueCalls().length, calls, 'no replace from a stale set');
    await om.sync(M1, q, om.exposureVersion(M1)); // checked after the fill: the top-up is the gate's call
    assert.equal(venue.venueCalls().length, calls + 1);
    assert.equal(venue.venueCalls().at(-1)!.kind, 'cancel-replace');
    // a stale set still pulls: cancels go
    await om.sync(M1, [], basis);
    assert.equal(venue.open.size, 0);
  });

  it('a pull does not wait behind a slow call for its market: orders the call leaves alone are cancelled at once', async () => {
    const { venue, om } = setup();
    const q = quotes(500_000);
    await om.sync(M1, q);
    const resting = new Map([...venue.open.values()].map((o) => [o.price, o.nonce]));
    const release = holdVenue(venue);
    // the bids move: a call for them goes out and hangs (latency, a 429 back-off)
    const moving = om.sync(M1, [...quotes(550_000).slice(0, 2), ...q.slice(2)]);
    await turn();
    venue.hold = null;
    const pulling = om.sync(M1, []); // the book went stale: pull everything
    for (let i = 0; i < 5; i++) await turn();
    const asks = [resting.get(510_000)!, resting.get(530_000)!];
    const cancelledWhileHung = asks.map((n) => venue.open.has(n));
    release();
    assert.deepEqual(cancelledWhileHung, [false, false], 'the asks were cancelled while the bid call hung');
    await Promise.all([moving, pulling]);
    assert.equal(venue.open.size, 0, 'the queued pull took what the slow call left');
    assert.equal(om.tracked(M1).length, 0);
  });

  it('a cancel that fails for now is retried at once, not at the next tick; at most 3 quick retries per order', async () => {
    const { venue, om, clock } = setup();
    await om.sync(M1, quotes(500_000));
    let failures = 2; // a 5xx, then a 429, then the venue takes it
    venue.cancelScript = (x) =>
      failures-- > 0 ? { ok: false, nonce: x, code: failures === 1 ? 'server-error' : 'rate-limited', message: 'try again', retryable: true } : undefined;
    await om.sync(M1, []); // the pull: two of the four cancels are refused for now
    for (let i = 0; i < 10 && venue.open.size > 0; i++) await turn();
    assert.equal(venue.open.size, 0, 'pulled without another tick');
    // a venue that keeps refusing: three quick retries, then the ticks carry on (no retry storm)
    clock.t += 60_000; // past the 429's back-off, which holds creates back
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 4);
    const before = venue.calls.length;
    venue.cancelScript = (x) => ({ ok: false, nonce: x, code: 'server-error', message: 'down', retryable: true });
    await om.sync(M1, []);
    for (let i = 0; i < 20; i++) await turn();
    assert.equal(venue.calls.length - before, 1 + 3, 'the pull and three quick retries');
    assert.equal(venue.open.size, 4);
  });

  it('a market needing reconciliation does not list orders on every tick while the venue fails', async () => {
    const { venue, om, clock } = setup({ reconcileMinIntervalMs: 1000 });
    await om.sync(M1, quotes(500_000).slice(0, 1));
    venue.cancelScript = (x) => ({ ok: false, nonce: x, code: 'not-found', message: '404', retryable: false });
    await om.sync(M1, []); // unknown order → flagged for reconciliation
    venue.failOpenOrders = 100;
    for (let i = 0; i < 5; i++) await om.sync(M1, []);
    assert.equal(venue.calls.filter((c) => c.kind === 'open-orders').length, 1);
    clock.t += 1000;
    await om.sync(M1, []);
    assert.equal(venue.calls.filter((c) => c.kind === 'open-orders').length, 2);
  });

  it('never creates for a quote the gate took as a live order: a refresh goes out as its cancel, a gone order is not replaced', async () => {
    const { venue, om, clock } = setup({ deadManSeconds: 60 });
    const [q] = quotes(500_000);
    await om.sync(M1, [q!]);
    const n = om.tracked(M1)[0]!.planned.nonce;
    const kept = [{ ...q!, keeps: n }];
    await om.sync(M1, kept);
    assert.equal(venue.venueCalls().length, 1, 'kept as it is');
    clock.t += 31_000; // past half-life: the diff would refresh it by a cancel-replace
    await om.sync(M1, kept);
    const refresh = venue.venueCalls().at(-1)!;
    assert.deepEqual(
      refresh.kind === 'batch' && [refresh.creates.length, refresh.cancels],
      [0, [n]],
      'only the cancel: the gate counted the quote once, as the old order',
    );
    assert.equal(venue.open.size, 0);
    await om.sync(M1, kept); // the slot is empty and the quote still names the old order: nothing
    assert.equal(venue.venueCalls().at(-1), refresh);
    await om.sync(M1, [q!]); // the next tick counts the quote as new
    assert.equal(venue.open.size, 1);
  });

  it('dead-man: orders carry a short expiry and are refreshed at half-life', async () => {
    const { venue, om, clock } = setup({ deadManSeconds: 60 });
    await om.sync(M1, quotes(500_000).slice(0, 1));
    const first = [...venue.open.values()][0]!;
    assert.equal(first.expiry, Math.floor(clock.t / 1000) + 60);
    clock.t += 29_000;
    await om.sync(M1, quotes(500_000).slice(0, 1));
    assert.equal(venue.venueCalls().length, 1);
    clock.t += 2_000;
    await om.sync(M1, quotes(500_000).slice(0, 1));
    assert.equal(venue.venueCalls()[1]!.kind, 'cancel-replace');
    assert.ok([...venue.open.values()][0]!.expiry > first.expiry);
  });
});

describe('OrderManager.reconcile', () => {
  it('a found order it cancels is named by what the books know: an earlier run, a crash (tagged, no record), another trader', async () => {
    const lines: Array<{ msg: string; nonce?: string; record?: string }> = [];
    const logger = createLogger({ level: 'warn', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
    const old = new NonceSource();
    const [recorded, tagged, unknown] = [old.next(), old.next(), old.next()];
    const orderRecord = (n: Bytes32): OrderRecord => (n === recorded ? 'recorded' : n === tagged ? 'tagged' : 'unknown');
    const { venue, om } = setup({ logger, orderRecord });
    for (const [i, nonce] of [recorded, tagged, unknown].entries()) venue.open.set(nonce, venueOrder({ ...order(100_000 + i * 1_000), nonce }));
    assert.equal(await om.reconcile(undefined, []), true);
    const said = (n: Bytes32) => lines.find((x) => x.nonce === n)?.msg ?? '(none)';
    // kill -9 mid bulk create: the order landed, its record did not
    assert.equal(said(tagged), strangerMessage('tagged'));
    assert.match(said(tagged), /an order of this wallet the ledger has no record of: likely placed just before a crash/);
    assert.doesNotMatch(said(tagged), /did not place/);
    assert.match(said(recorded), /placed by an earlier run/);
    assert.match(said(unknown), /this bot did not place .*a person or another instance/);
    assert.equal(venue.open.size, 0, 'all three cancelled');
  });

  it('start-up: adopts orders matching desired slots, cancels the rest, never double-quotes', async () => {
    const { venue, om, of } = setup();
    const old = new NonceSource();
    const q = quotes(500_000);
    // a previous run left: bid0 twice (one must go), ask0 at a stale price, and a stray order
    for (const o of [q[0]!.order, { ...q[0]!.order, price: 491_000 }, { ...q[2]!.order, price: 700_000 }, order(100_000, 0, M2)]) {
      const p = { ...o, nonce: old.next() };
      venue.open.set(p.nonce, venueOrder(p));
    }
    assert.equal(await om.reconcile(undefined, q), true);
    const found = of('OrderAdopted');
    assert.equal(found.filter((e) => !e.slot.startsWith('orphan:')).length, 1, 'one adopted into its slot');
    // the other three are counted (at their whole size) while their cancels are on the way
    assert.equal(found.filter((e) => e.slot.startsWith('orphan:')).length, 3);
    assert.deepEqual(
      of('CancelSubmitted')
        .map((e) => e.nonce)
        .sort(),
      found
        .filter((e) => e.slot.startsWith('orphan:'))
        .map((e) => e.nonce)
        .sort(),
    );
    assert.equal(venue.open.size, 1);
    assert.equal(om.ready, true);
    await om.sync(M1, q);
    assert.equal(venue.open.size, 4);
    assertOnePerSlot(venue, om);
    assert.equal(venue.received.length, 3, 'the adopted slot was not re-created');
  });

  it("a found V2 buy part-taken with a fee is read with the manager's fee model: adopted into the slot that wants what rests", async () => {
    const fees = { makerBps: 0, takerBps: 50 };
    // a V2 buy of 12.345678 @ 0.37 that took 4 shares at 0.30 (1.200000 + a 0.006000 fee): 8.345678 rest
    const p = { ...order(370_000), nonce: new NonceSource().next() };
    const found = {
      ...venueOrder(p),
      size: 4_613_580,
      filledSize: 1_206_000,
      remainingSize: 4_613_580 - 1_206_000,
      avgFillPrice: 300_000,
      settlementVersion: 2 as const,
      sv2MinSharesOut: 12_345_678n,
    };
    const want: DesiredOrder[] = [{ slot: 'bid0', order: { ...order(370_000), size: 8_345_678 } }];
    const adoptedInto = async (o: Partial<OrderManagerOptions>): Promise<string[]> => {
      const { venue, om, of } = setup({ tolerances: { price: 0, sizeFraction: 0.001 }, ...o });
      venue.open.set(p.nonce, found);
      assert.equal(await om.reconcile(undefined, want), true);
      return of('OrderAdopted').map((e) => e.slot);
    };
    assert.deepEqual(await adoptedInto({ fees }), ['bid0']);
    // old code (no fee model in the order manager): read 20 000 units short, outside the tolerance: cancelled
    assert.notDeepEqual(await adoptedInto({}), ['bid0']);
  });

  it('a found order counts at its whole size until the feed reports its fills, even fills from before it was found', async () => {
    const { venue, om, of } = setup();
    const q = quotes(500_000);
    const p = { ...q[0]!.order, nonce: new NonceSource().next() };
    venue.open.set(p.nonce, venueOrder(p, p.size - 500_000)); // half a share filled before the restart (within the size tolerance)
    assert.equal(await om.reconcile(undefined, q), true);
    const [adopted] = of('OrderAdopted');
    assert.equal(adopted!.remaining, p.size, 'the store counts the whole size: the position may not hold that fill yet');
    assert.equal(om.tracked(M1)[0]!.remaining, p.size, 'the diff sees what the store counts');
    // the feed reports the earlier fill late: the count shrinks to what rests, the order stays
    om.applyFill(p.nonce, 500_000);
    assert.deepEqual(
      of('OrderRemainingChanged').map((e) => e.remaining),
      [p.size - 500_000],
    );
    assert.ok(om.knows(p.nonce));
    assert.equal(om.tracked(M1)[0]!.remaining, p.size - 500_000);
  });

  it('after a reconnect: learns fills and vanished orders from the venue', async () => {
    const { venue, om, of } = setup();
    await om.sync(M1, quotes(500_000));
    const [a, b] = [...venue.open.keys()];
    venue.open.delete(a!);
    venue.open.set(b!, { ...venue.open.get(b!)!, remainingSize: 2_000_000 });
    await om.reconcile(M1);
    assert.equal(of('OrderGone').length, 1);
    // the store's worst case and the diff both wait for the fills feed: a fill the position does
    // not hold yet still counts as exposure, and the order keeps its slot meanwhile
    const size = venue.open.get(b!)!.size;
    assert.deepEqual(of('OrderRemainingChanged'), []);
    assert.ok(
      om.tracked(M1).some((t) => t.planned.nonce === b && t.remaining === size),
      'b still counts its whole size',
    );
    // a set checked now re-places the vanished order and leaves b alone: the gate took the identical
    // quote as b, already counted at 10, so topping b up now would add the 8 filled on top
    await om.sync(M1, quotes(500_000), om.exposureVersion(M1));
    const last = venue.venueCalls().at(-1)!;
    assert.equal(last.kind, 'batch');
    assert.deepEqual(last.kind === 'batch' && [last.creates.length, last.cancels.length], [1, 0]);
    assert.ok(venue.open.has(b!), 'b rests untouched');
    om.applyFill(b as Bytes32, size - 2_000_000 - 500_000);
    assert.deepEqual(
      of('OrderRemainingChanged').map((e) => e.remaining),
      [2_500_000],
      'planned less the fills seen',
    );
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 4);
    assertOnePerSlot(venue, om);
  });

  it('returns false and stays not-ready when the venue cannot be listed', async () => {
    const { venue, om } = setup();
    venue.failOpenOrders = 1;
    assert.equal(await om.reconcile(), false);
    assert.equal(om.ready, false);
  });

  it('waits for a running sync before reading the venue', async () => {
    const { venue, om } = setup();
    const release = holdVenue(venue);
    const s = om.sync(M1, quotes(500_000));
    await turn();
    const r = om.reconcile(M1);
    await turn();
    assert.equal(venue.calls.filter((c) => c.kind === 'open-orders').length, 0);
    venue.hold = null;
    release();
    await s;
    await r;
    assert.equal(venue.open.size, 4);
    assert.equal(om.tracked().filter((t) => t.state === 'working').length, 4);
  });
});

describe('OrderManager.cancelAll and halt', () => {
  it('loops until the venue reports nothing open, catching late arrivals', async () => {
    const { venue, om } = setup({}, 3);
    await om.sync(M1, quotes(500_000));
    await om.sync(M2, quotes(500_000, M2));
    venue.lateArrivals = [venueOrder({ ...order(1_000), nonce: new NonceSource().next() })];
    const r = await om.cancelAll();
    assert.equal(r.ok, true);
    assert.equal(venue.open.size, 0);
    assert.equal(r.cancelled, 9);
    assert.ok(r.rounds >= 2);
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 0, 'no creates after cancelAll');
  });

  it('an order gone from the venue before the list (filled as the stop began) is let go with its end unseen: kept for the sweep, never OrderGone', async () => {
    const { venue, om, events } = setup();
    await om.sync(M1, quotes(500_000));
    const [filled] = [...venue.open.keys()] as Bytes32[];
    venue.open.delete(filled!); // filled at the venue; the feeds are closed, no OrderClosed comes
    const r = await om.cancelAll();
    assert.deepEqual({ ok: r.ok, cancelled: r.cancelled, remaining: r.remaining }, { ok: true, cancelled: 3, remaining: 0 });
    assert.equal(om.tracked().length, 0, 'the order manager tracks nothing after the stop');
    assert.deepEqual(om.endedAtStop(), [{ nonce: filled, marketId: M1 }], 'the filled order is kept for the final sweep');
    // no end guessed: an OrderGone would end it 'gone' in the ledger before the sweep read it
    assert.deepEqual(
      events.filter((e) => (e.type === 'OrderGone' || e.type === 'OrderCancelled') && e.nonce === filled),
      [],
      'no end of the filled order told',
    );
    // the three it cancelled are not among them
    assert.equal(events.filter((e) => e.type === 'OrderCancelled').length, 3);
  });

  it('an order listed open that ended before its cancel came (answered alreadyCancelled) is not counted cancelled nor ended on that word: kept for the sweep', async () => {
    const { venue, om, events } = setup();
    await om.sync(M1, quotes(500_000));
    const [filled] = [...venue.open.keys()] as Bytes32[];
    // the list shows it open; it fills before the cancel arrives (the venue answers 200 alreadyCancelled)
    venue.cancelScript = (n) => {
      if (n !== filled) return undefined;
      venue.open.delete(n);
      return { ok: true, nonce: n, alreadyCancelled: true };
    };
    const before = events.length;
    const r = await om.cancelAll();
    assert.deepEqual(
      { ok: r.ok, cancelled: r.cancelled, endedBefore: r.endedBefore, remaining: r.remaining },
      { ok: true, cancelled: 3, endedBefore: 1, remaining: 0 },
    );
    assert.deepEqual(om.endedAtStop(), [{ nonce: filled, marketId: M1, answered: true }], 'its end is read by the final sweep');
    // the answer is told as it was (the ledger records it, not as an end), never as a cancel that ended it
    assert.deepEqual(
      events
        .slice(before)
        .filter((e) => (e.type === 'OrderGone' || e.type === 'OrderCancelled') && e.nonce === filled)
        .map((e) => (e.type === 'OrderCancelled' ? e.alreadyCancelled : e.type)),
      [true],
      "told as answered alreadyCancelled only (the ledger ended such an order 'cancelled' before)",
    );
    assert.equal(events.filter((e) => e.type === 'OrderCancelled' && !e.alreadyCancelled).length, 3, 'the three it did cancel');
    // every cancel the stop sent is told as sent (the ledger's cancelsSent)
    assert.equal(events.slice(before).filter((e) => e.type === 'CancelSubmitted').length, 4);
  });

  it('a set queued behind a call when cancelAll clears it: the chain still ends, and a call after resume() counts as pending work', async () => {
    const { venue, om } = setup();
    let release = holdVenue(venue);
    const first = om.sync(M1, quotes(500_000)); // its call is held at the venue
    await turn();
    const second = om.sync(M1, quotes(600_000)); // queued behind it
    assert.equal(om.hasPendingWork(M1), true);
    const stop = om.cancelAll(); // clears the queued set, waits for the call out
    release();
    venue.hold = null;
    await Promise.all([first, second, stop]);
    assert.equal(om.hasPendingWork(M1), false, 'both runs of the chain ended');
    assert.equal(venue.open.size, 0);
    om.resume();
    release = holdVenue(venue);
    const third = om.sync(M1, quotes(500_000));
    await turn();
    await turn();
    // the run has taken its set and its call is out: the market's chain is pending work
    assert.equal(venue.calls.filter((c) => c.kind === 'batch').length, 3, 'the first call, the stop, this one');
    assert.equal(om.hasPendingWork(M1), true);
    assert.equal(om.isIdle(M1), false);
    release();
    venue.hold = null;
    await third;
    assert.equal(om.hasPendingWork(M1), false);
    assert.equal(venue.open.size, 4);
  });

  it('is bounded: reports failure when orders will not go', async () => {
    const { venue, om } = setup({ cancelAllRounds: 3 });
    await om.sync(M1, quotes(500_000));
    venue.cancelScript = (n) => ({ ok: false, nonce: n, code: 'server-error', message: '500', retryable: true });
    const r = await om.cancelAll();
    assert.deepEqual({ ok: r.ok, rounds: r.rounds, remaining: r.remaining }, { ok: false, rounds: 3, remaining: 4 });
  });

  it('a reused nonce is a broken invariant: halt cancels all and calls onHalt', async () => {
    const fixed = new Uint8Array(32).fill(7);
    const box: { halted: Error | null } = { halted: null };
    const { venue, om } = setup({ nonces: new NonceSource(10, () => fixed), onHalt: (e) => (box.halted = e) });
    await om.sync(M1, quotes(500_000));
    assert.ok(box.halted instanceof InvariantError);
    assert.equal(om.isHalted, true);
    assert.equal(om.ready, false);
    assert.equal(venue.open.size, 0);
  });
});

describe('OrderManager: orders gone without their fills seen are parked (settleMs)', () => {
  const ended = (events: OrderManagerEvent[], nonce: string) =>
    events.filter((e) => (e.type === 'OrderGone' || e.type === 'OrderCancelled') && e.nonce.toLowerCase() === nonce.toLowerCase());

  it('a vanished order frees its slot at once but its end reaches the store only when settled or filled', async () => {
    const { venue, clock, om, events } = setup({ settleMs: 3_000 });
    await om.sync(M1, quotes(500_000));
    const [gone, filled] = [...venue.open.keys()] as Bytes32[];
    venue.open.delete(gone!); // filled at the venue; the fills feed has not reported it yet
    venue.open.delete(filled!);
    await om.reconcile(M1);
    assert.equal(om.parkedCount, 2);
    assert.equal(ended(events, gone!).length, 0, 'the store still counts it');
    // the slots are free: the next sync re-places both orders
    await om.sync(M1, quotes(500_000));
    assert.equal(venue.open.size, 4);
    // the feed reports one closed, the other's fills use it up
    om.settle(gone!);
    assert.equal(ended(events, gone!).length, 1);
    om.applyFill(filled!, 10_000_000);
    assert.equal(ended(events, filled!).length, 1);
    assert.equal(om.parkedCount, 0);
    clock.t += 10_000;
    om.positionsRead(M1, clock.t);
    await om.sync(M1, quotes(500_000));
    assert.equal(ended(events, gone!).length + ended(events, filled!).length, 2, 'ended once each');
  });

  it('a desired set checked before an order was found gone only cancels: the gate had taken that order as the quote', async () => {
    const { venue, om } = setup({ settleMs: 30_000 });
    const q = quotes(500_000);
    await om.sync(M1, q, om.exposureVersion(M1));
    const checked = om.exposureVersion(M1); // the gate passes q again: identical to the live orders
    const [gone] = [...venue.open.keys()] as Bytes32[];
    venue.open.delete(gone!); // filled at the venue, fills not reported yet
    await om.reconcile(M1);
    assert.equal(om.parkedCount, 1);
    assert.ok(om.exposureVersion(M1) > checked, 'an order found gone moves the version');
    await om.sync(M1, q, checked); // re-placing the gone order now would add exposure nobody checked
    assert.equal(venue.open.size, 3);
    await om.sync(M1, q, om.exposureVersion(M1)); // a set checked with the order parked (counted)
    assert.equal(venue.open.size, 4);
    // a cancel refused for good (the order had filled) moves the version too; so does a position sync
    const before = om.exposureVersion(M1);
    venue.cancelScript = (x) => ({ ok: false, nonce: x, code: 'not-found', message: '404', retryable: false });
    await om.sync(M1, q.slice(1), before);
    assert.ok(om.exposureVersion(M1) > before, 'a cancel refused for good moves the version');
    const v = om.exposureVersion(M1);
    om.exposureChanged(M1);
    assert.equal(om.exposureVersion(M1), v + 1);
    assert.equal(om.exposureVersion(M2), 0, 'per market');
  });

  it('an answered cancel is parked until a positions read begun settleMs after it has landed (a fill may have raced it)', async () => {
    const { venue, clock, om, events } = setup({ settleMs: 3_000 });
    await om.sync(M1, quotes(500_000));
    await om.sync(M2, quotes(500_000, M2));
    const nonces = [...venue.open.values()].filter((o) => o.marketId === M1).map((o) => o.nonce);
    const cancelledAt = clock.t;
    await om.sync(M1, []);
    await om.sync(M2, []);
    assert.equal(venue.open.size, 0);
    assert.equal(om.parkedCount, 8);
    assert.equal(events.filter((e) => e.type === 'OrderCancelled').length, 0);
    clock.t += 60_000; // time alone releases nothing: the balance reads may all have failed
    await om.sync(M1, []);
    assert.equal(om.parkedCount, 8);
    om.positionsRead(M1, cancelledAt + 2_999); // begun too soon: the venue may not have settled a raced fill
    assert.equal(om.parkedCount, 8);
    // (the venue's spelling of an id is normalised where the client reads it: src/model/ids.ts)
    om.positionsRead(M1, cancelledAt + 3_000);
    assert.equal(om.parkedCount, 4, "the other market's orders wait for their own read");
    for (const n of nonces) assert.equal(ended(events, n).length, 1);
    assert.equal(om.isIdle(M2), false, 'parked orders keep their market busy');
    om.positionsRead(M2, cancelledAt + 3_000);
    assert.equal(om.parkedCount, 0);
    assert.equal(om.isIdle(M2), true);
  });

  it('without settleMs (the default) nothing is parked: ends are reported at once', async () => {
    const { venue, om, events } = setup();
    await om.sync(M1, quotes(500_000));
    await om.sync(M1, []);
    assert.equal(om.parkedCount, 0);
    assert.equal(events.filter((e) => e.type === 'OrderCancelled').length, 4);
    assert.equal(venue.open.size, 0);
  });

  it('cancelAll lets a parked order whose end no answer stated (found gone, answered alreadyCancelled) go to the sweep, a parked cancel of ours with its OrderCancelled', async () => {
    const { venue, om, events } = setup({ settleMs: 60_000 });
    await om.sync(M1, quotes(500_000));
    const [gone, already] = [...venue.open.keys()] as Bytes32[];
    venue.open.delete(gone!); // filled at the venue; no feed has said so
    await om.reconcile(M1);
    venue.cancelScript = (n) => {
      if (n !== already) return undefined;
      venue.open.delete(n); // filled just before our cancel came
      return { ok: true, nonce: n, alreadyCancelled: true };
    };
    await om.sync(M1, []);
    assert.equal(om.parkedCount, 4);
    const r = await om.cancelAll();
    assert.equal(r.ok, true);
    assert.equal(om.parkedCount, 0);
    assert.deepEqual(
      om.endedAtStop().sort((a, b) => a.nonce.localeCompare(b.nonce)),
      [
        { nonce: gone!, marketId: M1 },
        { nonce: already!, marketId: M1, answered: true as const },
      ].sort((a, b) => a.nonce.localeCompare(b.nonce)),
      'their ends are read by the final sweep',
    );
    assert.deepEqual(ended(events, gone!), [], "no guessed end ('gone')");
    assert.deepEqual(
      ended(events, already!).map((e) => e.type === 'OrderCancelled' && e.alreadyCancelled),
      [true],
      'the answer it waited with, alreadyCancelled (not an end)',
    );
    assert.equal(events.filter((e) => e.type === 'OrderCancelled' && !e.alreadyCancelled).length, 2, 'the two it cancelled end as cancelled');
  });

  it('cancelAll releases parked orders once the venue shows none open', async () => {
    const { venue, om, events } = setup({ settleMs: 60_000 });
    await om.sync(M1, quotes(500_000));
    await om.sync(M1, []);
    assert.equal(om.parkedCount, 4);
    const r = await om.cancelAll();
    assert.equal(r.ok, true);
    assert.equal(om.parkedCount, 0);
    assert.equal(events.filter((e) => e.type === 'OrderCancelled').length, 4);
    assert.equal(venue.open.size, 0);
  });
});

describe('OrderManager: remaining size from fills and from the venue never counts a fill twice', () => {
  // The risk gate takes a desired quote identical to a counted order as that order and adds nothing
  // for it. A fill the venue's answer shows before the fills feed reports it must therefore not
  // free the order's slot or shrink it in the diff: the quote placed again (or topped up) plus the
  // fill would pass the limit the gate checked. The likeliest cause of a chaos-run excess: a stall
  // hid a book that moved past our asks, which filled on arrival and were placed again.
  /** One ask placed and answered with `remaining` of its 10 shares left (the rest traded at once). */
  async function askFilledOnArrival(remaining: number) {
    const { venue, om } = setup();
    const ask = quotes(500_000).slice(2, 3);
    venue.createScript = (p) => ({ ok: true, nonce: p.nonce, order: venueOrder(p, remaining), duplicate: false });
    await om.sync(M1, ask, om.exposureVersion(M1));
    const [n] = [...venue.open.keys()] as Bytes32[];
    if (remaining === 0) venue.open.delete(n!);
    else venue.open.set(n!, { ...venue.open.get(n!)!, remainingSize: remaining, filledSize: 10_000_000 - remaining });
    venue.createScript = () => undefined;
    return { venue, om, ask, n: n!, calls: venue.venueCalls().length };
  }

  it('a quote filled on arrival keeps its slot until the fills feed reports the fill', async () => {
    const { venue, om, ask, n, calls } = await askFilledOnArrival(0);
    await om.sync(M1, ask, om.exposureVersion(M1)); // the same quote, checked with the order counted
    await om.refreshAll();
    assert.equal(venue.venueCalls().length, calls, 'not placed again before the fill is in the position');
    assert.equal(om.tracked(M1).length, 1);
    om.applyFill(n, 10_000_000);
    assert.equal(om.tracked(M1).length, 0);
    await om.sync(M1, ask, om.exposureVersion(M1)); // checked against a position holding the fill
    assert.equal(venue.venueCalls().length, calls + 1);
    assert.equal(venue.open.size, 1);
  });

  it('a quote partly filled on arrival is not topped up before the fill is reported', async () => {
    const { venue, om, ask, n, calls } = await askFilledOnArrival(4_000_000);
    await om.sync(M1, ask, om.exposureVersion(M1));
    assert.equal(venue.venueCalls().length, calls, 'no top-up from 4 to 10 while the 6 filled are not counted');
    om.applyFill(n, 6_000_000);
    await om.sync(M1, ask, om.exposureVersion(M1));
    assert.equal(venue.venueCalls().at(-1)!.kind, 'cancel-replace');
  });

  it('a reconcile that already saw a partial fill, then the same fill from the feed: the order stays', async () => {
    const { venue, om, events } = setup();
    await om.sync(M1, quotes(500_000));
    // the ask at level 0 is a sell: its venue remaining is in shares
    const ask = om.tracked(M1).find((t) => t.slot.endsWith(':ask:0'))!;
    const n = ask.planned.nonce;
    venue.open.set(n, venueOrder(ask.planned, 2_000_000)); // 8 of 10 shares filled at the venue
    await om.reconcile(M1);
    assert.equal(om.tracked(M1).find((t) => t.planned.nonce === n)!.remaining, 10_000_000, 'counted whole until the feed reports the fill');
    om.applyFill(n, 8_000_000); // the fills feed reports those 8 shares a moment later
    const after = om.tracked(M1).find((t) => t.planned.nonce === n);
    assert.ok(after, 'still tracked: 2 shares rest at the venue');
    assert.equal(after.remaining, 2_000_000);
    assert.equal(events.filter((e) => e.type === 'OrderRemainingChanged' && e.nonce === n && e.remaining === 0).length, 0);
    // a later fill of the rest ends it
    om.applyFill(n, 2_000_000);
    assert.equal(
      om.tracked(M1).find((t) => t.planned.nonce === n),
      undefined,
    );
  });
});

describe('OrderManager: decide, sign, write, then update the state', () => {
  it("a call's order events go out after the venue has the call, in the same turn and in order (bulk and cancel-replace)", async () => {
    const { venue, om, events } = setup();
    const atCall: string[][] = [];
    const afterTurn: string[][] = [];
    const types = () => events.map((e) => e.type);
    const watch =
      <A extends unknown[], R>(f: (...a: A) => R) =>
      (...a: A): R => {
        atCall.push(types());
        const r = f(...a);
        // a microtask runs once the synchronous hand-over is over, before anything else can
        queueMicrotask(() => afterTurn.push(types()));
        return r;
      };
    venue.batch = watch(venue.batch.bind(venue));
    venue.cancelReplace = watch(venue.cancelReplace.bind(venue));
    await om.sync(M1, quotes(500_000));
    assert.deepEqual(atCall[0], [], 'nothing emitted before the first call is handed over');
    assert.deepEqual(afterTurn[0], Array(4).fill('OrderSubmitted'));
    // a requote of all four: 4 cancels + 4 creates in one bulk call
    await om.sync(M1, quotes(600_000));
    const before = atCall[1]!.length;
    assert.equal(afterTurn[1]!.length - before, 8);
    const requote = afterTurn[1]!.slice(before);
    assert.equal(requote.filter((t) => t === 'CancelSubmitted').length, 4, requote.join());
    assert.equal(requote.filter((t) => t === 'OrderSubmitted').length, 4, requote.join());
    // one quote moved: one cancel-replace call
    const moved = quotes(600_000);
    moved[0] = { slot: moved[0]!.slot, order: order(600_000 - 50_000) };
    await om.sync(M1, moved);
    assert.equal(venue.venueCalls().at(-1)?.kind, 'cancel-replace');
    const b2 = atCall[2]!.length;
    assert.deepEqual(afterTurn[2]!.slice(b2), ['CancelSubmitted', 'OrderSubmitted']);
    // each order's events in their order: submitted before accepted
    const firstAccepted = events.findIndex((e) => e.type === 'OrderAccepted');
    assert.ok(events.slice(0, firstAccepted).filter((e) => e.type === 'OrderSubmitted').length === 4);
  });
});

describe('OrderManager: batch answers', () => {
  it('answers out of order are matched by nonce; an item left unanswered is a retryable failure and resent', async () => {
    const { venue, om, of } = setup();
    let dropped: Bytes32 | null = null;
    const batch = venue.batch.bind(venue);
    // the venue answers the creates in reverse and leaves the last one out
    venue.batch = async (creates, cancels) => {
      const res = await batch(creates, cancels);
      const reversed = [...res.creates].reverse();
      dropped = reversed.pop()!.nonce;
      return { cancels: res.cancels, creates: reversed };
    };
    await om.sync(M1, quotes(500_000));
    const accepted = of('OrderAccepted').map((e) => e.nonce);
    assert.equal(accepted.length, 3);
    assert.ok(dropped !== null && !accepted.includes(dropped));
    const rejected = of('OrderRejected');
    assert.deepEqual(
      rejected.map((e) => [e.nonce, e.reason, e.retryable]),
      [[dropped, 'no-answer', true]],
    );
    // the unanswered create stays in flight and is resent with its own nonce on the next sync
    venue.batch = batch;
    await om.sync(M1, quotes(500_000));
    const resent = venue.venueCalls().at(-1)!;
    assert.ok(resent.kind === 'batch' && resent.creates.length === 1 && resent.creates[0]!.nonce === dropped);
    assertOnePerSlot(venue, om);
  });
});
