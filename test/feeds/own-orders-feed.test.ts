import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FillTracker, MAX_CLOSED } from '../../src/feeds/own-orders-feed.ts';
import { filledShares } from '../../src/orders/venue-order-shares.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';
import { venueOrder } from '../support/venue-order.ts';
import { liveHeap } from '../support/retained-heap.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const N = ('0x' + '01'.repeat(32)) as Bytes32;
const TRADER = '0x0000000000000000000000000000000000000001' as Address;

/** A resting sell of 10 YES at 0.55, `filled` of it filled. */
const sell = (filledSize: number, status: VenueOrder['status'] = 'open'): VenueOrder =>
  venueOrder({ id: 7, marketId: M, trader: TRADER, nonce: N, price: 550_000, filledSize, status, insertedAt: '2026-11-21T00:00:00.000Z' });

/**
 * A resting V2 buy of 10 YES shares (minSharesOut): `size` is its collateral budget and `filledSize`
 * the collateral spent, both in 1e-6 USDC, as the venue reads them.
 */
const v2Buy = (price: number, size: number, filledSize: number, more: Partial<VenueOrder> = {}): VenueOrder => ({
  ...sell(0),
  side: 0,
  price,
  size,
  filledSize,
  remainingSize: size - filledSize,
  sv2MinSharesOut: 10_000_000n,
  sv2OrderKind: 0,
  ...more,
});

test('a V2 buy fill is counted in shares from the collateral spent at its price', () => {
  // 10 shares at 0.48 with a 1 % fee allowance: budget 4.848 USDC; 4 shares filled = 1.92 USDC spent
  const buy = v2Buy(480_000, 4_848_000, 1_920_000);
  assert.equal(buy.remainingSize, 2_928_000);
  assert.equal(filledShares(buy), 4_000_000);
});

test('a V2 buy that took liquidity and is part filled: its shares from the average fill price and the taker fee, not the limit', () => {
  // 10 shares at limit 0.60 (budget 6 + 0.06 fee cap); it took 4 @ 0.50 paying 50 bps: 2.00 + 0.01 spent
  const buy = v2Buy(600_000, 6_060_000, 2_010_000, { avgFillPrice: 500_000 });
  assert.equal(buy.remainingSize, 4_050_000);
  const FEES = { makerBps: 0, takerBps: 50 };
  assert.equal(filledShares(buy, FEES), 4_000_000, 'old code: 2.01 / 0.60 = 3.35 shares');
  const t = new FillTracker([{ nonce: N, filled: 0, ref: 7, cost: 0 }], { fees: FEES });
  const f = t.observe([buy], 1).map((e) => e.event);
  assert.deepEqual(
    f.map((e) => e.type === 'OrderFilled' && [e.size, e.notional, e.fee]),
    [[4_000_000, 2_000_000, 10_000]],
    'the part: 4 shares, 2.00 paid, the taker fee',
  );
  // without the average (a read that states none) the shares are bounded: the collateral over the limit
  assert.equal(filledShares({ ...buy, avgFillPrice: undefined }, FEES), 3_350_000);
  // filled whole: exactly its minSharesOut, whatever its filled size says
  assert.equal(filledShares({ ...buy, status: 'filled', filledSize: 5_040_000 }, FEES), 10_000_000);
});

test('a GTC order that crossed on arrival at exactly its limit: a taker part, by its create answer, not by its price', () => {
  const FEES = { makerBps: 0, takerBps: 50 };
  // a sale of 10 @ 0.55 that took 4 @ 0.55 as it arrived, then 2 more while it rested
  const seed = [{ nonce: N, filled: 0, ref: 7, cost: 0 }];
  const t = new FillTracker(seed, { fees: FEES, arrival: (n) => (n === N ? 4_000_000 : undefined) });
  const parts = [...t.observe([{ ...sell(4_000_000), avgFillPrice: 550_000 }], 1), ...t.observe([{ ...sell(6_000_000), avgFillPrice: 550_000 }], 2)];
  assert.deepEqual(
    parts.map((e) => e.event.type === 'OrderFilled' && [e.event.size, e.event.fee]),
    [
      [4_000_000, 11_000],
      [2_000_000, 0],
    ],
    'the arrival part at the taker rate (old code: 0, the maker rate, as its price is the limit); the resting part at the maker rate',
  );
  // without the create answer the role is not known: a part at the limit is a maker's
  const unknown = new FillTracker(seed, { fees: FEES }).observe([{ ...sell(4_000_000), avgFillPrice: 550_000 }], 1);
  assert.equal(unknown[0]!.event.type === 'OrderFilled' && unknown[0]!.event.fee, 0);
});

