import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FeedEvent } from '../../../src/feeds/feed-event.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { BookTouches, reaches } from '../../../src/feeds/book-touches.ts';
import { ParkedCancels, type PolledOrder } from '../../../src/feeds/parked-cancels.ts';
import { deltaEvent, streamState } from '../../feeds/trade-event.ts';
import { feedBatchSink, feedSink, storeOrdersOf, touchingSink, tradingTouches } from '../../../src/runtime/phases/feeds.ts';
import bands from '../../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../../src/config/parse-risk.ts';
import { parseFeeds, parseOrders } from '../../../src/config/parse-settings.ts';
import { silentLogger } from '../../../src/core/logger.ts';
import { createTradingCore } from '../../../src/kernel/trading-core.ts';
import { NonceSource } from '../../../src/orders/nonces.ts';
import { ManualClock } from '../../exchange/stream/manual-clock.ts';
import { FakeVenue, M1 } from '../../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../../support/quoting.ts';
import type { StateStore } from '../../../src/state/store.ts';
import type { StateEvent } from '../../../src/state/events.ts';

const KNOWN = ('0x' + 'aa'.repeat(32)) as Bytes32;
const GONE = ('0x' + 'bb'.repeat(32)) as Bytes32;
const fe = (event: StateEvent, source = 'test'): FeedEvent => ({ source, event, venueTs: 0, localTs: 0 });

function harness(throwOn?: StateEvent['type']) {
  const received: StateEvent[] = [];
  const retained: Bytes32[] = [];
  const errors: string[] = [];
  const sink = feedSink(
    { known: (id) => id.toLowerCase() === KNOWN, retain: (id) => void retained.push(id) },
    (e) => {
      if (e.type === throwOn) throw new Error('boom');
      received.push(e);
    },
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  return { sink, received, retained, errors };
}

test('market data of a market the bot no longer follows is dropped; of a followed one it goes in', () => {
  const h = harness();
  h.sink(fe({ type: 'OracleUpdated', marketId: GONE, probability: 0.5, confidence: 1, ts: 1 } as StateEvent));
  h.sink(fe({ type: 'MarketMetadataUpdated', marketId: GONE, status: 'active', ts: 1 } as StateEvent));
  h.sink(fe({ type: 'PositionSynced', marketId: GONE, yes: 0, no: 0, ts: 1 }));
  assert.equal(h.received.length, 0);
  h.sink(fe({ type: 'OracleUpdated', marketId: KNOWN, probability: 0.5, confidence: 1, ts: 1 } as StateEvent));
  h.sink(fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }));
  assert.deepEqual(
    h.received.map((e) => e.type),
    ['OracleUpdated', 'BalanceUpdated'],
  );
  assert.deepEqual(h.retained, []);
});

test('a real fact of a released market (a position still held) goes in and the market is followed again', () => {
  const h = harness();
  h.sink(fe({ type: 'PositionSynced', marketId: GONE, yes: 3, no: 0, ts: 1 }));
  assert.equal(h.received.length, 1);
  assert.deepEqual(h.retained, [GONE], 'retained after the state has it');
  h.sink(fe({ type: 'PositionSynced', marketId: KNOWN, yes: 3, no: 0, ts: 1 }));
  assert.deepEqual(h.retained, [GONE], 'a followed market is not retained again');
});

test('a failure downstream is reported with its source and does not reach the feed', () => {
  const h = harness('BalanceUpdated');
  assert.doesNotThrow(() => h.sink(fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'trading')));
  assert.deepEqual(h.errors, ['trading: boom']);
});

function batchHarness() {
  const calls: string[] = [];
  const retained: Bytes32[] = [];
  const errors: string[] = [];
  const lists = { known: (id: string) => id.toLowerCase() === KNOWN, retain: (id: Bytes32) => void retained.push(id) };
  const one = feedSink(
    lists,
    (e) => void calls.push(`one ${e.type}`),
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  const sink = feedBatchSink(
    lists,
    one,
    (es) => void calls.push(`batch ${es.map((e) => (e.type === 'PositionSynced' ? `${e.type}:${e.yes}` : e.type)).join(',')}`),
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  return { sink, calls, retained, errors };
}

test('a poll read goes in as one batch per run of balance events; fills before it go one by one, first', () => {
  const h = batchHarness();
  const fill = { type: 'OrderFilled', marketId: KNOWN, ts: 1 } as unknown as StateEvent;
  h.sink([
    fe(fill, 'account'),
    fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: KNOWN, yes: 1, no: 0, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: GONE, yes: 0, no: 0, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: GONE, yes: 2, no: 0, ts: 1 }, 'account'),
  ]);
  assert.deepEqual(h.calls, ['one OrderFilled', 'batch BalanceUpdated,PositionSynced:1,PositionSynced:2']);
  assert.deepEqual(h.retained, [GONE], 'a stranger still held is followed again, after the batch is in');
  h.sink([]);
  assert.equal(h.calls.length, 2, 'an empty read applies nothing');
});

