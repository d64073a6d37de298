import { DEFAULT_ACCOUNT_LIMITS } from '../../src/account/account-risk.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { QuotingKernel, type KernelMarket } from '../../src/kernel/quoting-kernel.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1, M2, venueOrder } from '../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../support/quoting.ts';

const params = bands.parseConfig(ONE_BAND, 'strategy');
const risk = { ...DEFAULT_RISK, maxBookAgeMs: 5_000, maxStreamSilenceMs: 5_000 };

function market(id: Bytes32): KernelMarket {
  return { marketId: id, strategy: bands, params, risk };
}

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);

function setup(requoteIntervalMs = 250) {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const store = new StateStore();
  const kernel = new QuotingKernel({ clock, venue, store, markets: [market(M1), market(M2)], requoteIntervalMs, housekeepingMs: 1000 });
  return { clock, venue, store, kernel };
}

/** Let promises run and the manual clock move (cancelAll pauses between rounds on the clock). */
async function pump(clock: ManualClock, until: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !until(); i++) {
    await new Promise((r) => setImmediate(r));
    clock.advance(100);
  }
}

/**
 * One market quoting both sides, with an account kill switch at a 50 % error rate (from 2 calls);
 * `kills` notes each kill as 'REASON:cancelled-ok'.
 */
async function quotingWithKillSwitch() {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const kills: string[] = [];
  const kernel = new QuotingKernel({
    clock,
    venue,
    store: new StateStore(),
    requoteIntervalMs: 0,
    markets: [market(M1)],
    accountLimits: { ...DEFAULT_ACCOUNT_LIMITS, maxErrorRate: 0.5, minRequestsForErrorRate: 2 },
    onKill: (reason, _d, res) => kills.push(`${reason}:${res.ok}`),
  });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  assert.equal(venue.open.size, 2);
  return { clock, venue, kernel, kills };
}

const creates = (v: FakeVenue) => v.calls.flatMap((c) => (c.kind === 'batch' ? c.creates : c.kind === 'cancel-replace' ? [c.create] : []));

test('a book event ticks at once and quotes both sides around the mid', async () => {
  const { clock, venue, kernel } = setup();
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  const sent = creates(venue);
  assert.equal(sent.length, 2);
  assert.ok(sent.every((o) => o.marketId === M1));
  assert.equal(venue.open.size, 2);
  assert.equal(kernel.lastTick(M1)?.action, 'quote');
  kernel.stop();
});

test('a tick whose quotes already rest leaves no pending sync: lastSync is null at once', async () => {
  const { clock, venue, kernel } = setup(0);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  assert.notEqual(kernel.lastSync(M1), null, 'the first quotes go out: a sync is pending');
  await kernel.flush();
  assert.equal(kernel.lastSync(M1), null);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  assert.equal(kernel.lastTick(M1)?.action, 'quote');
  assert.equal(kernel.lastSync(M1), null, 'same book, same quotes: nothing to wait for');
  assert.equal(venue.calls.length, 1);
  kernel.stop();
});

test('events inside the requote interval coalesce into one trailing tick on the injected clock', async () => {
  const { clock, venue, kernel } = setup(250);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  const before = venue.calls.length;
  for (let i = 1; i <= 5; i++) kernel.onEvent(book(M1, 480_000 + i * 4_000, 520_000 + i * 4_000, clock.now()));
  await kernel.flush();
  assert.equal(venue.calls.length, before, 'no call before the interval elapsed');
  clock.advance(250);
  await kernel.flush();
  assert.equal(venue.calls.length - before, 1, 'one coalesced requote');
  const bids = [...venue.open.values()].filter((o) => o.side === 0 && o.outcomeIndex === 1);
  assert.equal(bids.length, 1);
  assert.equal(bids[0]!.price, 500_000, 'the bid follows the last book (mid 0.52 - 0.02)');
  kernel.stop();
});