test('the first poll is a baseline; increases become fills with unique ids', () => {
  const t = new FillTracker();
  assert.deepEqual(t.observe([sell(2_000_000)], 1), [], 'history before the start is not a fill');
  const f = t.observe([sell(5_000_000)], 2);
  assert.equal(f.length, 1);
  const e = f[0]!.event;
  assert.equal(e.type, 'OrderFilled');
  if (e.type !== 'OrderFilled') return;
  assert.equal(e.size, 3_000_000);
  assert.equal(e.price, 550_000);
  assert.equal(e.fillId, `${N.toLowerCase()}:5000000`);
  assert.deepEqual(t.observe([sell(5_000_000)], 3), [], 'no change, no fill');
});

test('an order that completes is reported once and then forgotten', () => {
  const t = new FillTracker();
  t.observe([sell(0)], 1);
  const f = t.observe([sell(10_000_000, 'filled')], 2);
  // the fill first, then the close that lets the order manager stop counting the order
  assert.deepEqual(
    f.map((e) => e.event.type),
    ['OrderFilled', 'OrderClosed'],
  );
  assert.equal(f[1]!.event.type === 'OrderClosed' && f[1]!.event.status, 'filled');
  assert.equal(t.size, 0);
  assert.deepEqual(
    t.observe([sell(10_000_000, 'filled')], 3).map((e) => e.event.type),
    [],
    'a closed order read again (the recent-orders window) with nothing new is not reported twice',
  );
});

test('orders that left the open list without a final state are listed for lookup', () => {
  const t = new FillTracker();
  t.observe([sell(0)], 1);
  assert.deepEqual(t.vanished(new Set()), [{ nonce: N, ref: 7, marketId: sell(0).marketId }]);
  assert.deepEqual(t.vanished(new Set([N.toLowerCase()])), []);
});

test('a vanished order is asked about with its market, so isTracked is one lookup rather than a scan of every market', async () => {
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  let open: VenueOrder[] = [sell(0)];
  const asked: [string, string | undefined][] = [];
  const client = {
    orders: {
      async *iterate() {
        yield* open;
      },
      async get(): Promise<VenueOrder> {
        throw new Error('not looked up');
      },
    },
  };
  const isTracked = (nonce: string, marketId?: string): boolean => {
    asked.push([nonce, marketId]);
    return false;
  };
  const read = ownOrdersReader({ client, trader: '0x0000000000000000000000000000000000000001', clock: { now: () => 1 } as never, isTracked });
  await read();
  open = [];
  // asked once its lookups have failed UNTRACKED_TRIES times (src/feeds/own-orders-feed.ts)
  for (let i = 0; i < 4; i++) await read();
  assert.deepEqual(asked, [[N, sell(0).marketId]]);
});

test("an earlier run's order (the catch-up's seed) that ends before this run's order manager tracks it: looked up, its last fills counted", async () => {
  // A restarted bot's catch-up read this order open with nothing filled; it then filled (or was part
  // filled and cancelled) before the start-up reconcile took it into the order manager. It is the
  // wallet's own (isOwn) but the order manager never tracked it: "we cancelled it ourselves" is not
  // true of it, and forgetting it unread lost its fills from the books until the stop's final sweep.
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  let open: VenueOrder[] = [sell(0)];
  const looked: (number | string)[] = [];
  const client = {
    orders: {
      async *iterate() {
        yield* open;
      },
      async get(ref: number | string): Promise<VenueOrder> {
        looked.push(ref);
        return sell(8_000_000, 'cancelled');
      },
    },
  };
  const read = ownOrdersReader({
    client,
    trader: TRADER,
    clock: { now: () => 1 } as never,
    seed: [{ nonce: N, filled: 0, ref: 7, cost: 0 }],
    isTracked: () => false,
    isOwn: () => true,
  });
  assert.deepEqual(await read(), [], 'read open, nothing new');
  open = [];
  const ev = (await read()).map((e) => e.event);
  assert.deepEqual(looked, [7], 'old code: forgotten without a lookup');
  assert.deepEqual(
    ev.map((e) => e.type),
    ['OrderFilled', 'OrderClosed'],
  );
  assert.equal(ev[0]!.type === 'OrderFilled' && ev[0]!.size, 8_000_000);
  assert.deepEqual(await read(), [], 'closed: not looked up again');
  assert.deepEqual(looked, [7]);
});

