/**
 * The local exchange's market churn (src/sim/market-churn.ts) on a manual clock, over HTTP: markets
 * created on schedule with seeded metadata, closed at their deadline (orders refused, resting ones
 * cancellable), resolved after the delay (resting orders voided MARKET_RESOLVED, positions claimable,
 * the book stream's status event and end), the counterparties following the markets, the cap, and a
 * restart from a state file that continues the same sequence.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { createMarketChurn, churnIndexOf, resolutionPayout, churnOptions, type MarketChurn } from '../../src/sim/market-churn.ts';
import { startCounterparties } from '../../src/sim/counterparties.ts';
import type { MarketRecord } from '../../src/sim/records.ts';
import { manualClock, startHarness, type Harness } from './account/harness.ts';
import { readSse } from './helpers.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';

let h: Harness;
let churn: MarketChurn;

before(async () => {
  h = await startHarness({ apiKeys: [{ key: 'maker-key' }, { key: 'taker-key' }], markets: 1 });
  churn = createMarketChurn(h.ex, { seed: 5, newMarketEveryMs: 15_000, lifetimeMs: 45_000, resolutionDelayMs: 5_000 });
});
after(() => h.close());

const generated = (): MarketRecord[] => [...h.ex.state.stores.markets.values()].filter((m) => churnIndexOf(m) !== undefined);

/** advance the clock by `ms` in steps of `step`, running the churn after each */
function run(ms: number, step = 1_000): void {
  for (let t = 0; t < ms; t += step) {
    h.clock.advance(step);
    churn.step();
  }
}

test('a market every period, with seeded metadata and deadline = creation + lifetime; listed as active', async () => {
  churn.step();
  assert.equal(generated().length, 0, 'nothing before the first period');
  run(15_000);
  const [m] = generated();
  assert.ok(m);
  assert.equal(churnIndexOf(m), 1);
  assert.equal(m.deadline - m.createdAt, 45_000);
  assert.match(m.id, /^0x[0-9a-f]{64}$/);
  assert.ok(m.question.startsWith('Will ') && m.question.endsWith('?'));
  assert.ok(['crypto', 'economics', 'sports', 'weather', 'tech'].includes(m.category));
  assert.ok(m.slug.length > 6);
  const listed = await h.call('GET', '/markets?status=active&limit=50');
  assert.ok(listed.body.markets.some((x: { id: string }) => x.id === m.id));
  const one = await h.call('GET', `/markets/${m.id}`);
  assert.equal(one.body.market.status, 'active');
  assert.equal(one.body.market.resolutionStatus, 'none');
  assert.equal(one.body.market.deadline, new Date(m.deadline).toISOString());
  // the same seed gives the same market n in another exchange
  const oc = manualClock(h.clock.now() - 15_000);
  const other = createLocalExchange({ seed: 1, markets: 0, clock: oc, expirySweepMs: 0 });
  const c2 = createMarketChurn(other, { seed: 5, newMarketEveryMs: 15_000, lifetimeMs: 45_000 });
  oc.advance(15_000);
  c2.step();
  const m2 = [...other.state.stores.markets.values()][0]!;
  assert.equal(m2.id, m.id);
  assert.equal(m2.question, m.question);
  await other.close();
});