test('a silent market is pulled by housekeeping once its book is stale', async () => {
  const { clock, venue, kernel } = setup();
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  assert.equal(venue.open.size, 2);
  clock.advance(6_000);
  await kernel.flush();
  assert.equal(venue.open.size, 0);
  assert.equal(kernel.lastTick(M1)?.action, 'pull');
  kernel.stop();
});

test('syncsStarted counts the syncs that leave a promise, housekeepingSlices the rounds run', async () => {
  const { clock, kernel } = setup();
  assert.equal(kernel.syncsStarted, 0);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  assert.equal(kernel.syncsStarted, 1, 'the first quotes go to the venue');
  await kernel.flush();
  clock.advance(1_000); // a round: M1 is ticked again and its quotes rest as wanted (settled at once)
  assert.equal(kernel.housekeepingSlices, 1);
  assert.equal(kernel.syncsStarted, 1, 'a set that already rests starts no sync');
  clock.advance(6_000); // M1's book goes stale: a round pulls its quotes
  assert.ok(kernel.housekeepingSlices >= 2);
  assert.ok(kernel.syncsStarted >= 2, 'the pull goes to the venue');
  await kernel.flush();
  kernel.stop();
});

test('the kill switch cancels everything and reports once', async () => {
  const { clock, venue, kernel, kills } = await quotingWithKillSwitch();
  for (let i = 0; i < 4; i++) kernel.onEvent({ type: 'VenueCallCompleted', call: 'batch', ok: false, ms: 1, ts: clock.now() });
  kernel.onEvent(book(M1, 481_000, 521_000, clock.now()));
  await pump(clock, () => kills.length > 0);
  assert.deepEqual(kills, ['KILL_ERROR_RATE:true']);
  assert.equal(venue.open.size, 0);
  assert.equal(kernel.killed, 'KILL_ERROR_RATE');
  const calls = venue.calls.length;
  kernel.onEvent(book(M1, 482_000, 522_000, clock.now()));
  await kernel.flush();
  assert.equal(venue.calls.length, calls, 'no quoting after a kill');
});

test('desired() is a dry run and shutdown leaves nothing open', async () => {
  const { clock, venue, kernel } = setup();
  kernel.onEvent(book(M2, 300_000, 340_000, clock.now()));
  await kernel.flush();
  const d = kernel.desired();
  assert.equal(d.length, 2);
  assert.ok(d.every((x) => x.slot.startsWith(M2.toLowerCase())));
  let finished = false;
  const done = kernel.shutdown().finally(() => (finished = true));
  await pump(clock, () => finished);
  const res = await done;
  assert.equal(res.ok, true);
  assert.equal(venue.open.size, 0);
});

test('worst case: a fill the venue shows before the fills feed does keeps counting until the feed reports it', async () => {
  const { clock, venue, store, kernel } = setup();
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  const ask = [...venue.open.values()].find((o) => o.side === 1 || o.outcomeIndex === 0)!;
  const counted = () => store.state.markets.get(M1.toLowerCase())!.orders.get(ask.nonce.toLowerCase())?.remaining ?? 0;
  const size = counted();
  assert.ok(size > 0);
  // the venue fills 4 shares; a reconcile lists the smaller remaining before the fills feed reports it
  venue.open.set(ask.nonce, { ...ask, remainingSize: ask.remainingSize - 4_000_000, filledSize: ask.filledSize + 4_000_000 });
  await kernel.orderManager.reconcile(M1);
  assert.equal(counted(), size, 'the position does not hold the fill yet: the order still counts in full');
  const fill = {
    type: 'OrderFilled' as const,
    marketId: M1,
    nonce: ask.nonce,
    outcomeIndex: ask.outcomeIndex,
    side: ask.side,
    price: ask.price,
    size: 4_000_000,
    fee: 0,
    fillId: `${ask.nonce}:4`,
    ts: clock.now(),
  };
  kernel.onEvent(fill);
  assert.equal(counted(), size - 4_000_000, 'now the fill is in the position and out of the order');
  // the venue closes it (the rest filled, rounding one unit short of what the feed saw): the store lets go
  venue.open.delete(ask.nonce);
  kernel.onEvent({ ...fill, size: size - 4_000_001, fillId: `${ask.nonce}:all`, ts: clock.now() });
  assert.equal(counted(), 1);
  kernel.onEvent({ type: 'OrderClosed', marketId: M1, nonce: ask.nonce, status: 'filled', ts: clock.now() });
  assert.equal(counted(), 0, 'a closed order stops counting once its fills are in');
  kernel.stop();
});

