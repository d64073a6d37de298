/**
 * The bot's start/confirm/release steps (BotMarkets) over the real pipeline pieces — quoting kernel,
 * order manager (against a fake venue), store, health model, book feed, feed health, tick-to-wire
 * meter and the bot's metrics registry — driven by a MarketRotation:
 *   - a started market quotes; a retired one has its quotes cancelled at the venue before release;
 *   - a retirement whose cancels the venue does not confirm is never released;
 *   - a released market holding a position keeps a small record (no book, no history) until flat;
 *   - 1,000 start/retire cycles leave no per-market entry in any of those maps (counted, not RSS).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import bands from '../../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../../src/config/parse-risk.ts';
import { createBookFeed } from '../../../src/feeds/book-feed.ts';
import { FeedHealth } from '../../../src/feeds/feed-health.ts';
import { bindStoreMetrics } from '../../../src/metrics/bind-store-metrics.ts';
import { createBotMetrics } from '../../../src/metrics/bot-metrics.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { OrderManager } from '../../../src/orders/order-manager.ts';
import { HealthModel } from '../../../src/health/health-model.ts';
import { QuotingKernel, type KernelMarket } from '../../../src/kernel/quoting-kernel.ts';
import { Account } from '../../../src/account/account.ts';
import { BotMarkets } from '../../../src/runtime/rotation/bot-markets.ts';
import { MarketRotation } from '../../../src/runtime/rotation/market-rotation.ts';
import { TickToWireMeter } from '../../../src/kernel/tick-to-wire.ts';
import { edgeView } from '../../../src/state/edge-view.ts';
import type { StateEvent } from '../../../src/state/events.ts';
import { selectMarketView } from '../../../src/state/market-view.ts';
import { othersBook } from '../../../src/strategy/others-book.ts';
import { StateStore } from '../../../src/state/store.ts';
import { ManualClock } from '../../exchange/stream/manual-clock.ts';
import { FakeVenue } from '../../orders/fake-venue.ts';

const params = bands.parseConfig({ fair: 'mid', bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] }, 'strategy');
const risk = { ...DEFAULT_RISK, maxBookAgeMs: 60_000, maxStreamSilenceMs: 60_000 };
const id = (n: number): Bytes32 => `0x${(n + 1).toString(16).padStart(64, 'a')}` as Bytes32;
const km = (n: number): KernelMarket => ({ marketId: id(n), strategy: bands, params, risk });

function book(marketId: Bytes32, ts: number): StateEvent {
  return {
    type: 'BookEventReceived',
    event: {
      type: 'snapshot',
      book: { marketId, outcomeIndex: 1, bids: [{ price: 480_000, size: 100_000_000 }], asks: [{ price: 520_000, size: 100_000_000 }], venueTs: ts },
      seq: 1,
      localTs: ts,
      source: 'stream',
    },
    ts,
  };
}

function rig(
  leftBecause?: (id: Bytes32) => 'ranked-out' | 'shard' | null,
  firstPosition?: (id: Bytes32) => Promise<void>,
  status: (id: Bytes32) => string = () => 'active',
) {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const store = new StateStore();
  const metrics = createBotMetrics();
  const unbind = bindStoreMetrics(metrics, store);
  const om = new OrderManager({ venue, clock, tolerances: { price: 0, sizeFraction: 0.1 }, emit: (e) => store.dispatch(e), ownMarkets: [] });
  const kernel = new QuotingKernel({ clock, venue, store, markets: [], requoteIntervalMs: 0, housekeepingMs: 0, orderManager: om });
  const health = new HealthModel({ markets: [], state: () => store.state, lastTick: (m) => kernel.lastTick(m), clock });
  const feedHealth = new FeedHealth();
  const books = createBookFeed({ baseUrl: 'http://127.0.0.1:1', marketIds: [], fetchSnapshot: () => async () => null as never, clock, health: feedHealth });
  const meter = new TickToWireMeter({ tickToWire: () => undefined, throttle: () => undefined });
  const bm = new BotMarkets({
    initial: [],
    kernel,
    orderManager: om,
    venue,
    store,
    health,
    books,
    clock,
    firstBook: async (m) => kernel.onEvent(book(m, clock.now())),
    marketStatus: async () => 'active',
    ...(leftBecause ? { leftBecause } : {}),
    ...(firstPosition ? { firstPosition } : {}),
    marketInfo: async (m: Bytes32) => ({
      status: status(m),
      event: {
        type: 'MarketMetadataUpdated',
        marketId: m,
        slug: `slug-${Number(m) % 1000}`,
        status: 'active',
        deadline: 1_900_000_000_000,
        ts: clock.now(),
      } as StateEvent,
    }),
    ownMarkets: (ids) => om.setOwnMarkets(ids),
    forgetMeter: (m) => meter.forget(m),
    registry: metrics.registry,
  });
  let selection: KernelMarket[] = [];
  const rotation = new MarketRotation({ ports: bm.ports(async () => selection), clock, refreshMs: 0, confirmDelayMs: 10, retryMs: 1_000 });
  const select = (ms: KernelMarket[]): void => {
    selection = ms;
  };
  return { clock, venue, store, metrics, unbind, om, kernel, health, feedHealth, books, meter, bm, rotation, select };
}

async function until(clock: ManualClock, cond: () => boolean, maxSteps = 2_000): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
    clock.advance(10);
  }
  throw new Error('condition never held');
}

const ofMarket = (v: FakeVenue, m: Bytes32): number => [...v.open.values()].filter((o) => o.marketId === m).length;

describe('BotMarkets under MarketRotation', () => {
  test('start quotes; retire cancels at the venue before release; a position keeps a small record until flat', async () => {
    const r = rig();
    r.select([km(0), km(1)]);
    await r.rotation.refresh();
    await until(r.clock, () => ofMarket(r.venue, id(0)) === 2 && ofMarket(r.venue, id(1)) === 2);
    assert.deepEqual(r.bm.ids, [id(0), id(1)]);
    assert.deepEqual(r.om.ownMarkets(), [id(0), id(1)]);
    assert.equal(r.health.marketState(id(0)) !== null, true);

    // a position in market 1 before it leaves
    r.kernel.onEvent({ type: 'PositionSynced', marketId: id(1), yes: 5_000_000, no: 0, ts: r.clock.now() });
    r.select([km(0)]);
    await r.rotation.refresh();
    await until(r.clock, () => !r.rotation.isRetiring(id(1)));
    assert.equal(ofMarket(r.venue, id(1)), 0, 'its quotes were cancelled at the venue');
    assert.equal(ofMarket(r.venue, id(0)), 2, 'the other market kept quoting');
    assert.equal(r.kernel.hasMarket(id(1)), false);
    assert.equal(r.health.marketState(id(1)), null);
    assert.equal(r.books.streams.has(id(1)), false);
    assert.deepEqual(r.om.ownMarkets(), [id(0)]);
    const slim = r.store.state.markets.get(id(1))!;
    assert.ok(slim, 'the position is still tracked');
    assert.equal(slim.position.yes, 5_000_000);
    assert.equal(slim.books.yes, null);
    assert.equal(slim.midHistory.length, 0);
    assert.equal(r.bm.retainedCount, 1);
    assert.ok(r.bm.tracked().includes(id(1)), 'the position feeds still follow it');
    assert.ok(!r.bm.ids.includes(id(1)));
    // flat: it leaves the store at the next sweep
    r.store.dispatch({ type: 'PositionSynced', marketId: id(1), yes: 0, no: 0, ts: r.clock.now() });
    r.bm.sweep();
    assert.equal(r.store.state.markets.has(id(1)), false);
    assert.equal(r.bm.retainedCount, 0);
    r.rotation.stop();
    r.kernel.stop();
    r.unbind();
  });

  test('a retirement whose cancels the venue refuses is never released: it stays retiring and quotes nothing', async () => {
    const r = rig();
    r.select([km(0)]);
    await r.rotation.refresh();
    await until(r.clock, () => ofMarket(r.venue, id(0)) === 2);
    // the venue answers every cancel with a retryable failure: the orders stay open
    r.venue.cancelScript = (n) => ({ ok: false, nonce: n, code: 'server-error', message: 'busy', retryable: true });
    r.select([]);
    await r.rotation.refresh();
    await until(r.clock, () => r.rotation.summary().stuck > 0);
    assert.equal(r.rotation.isRetiring(id(0)), true);
    assert.equal(r.kernel.hasMarket(id(0)), true, 'not released');
    assert.equal(r.books.streams.has(id(0)), true, 'its feeds stay until its orders are gone');
    assert.deepEqual(r.om.ownMarkets(), [id(0)], 'its orders stay the bot’s to cancel');
    // the venue recovers: the next round confirms and releases it
    r.venue.cancelScript = () => undefined;
    await until(r.clock, () => !r.rotation.isRetiring(id(0)));
    assert.equal(ofMarket(r.venue, id(0)), 0);
    assert.equal(r.kernel.hasMarket(id(0)), false);
    r.rotation.stop();
    r.kernel.stop();
    r.unbind();
  });

  test('1,000 start/retire cycles leave no per-market state behind', async () => {
    const r = rig();
    // the memos each market's views filled: held by its state, nowhere else (src/state/market-memo.ts)
    const memos = new Set<object>();
    for (let i = 0; i < 1_000; i++) {
      r.select([km(i)]);
      await r.rotation.refresh();
      await until(r.clock, () => ofMarket(r.venue, id(i)) === 2 && !r.rotation.isRetiring(id(i - 1)));
      // what the summary, metrics and report read of a quoting market (edge view, PnL, view)
      const m = r.store.state.markets.get(id(i).toLowerCase());
      assert.ok(m, 'quoting');
      edgeView(m, r.clock.now());
      const view = selectMarketView(r.store.state, id(i), r.clock.now());
      assert.ok(view);
      othersBook(view); // what the shipped strategies' fair value reads (fairFrom: others)
      assert.ok(m.memo.book !== null && m.memo.others !== null && view.memo === m.memo, 'the view, edge and others-book memos are the market state’s');
      memos.add(m.memo);
    }
    r.select([]);
    await r.rotation.refresh();
    await until(r.clock, () => r.rotation.retiringIds().length === 0);
    r.bm.sweep();
    assert.equal(r.rotation.summary().started, 1_000);
    assert.equal(r.rotation.summary().retired, 1_000);
    assert.equal(r.venue.open.size, 0, 'no order left anywhere');
    const held = {
      rotation: r.rotation.heldMarketState,
      kernel: r.kernel.heldMarketState,
      orderManager: r.om.heldMarketState,
      health: r.health.heldMarketState,
      store: r.store.state.markets.size,
      bookStreams: r.books.streams.size,
      feedHealth: r.feedHealth.size,
      meter: r.meter.size,
      lists: r.bm.ids.length + r.bm.retainedCount,
      ownSet: r.om.ownMarkets()!.length,
    };
    assert.deepEqual(held, { rotation: 0, kernel: 0, orderManager: 0, health: 0, store: 0, bookStreams: 0, feedHealth: 0, meter: 0, lists: 0, ownSet: 0 });
    // the view, edge-view, others'-book memos of the 1,000 retired markets went with their state, and
    // the slot names with the kernel's slots (both owners hold nothing above)
    assert.equal(memos.size, 1_000);
    for (const m of r.store.state.markets.values()) assert.ok(!memos.has(m.memo));
    // metric series: removal is asynchronous (prom-client's get); give it a turn
    await new Promise((res) => setImmediate(res));
    const text = await r.metrics.registry.metrics();
    assert.equal(text.match(/market="0x/g)?.length ?? 0, 0, 'no market label series left');
    r.rotation.stop();
    r.kernel.stop();
    r.unbind();
  });
});

test('a retiring market reads as paused on purpose in the health model, not as failing to quote', async () => {
  const r = rig();
  r.select([km(0)]);
  await r.rotation.refresh();
  await until(r.clock, () => ofMarket(r.venue, id(0)) === 2);
  r.health.setProcess('running');
  // the cancels land but the venue's order list cannot be read: the retirement cannot be confirmed
  r.venue.failOpenOrders = 1_000_000;
  r.select([]);
  await r.rotation.refresh();
  await until(r.clock, () => r.rotation.summary().stuck > 0);
  assert.equal(ofMarket(r.venue, id(0)), 0);
  r.clock.advance(60_000);
  r.health.evaluate();
  assert.equal(r.health.marketState(id(0)), 'market-paused');
  assert.deepEqual(r.health.readiness().reasons, []);
  assert.equal(r.kernel.hasMarket(id(0)), true, 'the slot stays until the release');
  r.venue.failOpenOrders = 0;
  await until(r.clock, () => !r.rotation.isRetiring(id(0)));
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});

test('a market the selection itself let go (rank, shard) retires with that reason; otherwise the venue says why', async () => {
  const r = rig((m) => (m === id(1) ? 'ranked-out' : null));
  r.select([km(0), km(1), km(2)]);
  await r.rotation.refresh();
  await until(r.clock, () => [0, 1, 2].every((i) => ofMarket(r.venue, id(i)) === 2));
  r.select([km(0)]);
  await r.rotation.refresh();
  await until(r.clock, () => r.rotation.retiringIds().length === 0);
  assert.deepEqual(r.rotation.totals().retired, { 'ranked-out': 1, 'filtered-out': 1 });
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});

test("a started market quotes only after its position is read (an earlier run's holding counts first)", async () => {
  let read!: () => void;
  const gate = new Promise<void>((r) => (read = r));
  const r = rig(undefined, () => gate);
  r.select([km(0)]);
  const refreshed = r.rotation.refresh();
  for (let i = 0; i < 50; i++) {
    await new Promise((res) => setImmediate(res));
    r.clock.advance(10);
  }
  assert.equal(r.venue.open.size, 0, 'no quote before the position is known');
  assert.equal(r.kernel.hasMarket(id(0)), false);
  read();
  await refreshed;
  await until(r.clock, () => ofMarket(r.venue, id(0)) === 2);
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});

test('a selected market starts only when the venue lists it active, with its metadata (deadline) known before its first quote', async () => {
  const r = rig(undefined, undefined, (m) => (m === id(1) ? 'closed' : 'active'));
  r.select([km(0), km(1)]);
  await r.rotation.refresh();
  await until(r.clock, () => ofMarket(r.venue, id(0)) === 2);
  assert.equal(r.rotation.isActive(id(1)), false);
  assert.equal(r.store.state.markets.has(id(1)), false, 'nothing of the closed market is kept');
  assert.equal(r.store.state.markets.get(id(0))!.deadline, 1_900_000_000_000);
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});

test('a fill landing after a flat release makes the market followed again until its position is flat', async () => {
  const r = rig();
  r.select([km(0)]);
  await r.rotation.refresh();
  await until(r.clock, () => ofMarket(r.venue, id(0)) === 2);
  r.select([]);
  await r.rotation.refresh();
  await until(r.clock, () => !r.rotation.isRetiring(id(0)));
  assert.equal(r.store.state.markets.has(id(0)), false);
  assert.equal(r.bm.known(id(0)), false);
  // what the bot's feed sink does with an event of a market it does not follow any more
  r.store.dispatch({ type: 'PositionSynced', marketId: id(0), yes: 2_000_000, no: 0, ts: r.clock.now() });
  r.bm.retain(id(0));
  assert.equal(r.bm.retainedCount, 1);
  assert.ok(r.bm.tracked().includes(id(0)));
  r.bm.sweep();
  assert.equal(r.bm.retainedCount, 1, 'still held');
  r.store.dispatch({ type: 'PositionSynced', marketId: id(0), yes: 0, no: 0, ts: r.clock.now() });
  r.bm.sweep();
  assert.equal(r.bm.retainedCount, 0);
  assert.equal(r.store.state.markets.has(id(0)), false);
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});

test("a market released holding tokens tells the account's books: its book compacts once its payout is known, its figures unmoved", async () => {
  const r = rig();
  r.select([km(0), km(1)]);
  await r.rotation.refresh();
  await until(r.clock, () => ofMarket(r.venue, id(0)) === 2 && ofMarket(r.venue, id(1)) === 2);
  // 40 fills in market 1 (a foreign order on the wallet: no order of ours to settle): 20 YES held
  for (let i = 0; i < 40; i++)
    r.kernel.onEvent({
      type: 'OrderFilled',
      marketId: id(1),
      nonce: null,
      outcomeIndex: 1,
      side: i % 2 === 0 ? 0 : 1,
      price: 480_000 + (i % 7) * 1_000,
      size: i % 2 === 0 ? 2_000_000 : 1_000_000,
      fee: 0,
      fillId: `f-${i}`,
      origin: 'foreign',
      ts: r.clock.now(),
    });
  const account = r.kernel.account;
  assert.equal(account.market(id(1))?.yes, 20_000_000);
  assert.ok(account.newestKeptTs(id(1)) !== null, 'the book keeps its fills while the market trades');
  r.select([km(0)]);
  await r.rotation.refresh();
  await until(r.clock, () => !r.rotation.isRetiring(id(1)) && !r.kernel.hasMarket(id(1)));
  assert.equal(r.bm.retainedCount, 1, 'released, its position still followed');
  // the market feed (it follows the retained market) reports the resolution: YES pays 1
  const before = account.figures();
  r.kernel.onEvent({ type: 'MarketMetadataUpdated', marketId: id(1), status: 'resolved', payoutYes: 1_000_000, ts: r.clock.now() });
  // the same resolution in a book never released: the figures a compaction must not move
  const ref = new Account();
  for (let i = 0; i < 40; i++)
    ref.applyFill({
      fillId: `f-${i}`,
      marketId: id(1),
      outcomeIndex: 1,
      side: i % 2 === 0 ? 0 : 1,
      price: 480_000 + (i % 7) * 1_000,
      size: i % 2 === 0 ? 2_000_000 : 1_000_000,
      fee: 0,
      feeSource: 'venue',
      ts: 1_800_000_000_000,
      origin: 'foreign',
    });
  ref.resolve(id(1), 1_000_000, r.clock.now());
  assert.equal(account.newestKeptTs(id(1)), null, 'the released, resolved book keeps no fills (on the old code: all 40 kept)');
  const dropMark = <T extends { markedAt: number | null }>(x: T) => ({ ...x, markedAt: 0 });
  assert.deepEqual(dropMark(account.market(id(1))!), dropMark({ ...ref.market(id(1))!, book: account.market(id(1))!.book }), 'to the unit');
  assert.notDeepEqual(account.figures().realised, before.realised, 'the resolution realised the PnL');
  // the whole book as the account holds it: no kept-fills columns nor a whole id memory
  const detached = account.peekBook(id(1)) as unknown as { fills: { length: number }; ids: { limit: number }; packedIds: string | null };
  assert.equal(detached.fills.length, 0);
  assert.ok(detached.packedIds !== null && detached.ids.limit <= 32, 'its ids packed, as a folded book keeps them');
  // the sweep lets it go from the store (payout known): the books keep the compact book until its claim
  r.bm.sweep();
  assert.equal(r.bm.retainedCount, 0);
  assert.equal(account.newestKeptTs(id(1)), null);
  r.rotation.stop();
  r.kernel.stop();
  r.unbind();
});
