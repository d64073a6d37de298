/**
 * The own-orders poll reading by market: the markets whose trades reached our orders at the next
 * poll, a sweep of the whole open list a few pages a poll for what no stream showed, the whole list
 * when that is cheaper. A fake venue that pages its open orders newest first, by market or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookTouches } from '../../src/feeds/book-touches.ts';
import { ParkedCancels } from '../../src/feeds/parked-cancels.ts';
import { ownOrdersReader } from '../../src/feeds/own-orders-feed.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { BookEvent } from '../../src/model/stream.ts';
import { ordersListClient } from '../support/orders-list-client.ts';
import { settableClock, T0, TRADER, venueOrder } from '../support/venue-order.ts';
import { deltaEvent, streamState, tradeEvent } from './trade-event.ts';

const market = (i: number): Bytes32 => `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32;
const nonce = (i: number): Bytes32 => `0x${(i + 1).toString(16).padStart(62, '0')}ff` as Bytes32;

/** the venue's insertion of the order with id i + 1: one ms apart, in id order */
const at = (i: number): string => new Date(T0 + 1_000 + i).toISOString();

/**
 * `markets` markets with `perMarket` resting orders each: YES bids at 0.45 and asks at 0.55, placed
 * after `history` orders that ended (cancelled, in market 0, nonces from 0xe…).
 */
function fakeVenue(markets: number, perMarket: number, history = 0) {
  const orders: VenueOrder[] = [];
  /** another order, placed now (`o` overrides): a cancelled one by default */
  const add = (o: Partial<VenueOrder> = {}): number => {
    const i = orders.length;
    const n = `0x${(i + 1).toString(16).padStart(62, 'e')}ee` as Bytes32;
    orders.push(venueOrder({ id: i + 1, nonce: n, marketId: market(0), status: 'cancelled', insertedAt: at(i), ...o }));
    return i;
  };
  for (let h = 0; h < history; h++) add();
  for (let m = 0; m < markets; m++)
    for (let j = 0; j < perMarket; j++) {
      const i = orders.length;
      const bid = j % 2 === 0;
      orders.push(venueOrder({ id: i + 1, nonce: nonce(i), marketId: market(m), side: bid ? 0 : 1, price: bid ? 450_000 : 550_000, insertedAt: at(i) }));
    }
  const calls = { pages: 0, byMarket: 0, gets: 0, ended: 0, failNext: false };
  const client = {
    orders: ordersListClient(orders, {
      onList: (p) => {
        if (calls.failNext) {
          calls.failNext = false;
          throw new Error('503');
        }
        if (p.status?.includes('open') === false) calls.ended++;
        else if (p.marketId === undefined) calls.pages++;
        else calls.byMarket++;
      },
      onGet: () => void calls.gets++,
    }),
  };
  /** fill `size` more of order `i` (closing it when nothing remains) */
  const fill = (i: number, size: number): void => {
    const o = orders[i]!;
    const filledSize = o.filledSize + size;
    // the list states the average fill price (at the order's own: a maker's fills)
    orders[i] = { ...o, filledSize, remainingSize: o.size - filledSize, avgFillPrice: o.price, status: filledSize >= o.size ? 'filled' : 'open' };
  };
  /** cancel order `i` (what it filled stays filled) */
  const cancel = (i: number): void => {
    orders[i] = { ...orders[i]!, status: 'cancelled' };
  };
  return { orders, calls, client, fill, cancel, add };
}

const trade = (m: Bytes32, price: number, takerSide: 'buy' | 'sell'): BookEvent => tradeEvent(m, price, takerSide);

const fills = (es: Awaited<ReturnType<ReturnType<typeof ownOrdersReader>>>) =>
  es.flatMap((e) => (e.event.type === 'OrderFilled' ? [{ nonce: e.event.nonce, size: e.event.size }] : []));