test('housekeeping skips a market pulled for a reason only an event can lift, until an event arrives', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const store = new StateStore();
  const ticks: string[] = [];
  const kernel = new QuotingKernel({
    clock,
    venue,
    store,
    requoteIntervalMs: 0,
    housekeepingMs: 1000,
    markets: [market(M1), market(M2)],
    onTick: (m, t) => ticks.push(`${m === M1 ? 'M1' : 'M2'}:${t.action}${t.reason ? ':' + t.reason : ''}`),
  });
  kernel.onEvent({ type: 'MarketMetadataUpdated', marketId: M1, tick: 10_000, status: 'active', ts: clock.now() });
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  ticks.length = 0;
  for (let i = 0; i < 10; i++) {
    clock.advance(1000);
    await kernel.flush();
  }
  // M1 has no book: its metadata tick pulled (STALE_BOOK) and housekeeping leaves it alone since;
  // M2 is ticked every second while it quotes, pulled once when its book goes stale (5 s), then left too
  assert.equal(kernel.lastTick(M1)?.reason, 'STALE_BOOK');
  assert.deepEqual(
    ticks.filter((t) => t.startsWith('M1')),
    [],
    ticks.join(' '),
  );
  assert.deepEqual(
    ticks.filter((t) => t.startsWith('M2')),
    ['M2:quote', 'M2:quote', 'M2:quote', 'M2:quote', 'M2:quote', 'M2:pull:STALE_BOOK'],
  );
  assert.equal([...venue.open.values()].filter((o) => o.marketId === M2).length, 0, 'the stale quotes were pulled');
  // a book for M1 wakes it: it quotes
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  assert.equal(ticks.at(-1), 'M1:quote');
  assert.ok([...venue.open.values()].some((o) => o.marketId === M1));
  kernel.stop();
});

test('a position sync that moves the net makes desired sets checked before it stale; one that confirms the net does not', () => {
  const { clock, kernel } = setup();
  const om = kernel.orderManager;
  const sync = (yes: number, no: number): StateEvent => ({ type: 'PositionSynced', marketId: M1, yes, no, ts: clock.now() });
  const v0 = om.exposureVersion(M1);
  kernel.onEvent(sync(0, 0)); // flat, as the store already had it
  assert.equal(om.exposureVersion(M1), v0, 'same net: nothing moved');
  kernel.onEvents([sync(0, 10_000_000)]); // short 10 the feed never reported
  assert.equal(om.exposureVersion(M1), v0 + 1);
  kernel.onEvent(sync(5_000_000, 15_000_000)); // other holdings, the same net
  assert.equal(om.exposureVersion(M1), v0 + 1);
  assert.equal(om.exposureVersion(M2), 0, 'per market');
  kernel.stop();
});