/**
 * A fills poll over the orders `open()` lists, whose lookups answer from `answer` (a thrown error is the
 * venue's), counting them.
 */
function pollOf(open: () => VenueOrder[], answer: (ref: number | string) => VenueOrder, isTracked: (n: Bytes32, m?: Bytes32) => boolean) {
  const looked: (number | string)[] = [];
  const client = {
    orders: {
      async *iterate() {
        yield* open();
      },
      async get(ref: number | string): Promise<VenueOrder> {
        looked.push(ref);
        return answer(ref);
      },
    },
  };
  return { looked, client, isTracked };
}

test('a parked order still unread after its settle time: looked up when it leaves the open list, its last fills counted at once', async () => {
  // The order manager parks an order whose cancel was answered (a fill may have raced the cancel) and
  // lets go of it once a positions read begun settleMs after the cancel has landed: the position holds
  // the fill, the books do not. Here the poll's lookup of it failed (a 503) until then.
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  const { VenueError } = await import('../../src/exchange/client/errors.ts');
  const { OrderManager } = await import('../../src/orders/order-manager.ts');
  const { FakeVenue, ManualClock, M1 } = await import('../orders/fake-venue.ts');
  const venue = new FakeVenue(50);
  const clock = new ManualClock();
  const om = new OrderManager({ venue, clock, tolerances: { price: 5_000, sizeFraction: 0.1 }, settleMs: 30_000, cancelAllDelayMs: 0 });
  await om.sync(M1, [{ slot: `${M1}:ask:0`, order: { marketId: M1, outcomeIndex: 1, side: 1, price: 550_000, size: 10_000_000 } }]);
  const nonce = [...venue.open.values()][0]!.nonce;
  const resting = (filledSize: number, status: VenueOrder['status'] = 'open'): VenueOrder =>
    venueOrder({ id: 70, marketId: M1, trader: TRADER, nonce, price: 550_000, filledSize, status });
  let open = [resting(0)];
  let down = true;
  const p = pollOf(
    () => open,
    () => {
      if (down) throw new VenueError({ status: 503, venueCode: null, message: 'x', endpoint: 'GET /orders/70', retryAfterMs: null, body: null });
      return resting(4_000_000, 'cancelled');
    },
    (n) => om.knows(n),
  );
  const read = ownOrdersReader({ client: p.client, trader: TRADER, clock, isTracked: p.isTracked, isOwn: () => true });
  await read(); // baseline: open, nothing filled
  const cancelledAt = clock.now();
  await om.sync(M1, []); // our cancel, answered; 4 shares had filled just before it
  assert.equal(om.parkedCount, 1);
  open = [];
  assert.deepEqual(await read(), [], 'the lookup failed: nothing learned');
  clock.t += 30_000;
  om.positionsRead(M1, cancelledAt + 30_000); // the settle time: the order manager lets go of it
  assert.equal(om.knows(nonce), false);
  down = false;
  const ev = (await read()).map((e) => e.event);
  assert.deepEqual(
    ev.map((e) => e.type),
    ['OrderFilled', 'OrderClosed'],
    "old code: forgotten unread, the 4 shares reached the books only at the stop's final sweep",
  );
  assert.equal(ev[0]!.type === 'OrderFilled' && ev[0]!.size, 4_000_000);
  assert.equal(p.looked.length, 2, 'one lookup that failed, one that answered');
  assert.deepEqual(await read(), [], 'closed: not looked up again');
  assert.equal(p.looked.length, 2);
});

test('an untracked order whose lookups keep failing is given up after a few tries, not asked about every poll', async () => {
  const { ownOrdersReader, UNTRACKED_TRIES } = await import('../../src/feeds/own-orders-feed.ts');
  let open: VenueOrder[] = [sell(0)];
  const p = pollOf(
    () => open,
    () => {
      throw new Error('timeout');
    },
    () => false,
  );
  const read = ownOrdersReader({ client: p.client, trader: TRADER, clock: { now: () => 1 } as never, isTracked: p.isTracked });
  await read();
  open = [];
  for (let i = 0; i < UNTRACKED_TRIES + 3; i++) await read();
  assert.equal(p.looked.length, UNTRACKED_TRIES);
});

