/** Market data over HTTP: markets list/search/get, activity, oracle and oracle quotes, prices, quotes, simulate. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, harness, type Harness } from './helpers.ts';
import { startCounterparties, type Counterparties } from '../../src/sim/counterparties.ts';
import { checksum } from '../../src/sim/checksum.ts';
import { asyncScheduler } from 'rxjs';

let h: Harness;
let cp: Counterparties;
// a clock the test moves: the agents' Poisson arrivals and oracle checks follow it
let now = Date.now();
const clock = {
  now: () => now,
  scheduler: asyncScheduler,
  setTimeout(fn: () => void, ms: number) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};
before(async () => {
  h = await harness({ markets: 6, clock });
  cp = startCounterparties(h.ex, { seed: 9, intervalMs: 1e9, newMarketEveryMs: 0 });
  for (let i = 0; i < 40; i++) {
    now += 2_500;
    cp.step();
  }
});
after(async () => {
  cp.stop();
  await h.close();
});

test('markets list: fields from the book, filters, sort, cursor pages', async () => {
  const r = await call(h.base, 'GET', '/markets?limit=4&sortBy=volume&sort=desc');
  assert.equal(r.status, 200);
  assert.equal(r.body.markets.length, 4);
  assert.ok(r.body.cursor);
  assert.equal(r.headers.get('x-next-cursor'), r.body.cursor);
  const m = r.body.markets[0];
  assert.match(m.id, /^0x[0-9a-f]{64}$/);
  assert.match(m.volume, /^\d+$/);
  assert.ok(BigInt(m.volume) >= BigInt(r.body.markets[1].volume));
  assert.equal(m.outcomePrices.length, 2);
  const yes = m.outcomePrices[1];
  assert.ok(yes.bestBid < yes.bestAsk);
  assert.equal(yes.spread, yes.bestAsk - yes.bestBid);
  assert.equal(m.outcomePrices[0].bestBid, 1_000_000 - yes.bestAsk, 'NO bid mirrors the YES ask');
  assert.ok(m.participantCount >= 1);
  assert.equal(m.creator, checksum(m.creator), 'EIP-55 checksummed');
  assert.equal(m.outcomeTokens[0], checksum(m.outcomeTokens[0]));
  const page2 = await call(h.base, 'GET', `/markets?limit=4&sortBy=volume&sort=desc&cursor=${r.body.cursor}`);
  assert.equal(page2.body.markets.length, 2);
  assert.equal(page2.body.cursor, null);
  const cat = await call(h.base, 'GET', '/markets?category=sports');
  assert.ok(cat.body.markets.length >= 1 && cat.body.markets.every((x: any) => x.metadata.categories.includes('sports')));
  assert.equal((await call(h.base, 'GET', '/markets?status=active,weird')).body.field, 'status');
  assert.equal((await call(h.base, 'GET', '/markets?limit=51')).body.field, 'limit');
  assert.equal((await call(h.base, 'GET', '/markets?sortBy=best')).body.field, 'sortBy');
  assert.equal((await call(h.base, 'GET', '/markets?creator=0x12')).body.field, 'creator');
});

test('search with offset/hasMore, get by id and slug, 404', async () => {
  const s = await call(h.base, 'GET', '/markets/search?q=will&limit=2&offset=0');
  assert.equal(s.status, 200);
  assert.equal(s.body.markets.length, 2);
  assert.equal(s.body.hasMore, true);
  assert.equal((await call(h.base, 'GET', '/markets/search')).body.field, 'q');
  const one = await call(h.base, 'GET', `/markets/${h.marketId}`);
  assert.equal(one.body.market.id, h.marketId);
  const bySlug = await call(h.base, 'GET', `/markets/${one.body.market.metadata.slug}`);
  assert.equal(bySlug.body.market.id, h.marketId);
  assert.equal((await call(h.base, 'GET', '/markets/no-such-market')).status, 404);
});

test('activity: trades, oracle updates and market creation, types filter, cursor, time range', async () => {
  for (const t of ['trade', 'oracle_update', 'market_created']) {
    const r = await call(h.base, 'GET', `/activity?types=${t}&limit=3`);
    assert.ok(r.body.activity.length >= 1, t);
  }
  const trades = await call(h.base, 'GET', '/activity?types=trade&limit=2');
  assert.ok(trades.body.activity.every((a: any) => a.type === 'trade'));
  assert.equal(trades.body.pagination.hasMore, true);
  const next = await call(h.base, 'GET', `/activity?types=trade&limit=2&cursor=${trades.body.pagination.cursor}`);
  assert.ok(Date.parse(next.body.activity[0].timestamp) <= Date.parse(trades.body.activity[1].timestamp));
  const future = await call(h.base, 'GET', `/activity?startTime=${new Date(now + 3_600_000).toISOString()}`);
  assert.deepEqual(future.body.activity, []);
  const m = await call(h.base, 'GET', `/markets/${h.marketId}/activity?limit=5`);
  assert.equal(m.body.marketId, h.marketId);
  assert.ok(m.body.activity.every((a: any) => a.marketId === h.marketId));
  assert.equal((await call(h.base, 'GET', '/activity?types=trade,nope')).body.field, 'types');
  assert.equal((await call(h.base, 'GET', '/activity?startTime=yesterday-ish')).body.field, 'startTime');
});

test('oracle summary; quotes: request → 202, second within 5 min → 429 with retryAfter; list and latest', async () => {
  const o = await call(h.base, 'GET', `/markets/${h.marketId}/oracle`);
  assert.ok(o.body.oracle.summary.decision);
  assert.equal(typeof o.body.oracle.evidenceCollected.postsCount, 'number');
  const r1 = await call(h.base, 'POST', `/markets/${h.marketId}/oracle/quotes`, {});
  assert.equal(r1.status, 202);
  assert.equal(r1.body.status, 'pending');
  const r2 = await call(h.base, 'POST', `/markets/${h.marketId}/oracle/quotes`, {});
  assert.equal(r2.status, 429);
  assert.ok(r2.body.retryAfter > 200 && r2.body.retryAfter <= 300);
  const list = await call(h.base, 'GET', `/markets/${h.marketId}/oracle/quotes`);
  assert.equal(list.body.quotes[0].id, r1.body.id);
  const latest = await call(h.base, 'GET', `/markets/${h.marketId}/oracle/quotes/latest`);
  assert.equal(latest.body.quote.id, r1.body.id);
});

test('prices by timeframe, quotes, market simulate', async () => {
  const p = await call(h.base, 'GET', `/markets/${h.marketId}/prices?timeframe=1h`);
  assert.equal(p.status, 200);
  assert.ok(p.body.prices.length >= 1);
  assert.ok(p.body.prices.every((x: any) => x.price > 0 && x.price < 1));
  assert.equal(p.body.interval, 60);
  assert.equal((await call(h.base, 'GET', `/markets/${h.marketId}/prices?timeframe=2y`)).body.field, 'timeframe');
  const q = await call(h.base, 'GET', `/markets/${h.marketId}/quotes`);
  // quotes in cents (0–100), as the interface specification says
  assert.ok(q.body.yes.ask > 0 && q.body.yes.ask < 100, `yes.ask ${q.body.yes.ask} in cents`);
  assert.equal(Math.round(q.body.no.bid * 10_000), 1_000_000 - Math.round(q.body.yes.ask * 10_000));
  const book = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`);
  assert.equal(q.body.yes.ask, book.body.asks[0].price, 'the same cents as the order book');
  const s = await call(h.base, 'POST', `/markets/${h.marketId}/simulate`, { side: 'yes', amount: 10, amountType: 'usd' });
  assert.equal(s.status, 200);
  assert.ok(s.body.estimatedContracts > 0);
  assert.ok(s.body.estimatedAvgPrice > 0 && s.body.estimatedAvgPrice < 1);
  assert.ok(s.body.estimatedAvgPrice * s.body.estimatedContracts <= 10.0001);
  assert.equal((await call(h.base, 'POST', `/markets/${h.marketId}/simulate`, { side: 'maybe', amount: 1 })).body.field, 'side');
});

test('order simulate: levels, summary, collateral, SELF_TRADE lists the caller’s resting orders', async () => {
  const book = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`);
  const bestBidCents = book.body.bids[0].price as number;
  // alice rests a YES ask (a NO buy) just above the best bid, then simulates buying YES through it
  const askPrice = (bestBidCents + 1) * 10_000;
  const rest = await call(
    h.base,
    'POST',
    '/orders',
    h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 1_000_000 - askPrice, size: 2_000_000 }),
    'alice-key',
  );
  assert.equal(rest.status, 201);
  const r = await call(
    h.base,
    'POST',
    '/orders/simulate',
    { marketId: h.marketId, trader: h.alice.address, maxSize: '5000000', maxPrice: '990000', outcomeIndex: 1, side: 'bid' },
    'alice-key',
  );
  assert.equal(r.status, 200);
  assert.ok(r.body.levels.length >= 1);
  assert.equal(r.body.levels[0].price, String(askPrice));
  assert.equal(r.body.summary.fillSize, '5000000');
  assert.match(r.body.collateral.balance, /^\d+$/);
  assert.equal(r.body.collateral.isSufficient, true);
  const st = r.body.warnings.find((w: any) => w.type === 'SELF_TRADE');
  assert.ok(st, 'SELF_TRADE warning');
  assert.deepEqual(
    st.selfTrades.map((x: any) => x.orderId),
    [rest.body.order.id],
  );
  assert.equal(
    (
      await call(
        h.base,
        'POST',
        '/orders/simulate',
        { marketId: h.marketId, trader: h.alice.address, maxSize: '5', maxPrice: '990000', outcomeIndex: 1, side: 'buy' },
        'alice-key',
      )
    ).body.field,
    'side',
  );
});

test('resolution: admin route resolves, open orders are voided MARKET_RESOLVED, activity and market fields follow', async () => {
  const admin = await harness({ seed: 21, apiKeys: [{ key: 'alice-key' }, { key: 'bob-key' }, { key: 'admin-key', perms: ['read', 'admin'] }] });
  try {
    // alice bids 0.30 for one YES
    const bid = () =>
      call(
        admin.base,
        'POST',
        '/orders',
        admin.alice.signOrder({ marketId: admin.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 1_000_000 }),
        'alice-key',
      );
    const o = await bid();
    assert.equal((await call(admin.base, 'POST', `/markets/${admin.marketId}/resolve`, { outcome: 'yes' }, 'alice-key')).status, 403);
    const r = await call(admin.base, 'POST', `/markets/${admin.marketId}/resolve`, { outcome: 'yes', evidence: 'it happened' }, 'admin-key');
    assert.equal(r.status, 200);
    assert.equal(r.body.market.status, 'resolved');
    assert.equal(r.body.market.resolutionStatus, 'resolved');
    assert.deepEqual(r.body.market.payoutPcts, [0, 100]);
    assert.equal(r.body.market.outcome, 1);
    const got = await call(admin.base, 'GET', `/orders/${o.body.order.id}`, undefined, 'alice-key');
    assert.equal(got.body.status, 'voided');
    assert.equal(got.body.voidReason, 'MARKET_RESOLVED');
    const act = await call(admin.base, 'GET', '/activity?types=resolution');
    assert.deepEqual(act.body.activity[0].data, { outcome: 'yes', evidence: 'it happened' });
    assert.equal((await call(admin.base, 'POST', `/markets/${admin.marketId}/resolve`, { outcome: 'no' }, 'admin-key')).status, 409);
    const late = await bid();
    assert.equal(late.status, 409);
  } finally {
    await admin.close();
  }
});

test('counterparties resolve generated markets after their lifetime', async () => {
  let now = Date.UTC(2026, 10, 21);
  const clock = { now: () => now, scheduler: undefined as never, setTimeout: () => () => undefined };
  const { createLocalExchange } = await import('../../src/sim/local-exchange.ts');
  const ex = createLocalExchange({ seed: 4, markets: 1, clock, expirySweepMs: 0 });
  const c = startCounterparties(ex, { seed: 4, newMarketEveryMs: 1000, marketLifetimeMs: 5000 });
  try {
    for (let i = 0; i < 12; i++) {
      now += 1000;
      c.step();
    }
    const resolved = [...ex.state.stores.markets.values()].filter((m) => m.status === 'resolved');
    assert.ok(resolved.length >= 1);
    assert.ok(ex.state.stores.activity.some((a) => a.type === 'resolution'));
    assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
  } finally {
    c.stop();
    await ex.close();
  }
});

test('a taker order filling against the agents’ orders records its own fills only', async () => {
  const book = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1`);
  const ask = book.body.asks[0] as { price: number; size: number };
  const size = Math.min(2, ask.size) * 1_000_000;
  const r = await call(
    h.base,
    'POST',
    '/orders',
    h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: ask.price * 10_000, size, timeInForce: 1 }),
    'bob-key',
  );
  assert.equal(r.status, 201);
  assert.equal(r.body.order.status, 'filled');
  const got = await call(h.base, 'GET', `/orders/${r.body.order.id}`, undefined, 'bob-key');
  assert.equal(got.body.avgFillPrice, String(ask.price * 10_000));
  assert.equal(h.ex.orders.byTraderNonce(h.bob.address, r.body.order.nonce)!.filledShares, size);
});