test('an order gone without its fills seen counts until a positions read begun settleMs after its end is in the store', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const store = new StateStore();
  let kernel!: QuotingKernel;
  const om = new OrderManager({ venue, clock, tolerances: { price: 0, sizeFraction: 0.1 }, settleMs: 3_000, emit: (e) => kernel.onOrderManagerEvent(e) });
  kernel = new QuotingKernel({ clock, venue, store, markets: [market(M1)], orderManager: om, requoteIntervalMs: 250, housekeepingMs: 1000 });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  const ask = [...venue.open.values()].find((o) => o.side === 1 || o.outcomeIndex === 0)!;
  const counted = () => store.state.markets.get(M1.toLowerCase())!.orders.get(ask.nonce.toLowerCase())?.remaining ?? 0;
  const size = counted();
  venue.open.delete(ask.nonce); // filled at the venue; the fills feed has not reported it
  const goneAt = clock.now();
  await om.reconcile(M1);
  assert.equal(om.parkedCount, 1);
  assert.equal(counted(), size, 'parked: still counted at worst case');
  clock.advance(60_000); // however long the balance reads keep failing
  await kernel.flush();
  assert.equal(counted(), size);
  const read = (startedAt: number): StateEvent => ({ type: 'PositionSynced', marketId: M1, yes: 0, no: size, ts: clock.now(), readStartedAt: startedAt });
  kernel.onEvents([read(goneAt + 2_999)]); // begun too soon after the end: the venue may not have settled the fill yet
  assert.equal(counted(), size);
  kernel.onEvents([read(goneAt + 3_000)]);
  // the risk layer's position is the books' (fills): a read the books do not hold yet lets nothing go
  assert.equal(counted(), size, 'the books do not hold the fill yet: the order still counts (old code: 0)');
  // the fill reaches the books (here without the order's nonce, so the fill itself frees nothing)
  // and the next read agrees with them: the order stops counting
  kernel.onEvents([
    {
      type: 'OrderFilled',
      marketId: M1,
      nonce: null,
      outcomeIndex: ask.outcomeIndex,
      side: ask.side,
      price: ask.price,
      size,
      fee: 0,
      fillId: 'late',
      ts: clock.now(),
    },
  ]);
  kernel.onEvents([read(goneAt + 3_000)]);
  assert.equal(counted(), 0, 'the position holds the fill now: the order stops counting');
  kernel.stop();
});

test('a stale ask that trades on arrival is not placed again before its fill is in the position', async () => {
  // A stream stall hides a book that moved up through our asks: the ask the bot places at the old
  // price trades at once (the create answer shows it filled), and the fills feed reports that a
  // poll later. Ticks in between (housekeeping, other events) must not place the quote again: the
  // store still counts the filled ask, so the gate takes the identical quote as that order.
  const { clock, venue, store, kernel } = setup();
  const isAsk = (p: { side: number; outcomeIndex: number }) => p.side === 1 || p.outcomeIndex === 0;
  venue.createScript = (p) => (isAsk(p) ? { ok: true, nonce: p.nonce, order: venueOrder(p, 0), duplicate: false } : undefined);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  const ask = creates(venue).find(isAsk)!;
  venue.open.delete(ask.nonce); // it traded: nothing rests
  venue.createScript = () => undefined;
  for (let i = 0; i < 3; i++) {
    clock.advance(1_000); // housekeeping ticks; the book is still fresh (5 s limit)
    await kernel.flush();
  }
  assert.equal(creates(venue).filter(isAsk).length, 1, 'the filled ask keeps its slot until the fill is reported');
  // the fills feed reports it, the positions read follows: the next tick may quote the ask again
  kernel.onEvents([
    {
      type: 'OrderFilled',
      marketId: M1,
      nonce: ask.nonce,
      outcomeIndex: ask.outcomeIndex,
      side: ask.side,
      price: ask.price,
      size: ask.size,
      fee: 0,
      fillId: `${ask.nonce}:all`,
      ts: clock.now(),
    },
    { type: 'PositionSynced', marketId: M1, yes: 0, no: ask.outcomeIndex === 0 ? ask.size : 0, ts: clock.now() },
    book(M1, 480_000, 520_000, clock.now()),
  ]);
  clock.advance(250);
  await kernel.flush();
  assert.equal(creates(venue).filter(isAsk).length, 2);
  assert.equal(store.state.markets.get(M1.toLowerCase())!.orders.has(ask.nonce.toLowerCase()), false);
  kernel.stop();
});

/**
 * A kernel over `ids` (M1 unless given) on a fake venue, requotes at once, housekeeping every
 * `housekeepingMs` (none by default); `causes` notes each tick's cause as it starts ('M2:event' with
 * more than one market).
 */