test('a batch that fails downstream is reported with its source and does not reach the feed', () => {
  const errors: string[] = [];
  const lists = { known: () => true, retain: () => undefined };
  const sink = feedBatchSink(
    lists,
    () => undefined,
    () => {
      throw new Error('boom');
    },
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  assert.doesNotThrow(() => sink([fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'account')]));
  assert.deepEqual(errors, ['account: boom']);
});

test("the book feed's sink shows each book event to the fills poll's marks, then passes it on; the store's orders (in flight too) are where the bot rests", () => {
  const touches = new BookTouches();
  const passed: StateEvent[] = [];
  const sink = touchingSink({ touches, cancels: new ParkedCancels() }, (f) => void passed.push(f.event));
  const trade = {
    type: 'trade',
    marketId: KNOWN,
    outcomeIndex: 1,
    seq: 4,
    price: 450_000,
    size: 1_000_000,
    takerSide: 'sell',
    venueTs: 0,
    localTs: 0,
  } as const;
  sink(fe({ type: 'BookEventReceived', event: trade, ts: 1 }));
  sink(fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }));
  assert.deepEqual(
    passed.map((e) => e.type),
    ['BookEventReceived', 'BalanceUpdated'],
  );
  const marks = touches.take();
  assert.deepEqual([...marks.keys()], [KNOWN], 'the trade marked its market (old code: no marks)');
  const order = (price: number) => ({ order: { marketId: KNOWN, outcomeIndex: 1, side: 0, price, size: 5_000_000 }, state: 'in-flight' });
  const store = {
    state: {
      markets: new Map([
        [
          KNOWN,
          {
            orders: new Map([
              ['n1', order(440_000)],
              ['n2', order(460_000)],
            ]),
          },
        ],
      ]),
    },
  } as unknown as StateStore;
  const ofKnown = [...storeOrdersOf(store)(KNOWN)];
  assert.deepEqual(
    ofKnown.map((o) => reaches(marks.get(KNOWN)!, o)),
    [false, true],
    'the bid at 0.46 was reached by a sale at 0.45, the one at 0.44 not',
  );
  assert.deepEqual([...storeOrdersOf(store)(GONE)], []);
});

test("an order the bot cancelled waits for its market's stream to pass the next create's insertion, then is released unread: the trading core's order manager parks it, the poll's marks see it", async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const c = createTradingCore({
    config: {
      orders: parseOrders({ requoteIntervalSeconds: 0.25, deadManExpirySeconds: 60 }, 'orders'),
      feeds: parseFeeds(undefined, 'feeds'),
      edge: undefined,
    },
    clock,
    venue,
    nonces: new NonceSource(),
    markets: [{ marketId: M1, strategy: bands, params: bands.parseConfig(ONE_BAND, 'strategy'), risk: DEFAULT_RISK }],
    logger: silentLogger,
    // cancelled orders are parked until their fills are known (the live bot's settle time)
    settleMs: 3_000,
  });
  const { touches, cancels } = tradingTouches(c.orderEvents);
  const parked: Bytes32[] = [];
  let sentAfter = 0; // creates sent after the first park
  c.orderEvents.on('react', (e) => {
    if (e.type === 'OrderParked') parked.push(e.nonce);
    if (e.type === 'OrderSubmitted' && parked.length > 0) sentAfter++;
  });
  c.receive(topOfBook(M1, 480_000, 520_000, clock.now()));
  await c.kernel.flush();
  assert.equal(venue.open.size, 2, 'quoting');
  assert.equal(touches.take().size, 0, 'placing marks nothing');
  // the book moves: the quotes are cancelled and replaced; the cancelled ones are parked
  for (let i = 0; i < 3 && c.orderManager.parkedCount === 0; i++) {
    clock.advance(1_000);
    c.receive(topOfBook(M1, 400_000, 440_000, clock.now()));
    await c.kernel.flush();
  }
  assert.ok(c.orderManager.parkedCount >= 1, 'a cancelled order is parked');
  assert.equal(touches.take().size, 0, 'its market is not marked to be read (old code: marked whole)');
  const first = parked[0]!;
  assert.ok(cancels.size >= 1, 'it waits instead');
  cancels.see(streamState(M1, 'live'));
  // the fake venue states every insertion at 2026-11-21T00:00:00Z: whole seconds, so the witness stands for the end of that second
  const passed = deltaEvent(M1, Date.parse('2026-11-21T00:00:01Z'));
  const orderOf = (): PolledOrder => ({ at: { outcomeIndex: 1, side: 0, price: 100_000 }, owed: false });
  cancels.see(passed);
  assert.deepEqual(cancels.decide(new Map(), orderOf, true).release, [], 'no create was sent after the cancel was answered: no witness yet');
  // the book moves again: the creates of that requote were sent after the first cancel was answered
  for (let i = 0; i < 3 && sentAfter === 0; i++) {
    clock.advance(5_000);
    c.receive(topOfBook(M1, 600_000 + i * 50_000, 640_000 + i * 50_000, clock.now()));
    await c.kernel.flush();
  }
  const d = cancels.decide(new Map(), orderOf, true);
  assert.ok(
    d.release.some((p) => p.nonce === first),
    'released: a create sent after its cancel was answered states its insertion, and the stream passed it',
  );
  c.kernel.stop();
});