function setup(markets: number, perMarket: number, sweepPolls = 30, history = 0) {
  const v = fakeVenue(markets, perMarket, history);
  const touches = new BookTouches();
  const cancels = new ParkedCancels();
  const clock = settableClock();
  const reads = { market: 0, sweep: 0, full: 0, ended: 0, released: 0, sweeps: [] as { ms: number; pages: number }[] };
  const stats = {
    read: (k: 'market' | 'sweep' | 'full' | 'ended', n: number) => void (reads[k] += n),
    released: (n: number) => void (reads.released += n),
    sweepDone: (ms: number, pages: number) => void reads.sweeps.push({ ms, pages }),
  };
  const read = ownOrdersReader({ client: v.client, trader: TRADER, clock, touches, cancels, sweepPolls, stats });
  /** a book event of the streams, as the runtime shows it to both (src/runtime/phases/feeds.ts touchingSink) */
  const see = (e: BookEvent): void => {
    touches.see(e);
    cancels.see(e);
  };
  return { ...v, touches, cancels, see, read, reads, clock };
}

test('a fill on a market whose trade reached our price is read at the next poll, by that market, not by paging the whole list', async () => {
  const s = setup(100, 4); // 400 open orders: 4 pages
  await s.read(); // the first poll reads everything (its baseline)
  assert.equal(s.calls.pages, 4);
  s.calls.pages = 0;
  s.fill(4 * 37, 2_000_000); // market 37's bid at 0.45
  s.touches.see(trade(market(37), 450_000, 'sell'));
  assert.deepEqual(fills(await s.read()), [{ nonce: nonce(4 * 37), size: 2_000_000 }], 'reported at the next poll');
  assert.equal(s.calls.byMarket, 1, 'one read of the market');
  assert.equal(s.calls.pages, 1, "one page of the sweep (4 pages over 30 polls), not the whole list's 4 (old code)");
});

test('a trade that did not reach any order of ours reads nothing more', async () => {
  const s = setup(100, 4);
  await s.read();
  s.touches.see(trade(market(5), 460_000, 'sell')); // bids down to 0.46 taken: ours at 0.45 not reached
  s.touches.see(trade(market(6), 540_000, 'buy')); // asks up to 0.54 taken: ours at 0.55 not reached
  await s.read();
  assert.equal(s.calls.byMarket, 0);
});

test('a fill no stream showed is found by the sweep within its bound (sweepPolls polls)', async () => {
  const s = setup(100, 4, 4); // 4 pages, a sweep over 4 polls: one page a poll
  await s.read();
  s.fill(2, 1_000_000); // the oldest orders: the last page, newest first
  let found = -1;
  for (let poll = 1; poll <= 4 && found < 0; poll++) if (fills(await s.read()).length > 0) found = poll;
  assert.ok(found > 0 && found <= 4, `found at poll ${found}`);
  assert.equal(s.calls.byMarket, 0);
});

test('an order filled to the end with no trade shown leaves the list: the sweep that missed it looks it up', async () => {
  const s = setup(100, 4, 4);
  await s.read();
  s.fill(2, 10_000_000); // filled and closed: in no page any more
  const seen: ReturnType<typeof fills> = [];
  let polls = 0;
  while (seen.length === 0 && polls < 8) {
    polls++;
    seen.push(...fills(await s.read()));
  }
  assert.deepEqual(seen, [{ nonce: nonce(2), size: 10_000_000 }]);
  assert.ok(polls <= 4, `within one sweep of 4 polls (${polls})`);
  assert.equal(s.calls.gets, 1, 'looked up once');
});

test('an order of a market read by itself that left its list is looked up at once', async () => {
  const s = setup(100, 4);
  await s.read();
  s.fill(4 * 9 + 1, 10_000_000); // market 9's ask, taken whole
  s.touches.see(trade(market(9), 550_000, 'buy'));
  assert.deepEqual(fills(await s.read()), [{ nonce: nonce(4 * 9 + 1), size: 10_000_000 }]);
  assert.equal(s.calls.gets, 1);
});