function tickCauses(ids: Bytes32[] = [M1], housekeepingMs = 0) {
  const clock = new ManualClock(1_800_000_000_000);
  const causes: string[] = [];
  const k = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store: new StateStore(),
    markets: ids.map((id) => market(id)),
    requoteIntervalMs: 0,
    housekeepingMs,
    onTickStart: (id, cause) => causes.push(ids.length > 1 ? `${id === M1 ? 'M1' : 'M2'}:${cause}` : cause),
  });
  return { clock, k, causes };
}

test('housekeeping skips a market an event ticked within the interval, and still ticks a silent one', async () => {
  const { clock, k, causes } = tickCauses([M1, M2], 1000);
  k.onEvent(book(M1, 480_000, 520_000, clock.now()));
  k.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await k.flush();
  causes.length = 0;
  // M1's book moves just before the round: the round leaves it; M2 heard nothing for a second: ticked
  clock.advance(900);
  k.onEvent(book(M1, 481_000, 521_000, clock.now()));
  clock.advance(100);
  await k.flush();
  assert.deepEqual(causes, ['M1:event', 'M2:housekeeping']);
  // a second later M1 is silent too: both ticked (at most 2 × housekeepingMs between two ticks)
  causes.length = 0;
  clock.advance(1000);
  await k.flush();
  assert.deepEqual(causes.sort(), ['M1:housekeeping', 'M2:housekeeping']);
  k.stop();
});

test('a housekeeping round over many markets ticks every one of them, a slice per turn', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const ids = Array.from({ length: 600 }, (_, i) => ('0x' + (i + 1).toString(16).padStart(64, '0')) as Bytes32);
  const ticked = new Map<string, number>();
  const store = new StateStore();
  const k = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store,
    markets: ids.map(market),
    requoteIntervalMs: 0,
    housekeepingMs: 1000,
    onTickStart: (id, cause) => {
      if (cause === 'housekeeping') ticked.set(id, (ticked.get(id) ?? 0) + 1);
    },
  });
  for (const id of ids) k.onEvent(book(id, 480_000, 520_000, clock.now()));
  await k.flush();
  // each slice after the first is a turn of its own on the clock (a timer of 0 ms)
  let turns = 0;
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, ms) => {
    if (ms === 0) turns++;
    return setTimeout(fn, ms);
  };
  clock.advance(1000);
  await k.flush();
  assert.equal(turns, 2, '600 markets: three slices');
  assert.equal(ticked.size, ids.length);
  assert.ok([...ticked.values()].every((n) => n === 1));
  k.stop();
});

test('a housekeeping round ticks the markets there are at its start: one added since the last round is ticked, one removed is not', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const M3 = ('0x' + '3'.repeat(64)) as Bytes32;
  const ticked: string[] = [];
  const k = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store: new StateStore(),
    markets: [market(M1), market(M2)],
    requoteIntervalMs: 0,
    housekeepingMs: 1000,
    onTickStart: (id, cause) => {
      if (cause === 'housekeeping') ticked.push(id);
    },
  });
  for (const id of [M1, M2, M3]) k.onEvent(book(id, 480_000, 520_000, clock.now()));
  await k.flush();
  clock.advance(1000);
  await k.flush();
  assert.deepEqual(ticked.sort(), [M1, M2].sort(), 'the first round: the two markets');
  // between rounds: one market in, one out (the round's list of slots is made again)
  assert.equal(k.addMarket(market(M3)), true);
  k.removeMarket(M1);
  ticked.length = 0;
  clock.advance(1000);
  await k.flush();
  assert.deepEqual(ticked.sort(), [M2, M3].sort(), 'the next round: the added market, not the removed one');
  // and again with nothing changed: the same markets
  ticked.length = 0;
  clock.advance(1000);
  await k.flush();
  assert.deepEqual(ticked.sort(), [M2, M3].sort());
  k.stop();
});

