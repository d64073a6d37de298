import assert from 'node:assert/strict';
import { test } from 'node:test';
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { parseFeeds, parseOrders } from '../../src/config/parse-settings.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { EventBus } from '../../src/kernel/event-bus.ts';
import { createTradingCore, deadManSeconds, type CoreConfig } from '../../src/kernel/trading-core.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { NonceSource } from '../../src/orders/nonces.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1 } from '../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../support/quoting.ts';

const params = bands.parseConfig(ONE_BAND, 'strategy');
const config: CoreConfig = {
  orders: parseOrders({ requoteIntervalSeconds: 0.25, deadManExpirySeconds: 60 }, 'orders'),
  feeds: parseFeeds(undefined, 'feeds'),
  edge: undefined,
};

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);

function core(deferStart = false, latched = false) {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const c = createTradingCore({
    config,
    clock,
    venue,
    nonces: new NonceSource(),
    markets: [{ marketId: M1, strategy: bands, params, risk: DEFAULT_RISK }],
    logger: silentLogger,
    kernel: { deferStart, ...(latched ? { latched: 'KILL_LATCHED' as const } : {}) },
  });
  return { clock, venue, c };
}

test('the bus tells record listeners before the state step and react listeners after it, each stage in the order added', () => {
  const bus = new EventBus<number>();
  const seen: string[] = [];
  bus.on('react', (e) => seen.push(`react1 ${e}`));
  bus.on('record', (e) => seen.push(`record1 ${e}`));
  const off = bus.on('react', (e) => seen.push(`react2 ${e}`));
  bus.on('record', (e) => seen.push(`record2 ${e}`));
  bus.publish(7, (e) => seen.push(`apply ${e}`));
  assert.deepEqual(seen, ['record1 7', 'record2 7', 'apply 7', 'react1 7', 'react2 7']);
  seen.length = 0;
  off();
  bus.publishAll([1, 2], (es) => seen.push(`apply ${es.join(',')}`));
  assert.deepEqual(seen, ['record1 1', 'record2 1', 'record1 2', 'record2 2', 'apply 1,2', 'react1 1', 'react1 2']);
});

test('an event received goes through the bus around the kernel: recorded before the store has it, told after', async () => {
  const { clock, venue, c } = core();
  const atRecord: boolean[] = [];
  const atReact: boolean[] = [];
  const has = (): boolean => c.store.state.markets.get(M1.toLowerCase())?.books.yes != null;
  c.inbound.on('record', () => atRecord.push(has()));
  c.inbound.on('react', () => atReact.push(has()));
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  assert.deepEqual(atRecord, [false]);
  assert.deepEqual(atReact, [true]);
  await c.kernel.flush();
  assert.equal(venue.open.size, 2, 'the kernel ticked on the book and quoted');
  c.kernel.stop();
});

test("the order manager's events reach the store through the kernel, then the order-event listeners", async () => {
  const { clock, c } = core();
  const told: { type: string; inStore: boolean }[] = [];
  c.orderEvents.on('react', (e) => {
    const nonce = 'nonce' in e ? String(e.nonce).toLowerCase() : '';
    told.push({ type: e.type, inStore: c.store.state.markets.get(M1.toLowerCase())?.orders.has(nonce) ?? false });
  });
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  const accepted = told.filter((t) => t.type === 'OrderAccepted');
  assert.equal(accepted.length, 2);
  assert.ok(
    accepted.every((t) => t.inStore),
    'the store has each accepted order before a listener is told',
  );
  c.kernel.stop();
});

test('a core built with deferStart fills its state but does not tick until started', async () => {
  const { clock, venue, c } = core(true);
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  clock.advance(5_000);
  await c.kernel.flush();
  assert.ok(c.store.state.markets.get(M1.toLowerCase())?.books.yes, 'the book is in the store');
  assert.equal(venue.calls.length, 0, 'nothing sent before start');
  c.kernel.start();
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  assert.equal(venue.open.size, 2);
  c.kernel.stop();
});