test('a snapshot (a reconnection, a resync after a gap) reads its market at the next poll', async () => {
  const s = setup(100, 4);
  await s.read();
  s.fill(4 * 20, 3_000_000);
  s.touches.see({
    type: 'snapshot',
    book: { marketId: market(20), outcomeIndex: 1, bids: [], asks: [], venueTs: 0, seq: 9 },
    seq: 9,
    localTs: 0,
    source: 'resync',
  });
  assert.deepEqual(fills(await s.read()), [{ nonce: nonce(4 * 20), size: 3_000_000 }]);
  assert.equal(s.calls.byMarket, 1);
});

test('a poll that fails keeps its marks: the fill is read at the next good poll', async () => {
  const s = setup(100, 4);
  await s.read();
  s.fill(4 * 37, 2_000_000);
  s.touches.see(trade(market(37), 450_000, 'sell'));
  s.calls.failNext = true;
  await assert.rejects(s.read(), /503/);
  assert.deepEqual(fills(await s.read()), [{ nonce: nonce(4 * 37), size: 2_000_000 }]);
});

test('as many marked markets as pages of the whole list: the whole list, once', async () => {
  const s = setup(100, 4);
  await s.read();
  s.calls.pages = 0;
  for (let m = 0; m < 4; m++) s.touches.see(trade(market(m), 450_000, 'sell'));
  await s.read();
  assert.equal(s.calls.byMarket, 0);
  assert.equal(s.calls.pages, 4);
});

test('a small wallet (one page) reads its whole list every poll, as before', async () => {
  const s = setup(5, 4);
  await s.read();
  s.fill(3, 1_000_000);
  assert.equal(fills(await s.read()).length, 1);
  assert.equal(s.calls.pages, 2);
  assert.equal(s.calls.byMarket, 0);
});

test('an order found gone (a reconcile, a refused cancel) after a part filled: its market is read at the next poll, its fills and end reported then, not when the sweep comes round', async () => {
  const s = setup(100, 40); // 4,000 open orders: 40 pages, more than a sweep of 30 polls reads one a poll
  await s.read();
  const i = 40 * 3; // market 3's first bid: on the last pages (newest first)
  s.fill(i, 4_000_000);
  s.cancel(i);
  // found gone (the order manager parks the order): the runtime marks its market
  s.touches.markAll(market(3));
  const es = await s.read();
  assert.deepEqual(fills(es), [{ nonce: nonce(i), size: 4_000_000 }], 'its last fills, at the next poll');
  assert.ok(
    es.some((e) => e.event.type === 'OrderClosed' && e.event.nonce === nonce(i)),
    'and its end (the order manager stops counting it): old code, only once the sweep of 40 pages came round',
  );
  assert.equal(s.calls.byMarket, 1);
  assert.equal(s.reads.market, 1, 'counted: one market read');
});

test('the reads are counted by kind, and a finished sweep reports its time and pages', async () => {
  const s = setup(100, 4, 4); // 4 pages, one a poll
  await s.read();
  assert.equal(s.reads.full, 4, 'the first poll: the whole list, 4 pages');
  s.touches.see(trade(market(37), 450_000, 'sell'));
  for (let poll = 0; poll < 4; poll++) {
    s.clock.t += 1_000;
    await s.read();
  }
  assert.equal(s.reads.market, 1);
  assert.equal(s.reads.sweep, 4);
  assert.deepEqual(s.reads.sweeps, [{ ms: 3_000, pages: 4 }], 'one sweep: first page to last, 3 s at a poll a second');
});

/** The venue's time of the witness: a create the bot sent after the cancel's answer, inserted then. */
const W = 1_800_000_000_123;
const X = ('0x' + '77'.repeat(32)) as Bytes32;