test('lastSync: a market removed while its sync is out holds nothing of it at once, and that sync ending later leaves the others as they are', async () => {
  const { clock, venue, kernel } = setup(0);
  let release!: () => void;
  venue.hold = new Promise<void>((r) => (release = r));
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  const p1 = kernel.lastSync(M1);
  assert.ok(p1 !== null && kernel.lastSync(M2) !== null, 'both syncs are out');
  // two slots and their two syncs (nothing else per market: no pause, no failure)
  assert.equal(kernel.heldMarketState, 4);
  kernel.removeMarket(M1);
  assert.equal(kernel.lastSync(M1), null);
  assert.equal(kernel.heldMarketState, 2, 'M2 and its sync only');
  release();
  venue.hold = null;
  await p1;
  // M1's sync ending counts nothing off M2 (whose own sync may have ended by now too)
  assert.equal(kernel.heldMarketState, kernel.lastSync(M2) === null ? 1 : 2);
  await kernel.flush();
  assert.equal(kernel.lastSync(M2), null);
  assert.equal(kernel.heldMarketState, 1, 'M2 alone');
  kernel.stop();
});

function status(marketId: Bytes32, state: 'live' | 'reconnecting', ts: number): StateEvent {
  return { type: 'BookEventReceived', event: { type: 'status', marketId, outcomeIndex: 1, state, localTs: ts }, ts };
}

test('a stream keep-alive (status unchanged) does not tick a quoting market; a changed status does', async () => {
  const { clock, k, causes } = tickCauses();
  k.onEvent(status(M1, 'live', clock.now()));
  k.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await k.flush();
  assert.equal(k.lastTick(M1)?.action, 'quote');
  causes.length = 0;
  clock.advance(2_000);
  k.onEvent(status(M1, 'live', clock.now()));
  assert.deepEqual(causes, [], 'the keep-alive ticked nothing');
  k.onEvent(status(M1, 'reconnecting', clock.now()));
  k.onEvent(status(M1, 'live', clock.now()));
  assert.deepEqual(causes, ['event', 'event'], 'each change of the stream state ticks');
  k.stop();
});

test('a keep-alive ticks a market whose quotes were pulled for a silent stream, so it quotes again', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const store = new StateStore();
  const k = new QuotingKernel({ clock, venue: new FakeVenue(), store, markets: [market(M1)], requoteIntervalMs: 0, housekeepingMs: 0 });
  k.onEvent(status(M1, 'live', clock.now()));
  k.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await k.flush();
  // nothing heard for longer than the limits (5 s): the tick pulls the quotes
  clock.advance(5_500);
  k.tick(M1);
  await k.flush();
  const pulled = k.lastTick(M1);
  assert.equal(pulled?.action, 'pull');
  assert.equal(pulled?.reason, 'STALE_BOOK');
  // the stream's keep-alive vouches for the book again: the market ticks and quotes
  k.onEvent(status(M1, 'live', clock.now()));
  await k.flush();
  assert.notEqual(k.lastTick(M1), pulled, 'the keep-alive ticked the pulled market');
  assert.equal(k.lastTick(M1)?.action, 'quote');
  k.stop();
});

test('a balance read that finds the holdings unchanged does not tick the market; a changed one does', async () => {
  const { clock, k, causes } = tickCauses();
  const sync = (yes: number, no: number): StateEvent => ({ type: 'PositionSynced', marketId: M1, yes, no, ts: clock.now() });
  k.onEvent(book(M1, 480_000, 520_000, clock.now()));
  k.onEvent(sync(0, 0));
  await k.flush();
  causes.length = 0;
  k.onEvent(sync(0, 0));
  assert.deepEqual(causes, [], 'same holdings: no tick');
  k.onEvent(sync(5_000_000, 0));
  assert.deepEqual(causes, ['event'], 'new holdings tick');
  k.onEvents([sync(5_000_000, 0), sync(5_000_000, 0)]);
  assert.deepEqual(causes, ['event'], 'a batch of unchanged reads ticks nothing');
  k.stop();
});