test('an order of a market released by rotation: one that leaves the open list with a fill that raced its cancel is looked up, also once its market left the store', async () => {
  // Retirement cancels the market's orders (parked: their end unread), then releases the market. A
  // market kept for its position keeps their records; a resolved market's release drops them with the
  // market (src/runtime/rotation/bot-markets.ts release: kept only while its payout is unknown).
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  const { StateStore } = await import('../../src/state/store.ts');
  const { trackedOrder } = await import('../../src/runtime/phases/feeds.ts');
  const { isSettled } = await import('../../src/state/release-market.ts');
  for (const resolved of [false, true]) {
    const store = new StateStore();
    const planned = { marketId: M, outcomeIndex: 1 as const, side: 1 as const, price: 550_000, size: 10_000_000, nonce: N, inventoryMode: 0 as const };
    store.dispatchAll([
      { type: 'OrderSubmitted', marketId: M, slot: `${M}:ask:0`, nonce: N, order: planned, retry: false, ts: 1 },
      { type: 'OrderAccepted', marketId: M, nonce: N, duplicate: false, ts: 2 },
      { type: 'OrderParked', marketId: M, nonce: N, cancelled: true, ts: 3 },
      ...(resolved ? [{ type: 'MarketMetadataUpdated' as const, marketId: M, status: 'resolved' as const, payoutYes: 1_000_000, ts: 4 }] : []),
    ]);
    const m = store.state.markets.get(M)!;
    store.dispatch({ type: 'MarketReleased', marketId: M, keepPosition: !isSettled(m) && m.payoutYes === null, ts: 5 });
    assert.equal(trackedOrder(store)(N, M), !resolved, resolved ? 'a resolved market leaves with its orders' : 'kept for its parked order');
    let open = [sell(0)];
    const p = pollOf(
      () => open,
      () => sell(3_000_000, 'cancelled'),
      trackedOrder(store),
    );
    const read = ownOrdersReader({
      client: p.client,
      trader: TRADER,
      clock: { now: () => 1 } as never,
      isTracked: p.isTracked,
      isOwn: () => true,
    });
    await read(); // baseline: open, nothing filled
    open = [];
    const ev = (await read()).map((e) => e.event);
    assert.deepEqual(
      ev.map((e) => e.type),
      ['OrderFilled', 'OrderClosed'],
      `resolved ${resolved}: old code forgot it unread when resolved`,
    );
    assert.equal(ev[0]!.type === 'OrderFilled' && ev[0]!.size, 3_000_000);
    assert.deepEqual(p.looked, [7], 'one lookup');
  }
});