test('an order the bot cancelled that no trade reached is released without a GET /orders once its stream passed the cancel', async () => {
  const s = setup(100, 40);
  await s.read();
  const i = 40 * 3;
  s.see(streamState(market(3), 'live'));
  s.cancel(i);
  s.cancels.parked(nonce(i), market(3)); // the cancel answered: OrderParked (cancelled)
  s.cancels.submitted(X, false); // the next create sent, and its answer
  s.cancels.accepted(X, W);
  s.see(tradeEvent(market(3), 500_000, 'buy', 1, W + 40)); // the stream passes it: a purchase at 0.50 reaches no order of ours
  const before = { ...s.calls };
  const es = await s.read();
  assert.ok(
    es.some((e) => e.event.type === 'OrderClosed' && e.event.nonce === nonce(i) && e.event.status === 'cancelled'),
    'released at the next poll',
  );
  assert.deepEqual(fills(es), []);
  assert.equal(s.calls.byMarket - before.byMarket, 0, 'no read of its market (old code: one GET /orders?marketId)');
  assert.equal(s.calls.gets - before.gets, 0, 'no lookup of the order (old code: one GET /orders/:id)');
  assert.equal(s.reads.released, 1, 'counted');
  assert.equal(s.cancels.size, 0);
  // the sweep that later misses it does not look it up either
  for (let p = 0; p < 40; p++) await s.read();
  assert.equal(s.calls.gets - before.gets, 0);
});

test('a fill just before the cancel whose trade prints after the cancel was answered is still counted', async () => {
  const s = setup(100, 40);
  await s.read();
  const i = 40 * 3; // market 3's bid at 0.45
  s.see(streamState(market(3), 'live'));
  // at the venue: a taker sells 2 shares into our bid, then our cancel lands
  s.fill(i, 2_000_000);
  s.cancel(i);
  // the bot: the cancel's answer first, then a create sent after it (the witness) is answered
  s.cancels.parked(nonce(i), market(3));
  s.cancels.submitted(X, false);
  s.cancels.accepted(X, W);
  // the stream is behind: it has shown only what the venue sent before the fill
  s.see(deltaEvent(market(3), W - 10));
  const first = await s.read();
  assert.equal(
    first.some((e) => 'nonce' in e.event && e.event.nonce === nonce(i)),
    false,
    'not released while the stream has not passed the cancel (released here, the fill would be lost)',
  );
  // the fill's print arrives, then the stream passes the cancel
  s.see(tradeEvent(market(3), 450_000, 'sell', 1, W - 5));
  s.see(deltaEvent(market(3), W + 3));
  const es = await s.read();
  assert.deepEqual(fills(es), [{ nonce: nonce(i), size: 2_000_000 }], 'the fill counted, from the read of its market');
  assert.ok(es.some((e) => e.event.type === 'OrderClosed' && e.event.nonce === nonce(i)));
  assert.equal(s.reads.released, 0);
  assert.equal(s.calls.byMarket, 1);
});

test('a small wallet (the sweep ends every poll): a cancelled order waiting for its stream is not looked up meanwhile, then released', async () => {
  const s = setup(5, 4); // one page
  await s.read();
  s.see(streamState(market(2), 'live'));
  s.cancel(8);
  s.cancels.parked(nonce(8), market(2));
  s.cancels.submitted(X, false);
  s.cancels.accepted(X, W);
  const first = await s.read();
  assert.equal(s.calls.gets, 0, 'not looked up while its stream has not passed the cancel (without the hold: looked up at once)');
  assert.equal(
    first.some((e) => 'nonce' in e.event && e.event.nonce === nonce(8)),
    false,
  );
  s.see(deltaEvent(market(2), W + 1));
  const es = await s.read();
  assert.ok(es.some((e) => e.event.type === 'OrderClosed' && e.event.nonce === nonce(8)));
  assert.equal(s.calls.gets, 0);
  assert.equal(s.reads.released, 1);
});

/**
 * A halt (or a kill switch, a reconcile) cancels every order: the bot sends no create after it, so no
 * witness; the streams pass the cancels, the markets are read after CANCEL_WAIT_POLLS polls, and every
 * order is owed a lookup.
 */
