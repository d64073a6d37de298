import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fatalRefusal, refusalLabel } from '../../src/orders/refusal.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import type { OrderManagerEvent } from '../../src/state/events.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1, M2, venueOrder, refuseInsufficientBalance } from './fake-venue.ts';

test('the metric label is the venue code from a bounded set; unknown codes are other; no code → the classifier reason', () => {
  assert.equal(refusalLabel({ code: 'bad-request', message: 'x', status: 400, venueCode: 'INSUFFICIENT_BALANCE' }), 'INSUFFICIENT_BALANCE');
  assert.equal(refusalLabel({ code: 'forbidden', message: 'x', status: 403, venueCode: 'FORBIDDEN' }), 'FORBIDDEN');
  assert.equal(refusalLabel({ code: 'bad-request', message: 'x', status: 400, venueCode: 'SOMETHING_NEW_1234' }), 'other');
  assert.equal(refusalLabel({ code: 'network', message: 'socket hang up' }), 'network');
  assert.equal(refusalLabel({ code: 'timeout', message: 't' }), 'timeout');
  assert.equal(refusalLabel({ code: 'forbidden', message: 'x', status: 403 }), 'FORBIDDEN');
  assert.equal(refusalLabel({ code: 'bad-request', message: 'x', status: 400 }), 'VALIDATION_ERROR');
  assert.equal(refusalLabel({ code: 'conflict', message: 'x' }), 'other');
});

test('refusals no create can get past are fatal, with a cause and a fix; per-order refusals are not', () => {
  const mismatch = fatalRefusal({
    code: 'forbidden',
    status: 403,
    venueCode: 'FORBIDDEN',
    message: "orders[0].trader: orders may only be placed for this API key's wallet",
  });
  assert.ok(mismatch);
  assert.match(mismatch.cause, /another wallet/);
  assert.match(mismatch.fix, /API key issued for the signing wallet/);
  assert.match(fatalRefusal({ code: 'unauthorized', status: 401, venueCode: 'UNAUTHORIZED', message: 'unknown key' })!.fix, /valid API key/);
  assert.match(fatalRefusal({ code: 'invalid-signature', status: 400, venueCode: 'INVALID_SIGNATURE', message: 'bad sig' })!.fix, /private key/);
  assert.match(fatalRefusal({ code: 'forbidden', status: 403, message: 'missing permission trade' })!.fix, /permission/);
  assert.equal(fatalRefusal({ code: 'bad-request', status: 400, venueCode: 'INSUFFICIENT_BALANCE', message: 'not enough' }), null);
  assert.equal(fatalRefusal({ code: 'network', message: 'reset' }), null);
  assert.equal(fatalRefusal({ code: 'rate-limited', status: 429, venueCode: 'RATE_LIMITED', message: 'slow down' }), null);
});

function setup(ownMarkets?: (typeof M1)[]) {
  const venue = new FakeVenue();
  const clock = new ManualClock();
  const events: OrderManagerEvent[] = [];
  let halted: Error | null = null;
  const om = new OrderManager({
    venue,
    clock,
    tolerances: { price: 0, sizeFraction: 0.1 },
    emit: (e) => events.push(e),
    cancelAllDelayMs: 0,
    onHalt: (err) => (halted = err),
    ...(ownMarkets ? { ownMarkets } : {}),
  });
  return { venue, om, events, halted: () => halted };
}

const desired = (marketId: typeof M1) => [
  { slot: `${marketId}:b0`, order: { marketId, outcomeIndex: 1 as const, side: 0 as const, price: 480_000, size: 10_000_000, inventoryMode: 0 as const } },
];