test('held because the ledger cannot be written: quotes pulled, nothing placed, and the account kill switch still fires', async () => {
  const { clock, venue, kernel, kills } = await quotingWithKillSwitch();
  kernel.hold('ledger', 'writes fail');
  await kernel.flush();
  assert.equal(venue.open.size, 0, 'every quote pulled');
  const placed = creates(venue).length;
  // it keeps ticking while held: each book event is a tick that pulls (and places nothing)
  kernel.onEvent(book(M1, 481_000, 521_000, clock.now()));
  await kernel.flush();
  assert.equal(kernel.lastTick(M1)?.reason, 'PAUSED');
  assert.equal(kernel.lastTick(M1)?.at, clock.now());
  assert.equal(creates(venue).length, placed, 'nothing placed while held');
  // the account goes bad while held: the kill switch fires on the next tick, not once writes resume
  for (let i = 0; i < 4; i++) kernel.onEvent({ type: 'VenueCallCompleted', call: 'batch', ok: false, ms: 1, ts: clock.now() });
  kernel.onEvent(book(M1, 482_000, 522_000, clock.now()));
  await pump(clock, () => kills.length > 0);
  assert.deepEqual(kills, ['KILL_ERROR_RATE:true']);
  assert.equal(kernel.killed, 'KILL_ERROR_RATE');
  assert.equal(creates(venue).length, placed, 'nothing placed');
});

/**
 * A kernel over M1 with housekeeping every second and, with `stillTickMs`, still markets ticked only
 * that often; `at` notes the clock offset of each housekeeping tick (s), `ticks` each tick as 'cause@s'.
 */
function stillKernel(stillTickMs: number | undefined, deadManSeconds?: number, requoteIntervalMs = 0, stillSkipCountsAsTick = false) {
  const clock = new ManualClock(1_800_000_000_000);
  const t0 = clock.now();
  const venue = new FakeVenue();
  const at: number[] = [];
  const ticks: string[] = [];
  const k = new QuotingKernel({
    clock,
    venue,
    store: new StateStore(),
    markets: [market(M1)],
    requoteIntervalMs,
    housekeepingMs: 1000,
    ...(stillTickMs === undefined ? {} : { stillTickMs }),
    ...(deadManSeconds === undefined ? {} : { deadManSeconds }),
    stillSkipCountsAsTick,
    onTickStart: (_id, cause) => {
      if (cause === 'housekeeping') at.push((clock.now() - t0) / 1000);
      ticks.push(`${cause}@${(clock.now() - t0) / 1000}`);
    },
  });
  return { clock, venue, k, at, ticks };
}

/** Keep-alives every second (the stream vouches for the book) for `seconds`, letting promises run. */
async function liveFor(s: ReturnType<typeof stillKernel>, seconds: number, keepalives = true): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    s.clock.advance(1000);
    if (keepalives) s.k.onEvent(status(M1, 'live', s.clock.now()));
    await s.k.flush();
  }
}

test('a still market (quoting, orders resting, no guard due) is ticked by housekeeping every stillTickMs, not every round', async () => {
  const s = stillKernel(5_000);
  s.k.onEvent(status(M1, 'live', s.clock.now()));
  s.k.onEvent(book(M1, 480_000, 520_000, s.clock.now()));
  await s.k.flush();
  assert.equal(s.k.lastTick(M1)?.action, 'quote');
  await liveFor(s, 12);
  assert.deepEqual(s.at, [5, 10], 'one housekeeping tick per 5 s');
  // the backtest's setting too: the 5 s count from the last tick that ran, not from a skipped one
  const counted = stillKernel(5_000, undefined, 0, true);
  counted.k.onEvent(status(M1, 'live', counted.clock.now()));
  counted.k.onEvent(book(M1, 480_000, 520_000, counted.clock.now()));
  await counted.k.flush();
  await liveFor(counted, 12);
  assert.deepEqual(counted.at, [5, 10], 'one housekeeping tick per 5 s with stillSkipCountsAsTick');
  counted.k.stop();
  // without the option every round ticks it (the backtests' tick counts)
  const every = stillKernel(undefined);
  every.k.onEvent(status(M1, 'live', every.clock.now()));
  every.k.onEvent(book(M1, 480_000, 520_000, every.clock.now()));
  await every.k.flush();
  await liveFor(every, 4);
  assert.deepEqual(every.at, [1, 2, 3, 4]);
  s.k.stop();
  every.k.stop();
});