test('a latched core built with deferStart and cleared before start (an operator during the start-up reconcile) ticks only once started', async () => {
  const { clock, venue, c } = core(true, true);
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  assert.equal(c.kernel.clearKill(), true, 'the latch is cleared');
  assert.equal(c.kernel.killed, null);
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  clock.advance(5_000);
  await c.kernel.flush();
  assert.equal(venue.calls.length, 0, 'nothing sent before start');
  assert.equal(c.kernel.isStopped, true);
  c.kernel.start();
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  assert.equal(venue.open.size, 2, 'quoting once started');
  c.kernel.stop();
});

test('live and backtest sign one dead-man expiry: whole seconds, at least 2, 0 = off', () => {
  assert.equal(deadManSeconds(0), 0);
  assert.equal(deadManSeconds(1_000), 2);
  assert.equal(deadManSeconds(60_000), 60);
  assert.equal(deadManSeconds(90_400), 90);
});

test("a venue call's events reach the store together as it goes out and as its answer comes back; listeners are told each, in order", async () => {
  const { clock, venue, c } = core();
  const reductions: string[][] = [];
  const sub = c.store.changes$.subscribe(({ events }) => reductions.push(events.map((e) => e.type)));
  const told: string[] = [];
  c.orderEvents.on('react', (e) => told.push(e.type));
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  assert.equal(venue.open.size, 2);
  // a pull (the operator pauses the market): both quotes are cancelled in one call
  c.kernel.pause(M1);
  await c.kernel.flush();
  sub.unsubscribe();
  const own = reductions.filter((r) => r[0] !== 'BookEventReceived');
  assert.deepEqual(own, [
    ['OrderSubmitted', 'OrderSubmitted'],
    ['VenueCallCompleted', 'OrderAccepted', 'OrderAccepted'],
    ['CancelSubmitted', 'CancelSubmitted'],
    ['VenueCallCompleted', 'OrderCancelled', 'OrderCancelled'],
  ]);
  assert.deepEqual(told, own.flat(), 'every event told, in the order the store reduced them');
  assert.equal(venue.open.size, 0);
  assert.equal(c.store.state.markets.get(M1.toLowerCase())!.orders.size, 0, 'the store holds what the venue holds: nothing');
  c.kernel.stop();
});

test("a listener that throws on one of a call's events is logged; the store has them all and the other events are still told", async () => {
  const { clock, venue, c } = core();
  const told: string[] = [];
  c.orderEvents.on('react', (e) => {
    if (e.type === 'OrderSubmitted') throw new Error('listener broke');
  });
  c.orderEvents.on('react', (e) => told.push(e.type));
  c.receive(book(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  assert.equal(venue.open.size, 2, 'the orders went out');
  assert.deepEqual(told, ['VenueCallCompleted', 'OrderAccepted', 'OrderAccepted'], 'a throw stops that event, not the next ones');
  const orders = [...c.store.state.markets.get(M1.toLowerCase())!.orders.values()];
  assert.deepEqual(
    orders.map((o) => o.state),
    ['working', 'working'],
  );
  c.kernel.stop();
});

test('the kernel, order manager and reconciler options have one shape whatever the caller passes (one V8 map for every core)', () => {
  const clock = new ManualClock(1_800_000_000_000);
  const bare = createTradingCore({ config, clock, venue: new FakeVenue(), nonces: new NonceSource(), markets: [], logger: silentLogger });
  const full = createTradingCore({
    config: { ...config, orders: parseOrders({ requoteIntervalSeconds: 1 }, 'orders') },
    clock,
    venue: new FakeVenue(),
    nonces: new NonceSource(),
    markets: [],
    logger: silentLogger,
    settleMs: 30_000,
    ownMarkets: [M1],
    fees: { makerBps: 0, takerBps: 50 },
    onHalt: () => {},
    kernel: { onTick: () => {}, onTickStart: () => {}, timer: () => 0, deferStart: true },
  });
  type Opened = { kernel: { opts: object }; orderManager: { opts: object; rec: { d: object } } };
  const shapes = (c: unknown) => {
    const o = c as Opened;
    return { kernel: Object.keys(o.kernel.opts), manager: Object.keys(o.orderManager.opts), reconciler: Object.keys(o.orderManager.rec.d) };
  };
  // the same keys in the same order: the objects share their map (built with spreads, each core's had one of its own)
  assert.deepEqual(shapes(full), shapes(bare));
  // and the hooks given are the kernel's
  assert.equal(typeof (full.kernel as unknown as { opts: { onTick: unknown } }).opts.onTick, 'function');
});