test('at the deadline: closed (resolution pending), new orders 409, resting orders cancellable; then resolved: voided, claimable, stream status + end', async () => {
  const m = generated()[0]!;
  const maker = h.signerOf('maker-key');
  const taker = h.signerOf('taker-key');
  // a trade (maker buys YES 4 @ 40c against the taker buying NO) and a resting bid that stays open
  const bid = maker.signOrder({ marketId: m.id, outcomeIndex: 1, side: 0, price: 400_000, size: 4_000_000 });
  assert.equal((await h.call('POST', '/orders', { key: 'maker-key', body: bid })).status, 201);
  const noBuy = taker.signOrder({ marketId: m.id, outcomeIndex: 0, side: 0, price: 600_000, size: 4_000_000 });
  const filled = await h.call('POST', '/orders', { key: 'taker-key', body: noBuy });
  assert.equal(filled.status, 201);
  assert.equal(filled.body.order.status, 'filled');
  const resting = maker.signOrder({ marketId: m.id, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  assert.equal((await h.call('POST', '/orders', { key: 'maker-key', body: resting })).status, 201);
  const resting2 = maker.signOrder({ marketId: m.id, outcomeIndex: 1, side: 0, price: 200_000, size: 5_000_000 });
  assert.equal((await h.call('POST', '/orders', { key: 'maker-key', body: resting2 })).status, 201);

  // a book stream open across the deadline hears the close at once (event: status, the next seq) and stays open
  const url = `${h.baseUrl}/markets/${m.id}/orderbook?outcomeIndex=1`;
  const acrossClose = readSse(url, {}, (f) => f.some((x) => x.event === 'status'), 10_000);
  for (let i = 0; i < 50 && h.ex.hub.subscriberCount() === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(h.ex.hub.subscriberCount(), 1);
  run(m.deadline - h.clock.now());
  assert.equal(m.status, 'closed');
  const heard = await acrossClose;
  const closedFrame = heard.frames.find((f) => f.event === 'status')!;
  assert.equal(heard.frames[0]!.event, 'snapshot');
  assert.deepEqual([closedFrame.data.status, closedFrame.data.resolutionStatus, closedFrame.data.outcome], ['closed', 'pending', null]);
  assert.equal(closedFrame.data.seq, heard.frames[heard.frames.length - 2]!.data.seq + 1, 'the close takes the next seq');
  for (let i = 0; i < 50 && h.ex.hub.subscriberCount() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const closed = await h.call('GET', `/markets/${m.id}`);
  assert.equal(closed.body.market.status, 'closed');
  assert.equal(closed.body.market.resolutionStatus, 'pending');
  assert.equal(closed.body.market.proposedAt, new Date(m.deadline).toISOString());
  assert.equal(closed.body.market.resolvedAt, null);
  assert.ok(!(await h.call('GET', '/markets?status=active&limit=50')).body.markets.some((x: { id: string }) => x.id === m.id), 'no longer listed as active');
  const late = maker.signOrder({ marketId: m.id, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  const refused = await h.call('POST', '/orders', { key: 'maker-key', body: late });
  assert.equal(refused.status, 409);
  const cancel = await h.call('POST', '/orders/cancel', { key: 'maker-key', body: maker.signCancel(resting.nonce) });
  assert.equal(cancel.status, 201, JSON.stringify(cancel.body));
  assert.equal(cancel.body.alreadyCancelled, false);

  // a book stream open across the resolution: its last event is the status, then the stream ends; opened
  // on a closed market it starts with the snapshot and the closed status (the snapshot's seq)
  const streaming = readSse(url, {}, () => false, 10_000);
  for (let i = 0; i < 50 && h.ex.hub.subscriberCount() === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(h.ex.hub.subscriberCount(), 1);
  run(5_000);
  assert.equal(m.status, 'resolved');
  const got = await streaming; // returns because the server ended the stream (the predicate never stops it)
  const events = got.frames.map((f) => f.event);
  assert.equal(events[0], 'snapshot');
  assert.equal(events[1], 'status');
  assert.equal(got.frames[1]!.data.status, 'closed');
  assert.equal(got.frames[1]!.data.seq, got.frames[0]!.data.seq);
  assert.equal(events[events.length - 1], 'status');
  const status = got.frames[got.frames.length - 1]!.data;
  assert.equal(status.status, 'resolved');
  assert.equal(status.marketId, m.id);
  assert.ok(status.outcome === 0 || status.outcome === 1);
  assert.ok(status.seq > got.frames[0]!.data.seq, 'the status event takes the next seq');
  assert.equal(h.ex.hub.subscriberCount(), 0);
  // a stream asked for afterwards: snapshot (empty book), status, end
  const again = await readSse(url, {}, () => false, 5_000);
  assert.deepEqual(
    again.frames.map((f) => f.event),
    ['snapshot', 'status'],
  );
  assert.deepEqual(again.frames[0]!.data.bids, []);

  const payoutYes = resolutionPayout(5, m.id, 0.5);
  assert.equal(m.outcome, payoutYes === 1_000_000 ? 1 : 0, 'the seeded draw decided the outcome');
  const one = await h.call('GET', `/markets/${m.id}`);
  assert.equal(one.body.market.status, 'resolved');
  assert.equal(one.body.market.resolutionStatus, 'resolved');
  assert.equal(one.body.market.resolvedAt, new Date(m.deadline + 5_000).toISOString());
  const voided = await h.call('GET', `/orders?trader=${maker.address}&marketId=${m.id}&status=voided`, { key: 'maker-key' });
  assert.equal(voided.body.orders.length, 1, 'the one order still resting was voided');
  assert.equal(voided.body.orders[0].voidReason, 'MARKET_RESOLVED');
  const open = await h.call('GET', `/orders?trader=${maker.address}&marketId=${m.id}&status=open`, { key: 'maker-key' });
  assert.equal(open.body.orders.length, 0);
  const winner = payoutYes === 1_000_000 ? maker.address : taker.address;
  const winnerKey = payoutYes === 1_000_000 ? 'maker-key' : 'taker-key';
  const claim = await h.call('GET', `/portfolio/${winner}/claimable`, { key: winnerKey });
  assert.equal(claim.body.totalClaimable, '4000000', '4 winning shares pay 4 USDC');
  const activity = h.ex.state.stores.activity.filter((a) => a.marketId === m.id).map((a) => a.type);
  assert.deepEqual([activity[0], activity[activity.length - 1]], ['market_created', 'resolution']);
  assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
});

test('counterparties trade markets created after they started and drop them once resolved', async () => {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 3, markets: 0, clock, expirySweepMs: 0 });
  const c = createMarketChurn(ex, { seed: 3, newMarketEveryMs: 10_000, lifetimeMs: 30_000, resolutionDelayMs: 2_000 });
  const cp = startCounterparties(ex, { seed: 3, intervalMs: 1e9, churn: c });
  try {
    const trades = (id: string): number => ex.state.stores.activity.filter((a) => a.type === 'trade' && a.marketId === id).length;
    for (let i = 0; i < 25; i++) {
      clock.advance(1_000);
      c.step();
      cp.step();
    }
    const first = [...ex.state.stores.markets.values()][0]!;
    assert.ok(trades(first.id) > 0, 'the agents traded a market created after they started');
    assert.ok(cp.fair.has(first.id.toLowerCase()));
    for (let i = 0; i < 60; i++) {
      clock.advance(1_000);
      c.step();
      cp.step();
    }
    assert.equal(first.status, 'resolved');
    const n = trades(first.id);
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      c.step();
      cp.step();
    }
    assert.equal(trades(first.id), n, 'no trade after the resolution');
    assert.ok(!cp.fair.has(first.id.toLowerCase()), 'its state was dropped');
    assert.ok(c.counts.resolved >= 1 && c.counts.created >= 5);
    assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
  } finally {
    cp.stop();
    await ex.close();
  }
});

test('maxLiveMarkets: no new market while that many generated markets are active', async () => {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 8, markets: 0, clock, expirySweepMs: 0 });
  const c = createMarketChurn(ex, { seed: 8, newMarketEveryMs: 1_000, lifetimeMs: 10_000, resolutionDelayMs: 0, maxLiveMarkets: 3 });
  try {
    let most = 0;
    for (let i = 0; i < 40; i++) {
      clock.advance(1_000);
      c.step();
      most = Math.max(most, [...ex.state.stores.markets.values()].filter((m) => m.status === 'active').length);
    }
    assert.equal(most, 3);
    assert.ok(c.counts.capped > 0);
    assert.ok(c.counts.resolved >= 3, 'markets kept coming and going under the cap');
  } finally {
    await ex.close();
  }
});

test('a restart from the state file keeps closed markets closed and continues the same sequence', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'churn-'));
  const file = join(dir, 'state.json');
  const start = Date.UTC(2026, 10, 21, 10, 0, 0);
  const opts = { seed: 21, newMarketEveryMs: 10_000, lifetimeMs: 20_000, resolutionDelayMs: 10_000 };
  try {
    // uninterrupted: 6 markets
    const refClock = manualClock(start);
    const ref = createLocalExchange({ seed: 2, markets: 0, clock: refClock, expirySweepMs: 0 });
    const rc = createMarketChurn(ref, opts);
    for (let i = 0; i < 60; i++) {
      refClock.advance(1_000);
      rc.step();
    }
    const want = [...ref.state.stores.markets.values()].map((m) => [m.id, m.status]);
    await ref.close();

    // the same, stopped (journal only, no clean checkpoint of the last changes is needed) after 35 s
    const clock = manualClock(start);
    const a = createLocalExchange({ seed: 2, markets: 0, clock, expirySweepMs: 0, stateFile: file });
    await a.start(0);
    const ac = createMarketChurn(a, opts);
    for (let i = 0; i < 35; i++) {
      clock.advance(1_000);
      ac.step();
    }
    const closedBefore = [...a.state.stores.markets.values()].filter((m) => m.status === 'closed').map((m) => m.id);
    assert.ok(closedBefore.length >= 1, 'a market is closed, waiting for its resolution');
    await a.close();
    const b = createLocalExchange({ seed: 2, markets: 0, clock, expirySweepMs: 0, stateFile: file });
    for (const id of closedBefore) assert.equal(b.state.services.findMarket(id)!.status, 'closed');
    const idx = b.state.engine.marketIndex(closedBefore[0]!)!;
    assert.equal(b.state.engine.engine.market(idx)!.status, 'halted', 'the engine market is still halted');
    const bc = createMarketChurn(b, opts);
    for (let i = 35; i < 60; i++) {
      clock.advance(1_000);
      bc.step();
    }
    assert.deepEqual(
      [...b.state.stores.markets.values()].map((m) => [m.id, m.status]),
      want,
    );
    await b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a crash (the files as a kill -9 leaves them, no checkpoint) replays closes and resolutions from the journal', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'churn-crash-'));
  const clock = manualClock();
  mkdirSync(join(dir, 'live'), { recursive: true });
  const ex = createLocalExchange({ seed: 2, markets: 1, clock, expirySweepMs: 0, stateFile: join(dir, 'live', 'state'), apiKeys: [{ key: 'k' }] });
  try {
    const base = await ex.start(0);
    const c = createMarketChurn(ex, { seed: 9, newMarketEveryMs: 5_000, lifetimeMs: 10_000, resolutionDelayMs: 5_000 });
    for (let i = 0; i < 23; i++) {
      clock.advance(1_000);
      c.step();
    }
    const statuses = (e: typeof ex) => [...e.state.stores.markets.values()].map((m) => `${m.id}:${m.status}:${m.resolutionStatus}:${m.outcome}`);
    const live = statuses(ex);
    assert.ok(live.some((x) => x.includes(':closed:')) && live.some((x) => x.includes(':resolved:')), live.join('\n'));
    // an acknowledged request: everything journalled before it is on disk once it is answered
    const signer = createSigner({ privateKey: ex.state.keys.get('k')!.privateKey!, chain: TESTNET });
    const demo = [...ex.state.stores.markets.values()][0]!;
    const r = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify(signer.signOrder({ marketId: demo.id, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 })),
    });
    assert.equal(r.status, 201);
    mkdirSync(join(dir, 'copy'));
    for (const n of readdirSync(join(dir, 'live'))) copyFileSync(join(dir, 'live', n), join(dir, 'copy', n));
    const back = createLocalExchange({ seed: 2, markets: 1, clock, expirySweepMs: 0, stateFile: join(dir, 'copy', 'state'), apiKeys: [{ key: 'k' }] });
    try {
      assert.ok(back.restoredRecords > 0, 'restored from the journal, not a snapshot');
      assert.deepEqual(statuses(back), live);
      assert.deepEqual(back.state.engine.engine.checkInvariants(), []);
    } finally {
      await back.close();
    }
  } finally {
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('churnOptions: seconds to whole ms; a pass at least four times per period', () => {
  const o = churnOptions(4, { newMarketEverySeconds: 15, marketLifetimeSeconds: 45, resolutionDelaySeconds: null, maxLiveMarkets: 0 });
  assert.equal(o.newMarketEveryMs, 15_000);
  assert.equal(o.lifetimeMs, 45_000);
  assert.equal(o.resolutionDelayMs, undefined);
  assert.equal(o.tickMs, 500);
  const fast = churnOptions(4, { newMarketEverySeconds: 0.2, marketLifetimeSeconds: 0.4, resolutionDelaySeconds: 0, maxLiveMarkets: 2 });
  assert.equal(fast.tickMs, 50);
  assert.equal(fast.resolutionDelayMs, 0);
  assert.throws(() => createMarketChurn(h.ex, { seed: 1, lifetimeMs: 0 }), /lifetimeMs/);
  assert.throws(() => createMarketChurn(h.ex, { seed: 1, newMarketEveryMs: -1 }), /newMarketEveryMs/);
});