test("with stillSkipCountsAsTick a still market's skipped round holds back the next event's tick as a tick that ran; without it the event ticks at once", async () => {
  const ticksAfterEvent = async (stillTickMs: number | undefined, skipCounts: boolean): Promise<string[]> => {
    const s = stillKernel(stillTickMs, undefined, 500, skipCounts);
    s.k.onEvent(status(M1, 'live', s.clock.now()));
    s.k.onEvent(book(M1, 480_000, 520_000, s.clock.now()));
    await s.k.flush();
    // rounds at 1 s and 2 s: the market is still (with stillTickMs, both are skipped)
    await liveFor(s, 2);
    // a new book 0.2 s after the round at 2 s: within the requote interval of that round's tick
    s.clock.advance(200);
    s.k.onEvent(book(M1, 470_000, 530_000, s.clock.now()));
    await s.k.flush();
    s.clock.advance(400);
    await s.k.flush();
    s.k.stop();
    return s.ticks.filter((t) => !t.startsWith('housekeeping'));
  };
  // the backtest's setting: the same ticks at the same times as a kernel that ticks every round
  const counted = await ticksAfterEvent(5_000, true);
  assert.deepEqual(counted, await ticksAfterEvent(undefined, false));
  assert.deepEqual(counted, ['event@0', 'throttled@0.5', 'throttled@2.5'], 'the new book waits for the interval after the round at 2 s');
  // live's: nothing ran at 2 s, so the new book ticks at once
  assert.deepEqual(await ticksAfterEvent(5_000, false), ['event@0', 'throttled@0.5', 'event@2.2']);
});

test('a still market whose stream falls silent is pulled in the same round as without stillTickMs', async () => {
  const pulledAt = async (stillTickMs: number | undefined): Promise<number> => {
    const s = stillKernel(stillTickMs);
    s.k.onEvent(status(M1, 'live', s.clock.now()));
    s.k.onEvent(book(M1, 480_000, 520_000, s.clock.now()));
    await s.k.flush();
    // keep-alives for 3 s, then nothing: the book is stale once 5 s (the limit) have passed
    await liveFor(s, 3);
    for (let i = 4; i <= 12; i++) {
      await liveFor(s, 1, false);
      if (s.k.lastTick(M1)?.action === 'pull') {
        assert.equal(s.venue.open.size, 0, 'the quotes are pulled');
        s.k.stop();
        return i;
      }
    }
    s.k.stop();
    return -1;
  };
  const still = await pulledAt(20_000);
  assert.equal(still, await pulledAt(undefined));
  assert.equal(still, 9, 'the first round past the 5 s limit after the last keep-alive (at 3 s)');
});

test('a still market with dead-man orders is ticked when a refresh is due, as without stillTickMs', async () => {
  const refreshes = async (stillTickMs: number | undefined): Promise<number[]> => {
    const s = stillKernel(stillTickMs, 10);
    s.k.onEvent(status(M1, 'live', s.clock.now()));
    s.k.onEvent(book(M1, 480_000, 520_000, s.clock.now()));
    await s.k.flush();
    const calls: number[] = [];
    let n = s.venue.calls.length;
    for (let i = 1; i <= 14; i++) {
      await liveFor(s, 1);
      if (s.venue.calls.length > n) calls.push(i);
      n = s.venue.calls.length;
    }
    s.k.stop();
    return calls;
  };
  const still = await refreshes(60_000);
  assert.ok(still.length > 0, 'orders expiring in 10 s are replaced');
  assert.deepEqual(still, await refreshes(undefined), 'at the same seconds');
});