async function haltAll(s: ReturnType<typeof setup>, markets: number, before = (): void => undefined): Promise<void> {
  for (let m = 0; m < markets; m++) s.see(streamState(market(m), 'live'));
  await s.read();
  before(); // at the venue, before the halt's cancels land
  for (let i = 0; i < s.orders.length; i++) {
    if (s.orders[i]!.status !== 'open') continue;
    s.cancel(i);
    s.cancels.parked(s.orders[i]!.nonce, s.orders[i]!.marketId);
  }
}

/** Polls a second apart, each stream passing the poll's time (a delta, no trade), until `n` orders closed or `max` polls. */
async function pollUntilClosed(s: ReturnType<typeof setup>, markets: number, n: number, max: number) {
  const events: Awaited<ReturnType<typeof s.read>> = [];
  const closed = new Set<string>();
  let polls = 0;
  while (polls < max && closed.size < n) {
    polls++;
    s.clock.t += 1_000;
    for (let m = 0; m < markets; m++) s.see(deltaEvent(market(m), s.clock.t));
    for (const e of await s.read()) {
      events.push(e);
      if (e.event.type === 'OrderClosed') closed.add(e.event.nonce);
    }
  }
  return { events, polls, closed };
}

test('a halt cancels 800 orders: their ends are read from the ended orders, 100 a request, not looked up one by one (800 GET /orders/:id, 40 polls)', async () => {
  const s = setup(200, 4);
  const filled = 4 * 17 + 1; // market 17's ask: 3 shares taken just before the halt's cancel
  await haltAll(s, 200, () => s.fill(filled, 3_000_000));
  const r = await pollUntilClosed(s, 200, 800, 60);
  assert.equal(r.closed.size, 800, 'every order ended in the books');
  assert.deepEqual(fills(r.events), [{ nonce: nonce(filled), size: 3_000_000 }], 'the fill before the cancel is in the books');
  assert.equal(s.calls.gets, 0, 'no lookup (old code: 800, 20 a poll)');
  assert.equal(s.calls.ended, 8, '8 pages of ended orders');
  assert.equal(s.reads.ended, 8, 'counted as ended reads');
  assert.ok(r.polls <= 6, `within 6 polls (${r.polls}; old code: 43)`);
});

test('the read of ended orders stops once it found every order it looks for: not through the older history', async () => {
  const s = setup(10, 3, 30, 1_000); // 30 resting orders placed after 1,000 that ended
  await haltAll(s, 10);
  const r = await pollUntilClosed(s, 10, 30, 10);
  assert.equal(r.closed.size, 30);
  assert.equal(s.calls.ended, 1, 'one page: the 30 and older ones (without the stop: 11 pages, the whole history)');
  assert.equal(s.calls.gets, 0);
});

test('an old order among a long history: the read of ended orders stops once it no longer pays, the rest is looked up, once', async () => {
  const s = setup(1, 1); // one order resting since long ago...
  for (let h = 0; h < 5_000; h++) s.add(); // ...5,000 orders that ended since...
  const fresh = Array.from({ length: 24 }, () => s.add({ status: 'open', side: 0, price: 450_000 })); // ...and 24 resting now
  const oldest = s.orders[0]!.nonce;
  await haltAll(s, 1, () => s.fill(0, 1_000_000)); // the old one fills a share just before the halt
  const r = await pollUntilClosed(s, 1, 25, 20);
  assert.equal(r.closed.size, 25, 'every order ended in the books');
  assert.ok(
    fresh.every((i) => r.closed.has(s.orders[i]!.nonce)),
    'the 24 from the ended orders',
  );
  assert.deepEqual(fills(r.events), [{ nonce: oldest, size: 1_000_000 }], "the old order's fill, from its lookup");
  assert.equal(s.calls.gets, 1, 'the old order looked up');
  assert.ok(s.calls.ended <= 30, `the ended read gave up after ${s.calls.ended} pages (the history is 51): no more than it found, and 5`);
  const pages = s.calls.ended;
  await pollUntilClosed(s, 1, 1, 5);
  assert.equal(s.calls.ended, pages, 'not read for again');
});