test('a 403 wallet/key mismatch halts the order manager with the cause and the fix; the event keeps status, code and message', async () => {
  const { venue, om, events, halted } = setup();
  venue.createScript = (p) => ({
    ok: false,
    nonce: p.nonce,
    code: 'forbidden',
    message: "orders may only be placed for this API key's wallet",
    retryable: false,
    status: 403,
    venueCode: 'FORBIDDEN',
  });
  await om.reconcile();
  await om.sync(M1, desired(M1));
  for (let i = 0; i < 20 && !halted(); i++) await new Promise((r) => setImmediate(r));
  const err = halted();
  assert.ok(err, 'halted');
  assert.match(err.message, /another wallet.*Fix: use the API key issued for the signing wallet/);
  const rej = events.find((e) => e.type === 'OrderRejected');
  assert.ok(rej && rej.type === 'OrderRejected');
  assert.equal(rej.status, 403);
  assert.equal(rej.venueCode, 'FORBIDDEN');
  assert.match(rej.message ?? '', /API key's wallet/);
  // the refused call counts as failed for the error-rate kill switch
  assert.ok(events.some((e) => e.type === 'VenueCallCompleted' && e.call === 'batch' && !e.ok));
});

test('an insufficient-balance refusal does not halt, but counts as a failed call', async () => {
  const { venue, om, events, halted } = setup();
  venue.createScript = refuseInsufficientBalance;
  await om.reconcile();
  await om.sync(M1, desired(M1));
  assert.equal(halted(), null);
  assert.ok(events.some((e) => e.type === 'VenueCallCompleted' && e.call === 'batch' && !e.ok));
  venue.createScript = () => undefined;
});

test('reconcileScope markets: orders of other markets in the wallet are neither cancelled at start-up nor at stop', async () => {
  const { venue, om } = setup([M1]);
  const mine = { marketId: M1, outcomeIndex: 1 as const, side: 0 as const, price: 300_000, size: 1_000_000, nonce: ('0x' + '0c'.repeat(32)) as typeof M1 };
  const someoneElses = { ...mine, marketId: M2, nonce: ('0x' + '0d'.repeat(32)) as typeof M1 };
  venue.open.set(mine.nonce, venueOrder(mine));
  venue.open.set(someoneElses.nonce, venueOrder(someoneElses));
  await om.reconcile(undefined, []);
  assert.ok(!venue.open.has(mine.nonce), 'a stranger in a managed market is cancelled');
  assert.ok(venue.open.has(someoneElses.nonce), 'an order in another market is left alone');
  const r = await om.cancelAll();
  assert.equal(r.ok, true);
  assert.ok(venue.open.has(someoneElses.nonce));
});

test("reconcileScope wallet (default): every open order of the wallet is the bot's", async () => {
  const { venue, om } = setup();
  const other = { marketId: M2, outcomeIndex: 1 as const, side: 0 as const, price: 300_000, size: 1_000_000, nonce: ('0x' + '0e'.repeat(32)) as typeof M1 };
  venue.open.set(other.nonce, venueOrder(other));
  await om.reconcile(undefined, []);
  assert.equal(venue.open.size, 0);
});

test('reconcileScope markets with a changing set (rotation, reload, shards): setOwnMarkets moves the boundary', async () => {
  const { venue, om } = setup([M1]);
  const inM2 = { marketId: M2, outcomeIndex: 1 as const, side: 0 as const, price: 300_000, size: 1_000_000, nonce: ('0x' + '1a'.repeat(32)) as typeof M1 };
  venue.open.set(inM2.nonce, venueOrder(inM2));
  await om.reconcile(undefined, []);
  assert.ok(venue.open.has(inM2.nonce), 'M2 is not ours yet');
  om.setOwnMarkets([M1, M2]);
  assert.deepEqual(om.ownMarkets()?.sort(), [M1, M2].sort());
  await om.reconcile(undefined, []);
  assert.ok(!venue.open.has(inM2.nonce), 'once M2 is ours, its stranger is cancelled');
  // the market moved to another instance: its orders are that instance's now
  const again = { ...inM2, nonce: ('0x' + '1b'.repeat(32)) as typeof M1 };
  venue.open.set(again.nonce, venueOrder(again));
  om.setOwnMarkets([M1]);
  const r = await om.cancelAll();
  assert.equal(r.ok, true);
  assert.ok(venue.open.has(again.nonce), 'cancelAll leaves a market no longer ours alone');
  om.setOwnMarkets(null);
  assert.equal(om.ownMarkets(), null);
  await om.cancelAll();
  assert.equal(venue.open.size, 0, 'null: the whole wallet is ours again');
});