test('a vanished order whose lookup fails transiently is looked up again; only a 404 forgets it', async () => {
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  const { VenueError } = await import('../../src/exchange/client/errors.ts');
  const err = (status: number) => new VenueError({ status, venueCode: null, message: 'x', endpoint: 'GET /orders/7', retryAfterMs: null, body: null });
  let open: VenueOrder[] = [sell(0)];
  const answers: (VenueOrder | Error)[] = [];
  let lookups = 0;
  const client = {
    orders: {
      async *iterate() {
        yield* open;
      },
      async get() {
        lookups++;
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
    },
  };
  const read = ownOrdersReader({ client, trader: '0x0000000000000000000000000000000000000001', clock: { now: () => 1 } as never });
  await read(); // baseline
  open = [];
  answers.push(err(503));
  assert.deepEqual(await read(), [], 'the 5xx poll learns nothing');
  answers.push(sell(10_000_000, 'filled'));
  assert.deepEqual(
    (await read()).map((e) => e.event.type),
    ['OrderFilled', 'OrderClosed'],
    'the next poll still finds the fill',
  );
  // a 404: the venue does not know it; nothing more to ask
  open = [{ ...sell(0), id: 8, nonce: ('0x' + '02'.repeat(32)) as Bytes32 }];
  await read();
  open = [];
  answers.push(err(404));
  await read();
  const before = lookups;
  assert.deepEqual(await read(), []);
  assert.equal(lookups, before, 'not looked up again after a 404');
  assert.equal(lookups, 3);
});

test("a fill carries its order's kind (how the venue settles a sale: without inventory it mints)", () => {
  const t = new FillTracker();
  const mint = (filled: number): VenueOrder => ({ ...sell(filled), sv2OrderKind: 2 });
  t.observe([mint(0)], 1);
  const e = t.observe([mint(4_000_000)], 2)[0]!.event;
  assert.equal(e.type === 'OrderFilled' ? e.orderKind : null, 2, 'old code: no kind, the books sold from inventory');
  const u = new FillTracker();
  u.observe([{ ...sell(0), sv2OrderKind: null }], 1);
  const f = u.observe([{ ...sell(1_000_000), sv2OrderKind: null }], 2)[0]!.event;
  assert.equal(f.type === 'OrderFilled' && 'orderKind' in f, false, 'a read without the kind leaves it out');
});

test('an order the order manager let go of (filled or cancelled) before the poll read its last fills: the recent orders still give them', async () => {
  const { ownOrdersReader } = await import('../../src/feeds/own-orders-feed.ts');
  let open: VenueOrder[] = [sell(0)];
  let recent: VenueOrder[] = [];
  let tracked = true;
  const client = {
    orders: {
      async *iterate() {
        yield* open;
      },
      async recent() {
        return recent;
      },
      async get(): Promise<VenueOrder> {
        throw new Error('not looked up');
      },
    },
  };
  const read = ownOrdersReader({ client, trader: '0x0000000000000000000000000000000000000001', clock: { now: () => 1 } as never, isTracked: () => tracked });
  await read(); // baseline
  open = [sell(4_000_000)];
  assert.deepEqual(
    (await read()).map((e) => e.event.type),
    ['OrderFilled'],
  );
  // filled to the end and closed; the order manager already dropped it (its own stream said so)
  open = [];
  recent = [sell(10_000_000, 'filled')];
  tracked = false;
  const ev = (await read()).map((e) => e.event);
  assert.deepEqual(
    ev.map((e) => e.type),
    ['OrderFilled', 'OrderClosed'],
    'the last 6 shares are counted',
  );
  assert.equal(ev[0]!.type === 'OrderFilled' && ev[0]!.size, 6_000_000);
  // read again in the recent window: nothing new, not reported twice
  assert.deepEqual(await read(), []);
});

test('the recent-orders window: the first read looks back the configured seconds, later ones to the read before plus a margin, within 1–600 s', async () => {
  const { recentWindow } = await import('../../src/feeds/own-orders-feed.ts');
  assert.equal(recentWindow(1_000, null, 30), 30);
  assert.equal(recentWindow(11_000, 10_000, 30), 6, '1 s since the last read + 5 s');
  assert.equal(recentWindow(10_000, 10_000, 30), 5);
  assert.equal(recentWindow(10_000 + 3_600_000, 10_000, 30), 600, "an hour's gap: the venue's longest window");
});

test('at thousands of markets: the read after the first asks only since the last one, and a full read is read again by state (filled, cancelled, expired)', async () => {
  const { ownOrdersReader, RECENT_LIMIT } = await import('../../src/feeds/own-orders-feed.ts');
  const asked: { windowSeconds?: number; status?: string; limit?: number }[] = [];
  // the venue's newest RECENT_LIMIT orders of the window are all cancels of other quotes; the filled one is older
  const cancels = Array.from({ length: RECENT_LIMIT }, (_, i) =>
    venueOrder({
      id: 100 + i,
      marketId: M,
      trader: TRADER,
      nonce: `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32,
      price: 550_000,
      filledSize: 0,
      status: 'cancelled',
    }),
  );
  const filled = venueOrder({ id: 9, marketId: M, trader: TRADER, nonce: N, price: 550_000, filledSize: 10_000_000, status: 'filled' });
  // placed and expired between the two polls after 3 of its 10 shares filled
  const X = `0x${'0e'.repeat(32)}` as Bytes32;
  const expired = venueOrder({ id: 8, marketId: M, trader: TRADER, nonce: X, price: 550_000, filledSize: 3_000_000, status: 'expired' });
  let now = 1_000;
  let full = false;
  const client = {
    orders: {
      async *iterate() {},
      async recent(p: { windowSeconds?: number; status?: string; limit?: number }) {
        asked.push({
          ...(p.windowSeconds !== undefined ? { windowSeconds: p.windowSeconds } : {}),
          ...(p.status ? { status: p.status } : {}),
          limit: p.limit!,
        });
        if (!full) return [];
        if (p.status === 'filled') return [filled];
        if (p.status === 'expired') return [expired];
        return cancels;
      },
      async get(): Promise<VenueOrder> {
        throw new Error('not looked up');
      },
    },
  };
  const read = ownOrdersReader({ client, trader: TRADER, clock: { now: () => now } as never, recentWindowSeconds: 30 });
  await read();
  now += 1_000;
  full = true;
  const ev = (await read()).map((e) => e.event);
  assert.deepEqual(asked, [
    { windowSeconds: 30, limit: RECENT_LIMIT },
    { windowSeconds: 6, limit: RECENT_LIMIT },
    { windowSeconds: 6, status: 'filled', limit: RECENT_LIMIT },
    { windowSeconds: 6, status: 'cancelled', limit: RECENT_LIMIT },
    { windowSeconds: 6, status: 'expired', limit: RECENT_LIMIT },
  ]);
  const fills = new Map(ev.flatMap((e) => (e.type === 'OrderFilled' ? [[e.nonce, e.size] as const] : [])));
  assert.equal(fills.get(N), 10_000_000, 'the order placed and filled between two polls is counted');
  assert.equal(fills.get(X), 3_000_000, 'so is the part-filled order that expired between them (old code: never read)');
});

/** order i's nonce (distinct, 32 bytes) */
const nonceOf = (i: number): Bytes32 => `0x${'cd'.repeat(24)}${i.toString(16).padStart(16, '0')}` as Bytes32;
const ended = (i: number, filledSize: number): VenueOrder => ({ ...sell(filledSize, 'cancelled'), nonce: nonceOf(i) });
const kinds = (f: ReturnType<FillTracker['observe']>) => f.map((e) => (e.event.type === 'OrderFilled' ? `fill ${e.event.size}` : e.event.type));

test('a closed order is remembered while the newest MAX_CLOSED closes hold it: read again at the edge only new fills count', () => {
  const t = new FillTracker();
  t.observe([], 0);
  assert.deepEqual(kinds(t.observe([ended(0, 4_000_000)], 1)), ['fill 4000000', 'OrderClosed']);
  const others = Array.from({ length: MAX_CLOSED - 1 }, (_, i) => ended(i + 1, 0));
  t.observe(others, 2);
  assert.equal(t.closedRemembered, MAX_CLOSED);
  assert.deepEqual(kinds(t.observe([ended(0, 4_000_000)], 3)), [], 'read again with nothing new: not reported twice');
  assert.deepEqual(kinds(t.observe([ended(0, 6_000_000)], 4)), ['fill 2000000', 'OrderClosed'], 'a late fill: only its part');
  assert.deepEqual(kinds(t.observe([ended(0, 6_000_000)], 5)), []);
  // one close more: the oldest, order 0, leaves the window (its late fill kept its place, as a Map's entry)
  t.observe([ended(MAX_CLOSED, 0)], 6);
  assert.equal(t.closedRemembered, MAX_CLOSED);
  assert.deepEqual(kinds(t.observe([ended(1, 0)], 7)), [], 'order 1 is still held');
  assert.deepEqual(kinds(t.observe([ended(0, 6_000_000)], 8)), ['fill 6000000', 'OrderClosed'], 'past the window: news again');
});

test('the closed orders are kept in memory allocated at the start: closing past the window retains no more', () => {
  // a fresh tracker each attempt, the smallest growth judged: V8's compiler may leave a few hundred KB of its own
  // (bytecode, feedback) between two readings on a loaded machine once (a CI run read 322 KB), where the Map the
  // columns replaced grows ~1 MB in every attempt
  const attempt = (): number => {
    const t = new FillTracker();
    t.observe([], 0);
    // the first 500 warm the code up
    const close500 = (from: number) =>
      t.observe(
        Array.from({ length: 500 }, (_, i) => ended(from + i, 1_000_000)),
        2,
      );
    close500(0);
    const start = liveHeap();
    for (let b = 500; b < 3 * MAX_CLOSED; b += 500) close500(b);
    const grown = liveHeap() - start;
    assert.equal(t.closedRemembered, MAX_CLOSED);
    return grown;
  };
  const grown = [attempt(), attempt(), attempt()];
  // a Map of the nonces' strings to their figures grew by ~1 MB while it filled
  assert.ok(Math.min(...grown) < 100_000, `retained ${grown.join(', ')} bytes more after ${3 * MAX_CLOSED} closed orders`);
});
