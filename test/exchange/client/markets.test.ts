import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createVenueClient } from '../../../src/exchange/venue-client.ts';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { BadInputError, BadResponseError } from '../../../src/model/errors.ts';
import { MARKET_ID, TRADER, marketJson, useFixtureClient } from './fixture-server.ts';

const ctx = useFixtureClient();

test('default chain is mainnet; testnet and a base URL are honoured', async () => {
  const m = createVenueClient();
  const t = createVenueClient({ chain: 'testnet' });
  assert.equal(m.baseUrl, 'https://api.context.markets/v2');
  assert.equal(t.baseUrl, 'https://api-testnet.context.markets/v2');
  assert.equal(ctx.client.baseUrl, ctx.fx.baseUrl);
  assert.equal(m.authenticated, false);
  await Promise.all([m.close(), t.close()]);
});

test('markets.list: every filter in the query, Market parsed to integer units', async () => {
  ctx.fx.on('GET /markets', { body: { markets: [marketJson()], cursor: null } });
  const page = await ctx.client.markets.list({ status: ['active', 'pending'], sortBy: 'volume', limit: 10, search: 'rain' });
  const q = ctx.fx.requests[0]!.query;
  assert.equal(q.get('status'), 'active,pending');
  assert.equal(q.get('sortBy'), 'volume');
  assert.equal(q.get('limit'), '10');
  assert.equal(q.get('search'), 'rain');
  assert.equal(page.cursor, null);
  await ctx.client.markets.list({
    sort: 'asc',
    resolutionStatus: ['none', 'resolved'],
    creator: TRADER,
    category: 'weather',
    visibility: 'all',
    createdAfter: 1_790_000_000,
    cursor: 'c9',
  });
  const q2 = ctx.fx.requests[1]!.query;
  assert.deepEqual(
    ['sort', 'resolutionStatus', 'creator', 'category', 'visibility', 'createdAfter', 'cursor'].map((k) => q2.get(k)),
    ['asc', 'none,resolved', TRADER, 'weather', 'all', '1790000000', 'c9'],
  );
  await assert.rejects(ctx.client.markets.list({ creator: '0x12' as never }), (e: unknown) => e instanceof BadInputError && e.field === 'creator');
  await assert.rejects(ctx.client.markets.list({ visibility: 'public' as never }), (e: unknown) => e instanceof BadInputError && e.field === 'visibility');
  await assert.rejects(ctx.client.markets.list({ limit: 51 }), (e: unknown) => e instanceof BadInputError && e.field === 'limit');
  assert.equal(ctx.fx.requests.length, 2);
  const m = page.markets[0]!;
  assert.equal(m.id, MARKET_ID);
  assert.equal(m.slug, 'rain-lisbon');
  assert.equal(m.volume, 123456789n);
  assert.deepEqual(m.categories, ['weather']);
  const yes = m.outcomePrices.find((p) => p.outcomeIndex === 1)!;
  assert.equal(yes.bestBid, 450000); // cents → 1e-6 units ('auto')
  assert.equal(yes.spread, 20000);
});

test('markets outcomePrices in 1e-6 units (as the local exchange serves them) stay as they are', async () => {
  const op = [{ outcomeIndex: 1, bestBid: 450000, bestAsk: 470000, spread: 20000, midPrice: 460000, lastPrice: null, sellPrice: 450000, buyPrice: 470000 }];
  ctx.fx.on('GET /markets/' + MARKET_ID, { body: { market: marketJson({ outcomePrices: op }) } });
  const m = await ctx.client.markets.get(MARKET_ID);
  assert.equal(m.outcomePrices[0]!.bestAsk, 470000);
  assert.equal(m.outcomePrices[0]!.lastPrice, null);
});

test('markets.get accepts {market} and a bare Market, by hash or slug', async () => {
  ctx.fx.on('GET /markets/rain-lisbon', { body: marketJson() });
  assert.equal((await ctx.client.markets.get('rain-lisbon')).id, MARKET_ID);
  await assert.rejects(ctx.client.markets.get('0x12'), BadInputError);
  await assert.rejects(ctx.client.markets.get('../etc'), BadInputError);
});

test('markets.iterate follows cursors until null', async () => {
  const ids = ['0x' + '01'.repeat(32), '0x' + '02'.repeat(32), '0x' + '03'.repeat(32)];
  ctx.fx.on('GET /markets', (r) => {
    const c = r.query.get('cursor');
    if (!c) return { body: { markets: [marketJson({ id: ids[0] })], cursor: 'c1' } };
    if (c === 'c1') return { body: { markets: [marketJson({ id: ids[1] }), marketJson({ id: ids[2] })], cursor: 'c2' } };
    return { body: { markets: [], cursor: 'c3' } }; // an empty page ends it even with a cursor
  });
  const got: string[] = [];
  for await (const m of ctx.client.markets.iterate({ limit: 2 })) got.push(m.id);
  assert.deepEqual(got, ids);
  assert.equal(ctx.fx.requests.length, 3);
  assert.deepEqual(
    ctx.fx.requests.map((r) => r.query.get('cursor')),
    [null, 'c1', 'c2'],
  );
});

test('markets.search pages by offset + hasMore', async () => {
  ctx.fx.on('GET /markets/search', (r) => {
    const off = Number(r.query.get('offset'));
    return { body: { markets: off === 0 ? [marketJson(), marketJson()] : [marketJson()], hasMore: off === 0 } };
  });
  const got = [];
  for await (const m of ctx.client.markets.iterateSearch({ q: 'rain lisbon', limit: 2 })) got.push(m);
  assert.equal(got.length, 3);
  assert.deepEqual(
    ctx.fx.requests.map((r) => r.query.get('offset')),
    ['0', '2'],
  );
  assert.equal(ctx.fx.requests[0]!.query.get('q'), 'rain lisbon');
  await assert.rejects(ctx.client.markets.search({ q: ' ' }), BadInputError);
});

test('malformed market answer → BadResponseError naming the field', async () => {
  ctx.fx.on('GET /markets', { body: { markets: [marketJson({ status: 'open' })], cursor: null } });
  await assert.rejects(ctx.client.markets.list(), (e: unknown) => e instanceof BadResponseError && e.field === 'markets[0].status');
  ctx.fx.on('GET /markets', { body: { markets: [marketJson({ volume: '12.5' })], cursor: null } });
  await assert.rejects(ctx.client.markets.list(), (e: unknown) => e instanceof BadResponseError && e.field === 'markets[0].volume');
  ctx.fx.on('GET /markets', { body: { markets: [marketJson({ outcomePrices: [{ outcomeIndex: 1, bestBid: -3 }] })], cursor: null } });
  await assert.rejects(ctx.client.markets.list(), (e: unknown) => e instanceof BadResponseError && e.field === 'markets[0].outcomePrices[0].bestBid');
  ctx.fx.on('GET /markets', { body: { cursor: null } });
  await assert.rejects(ctx.client.markets.list(), (e: unknown) => e instanceof BadResponseError && e.field === 'markets');
});

test('4xx {message, code} and 5xx-then-success on a market read', async () => {
  ctx.fx.on('GET /markets/' + MARKET_ID, { status: 404, body: { message: 'Market not found', code: 'market_not_found' } });
  await assert.rejects(ctx.client.markets.get(MARKET_ID), (e: unknown) => e instanceof VenueError && e.status === 404 && e.venueCode === 'market_not_found');
  ctx.fx.on('GET /markets/' + MARKET_ID, { status: 500, body: { message: 'db' } }, { body: { market: marketJson() } });
  assert.equal((await ctx.client.markets.get(MARKET_ID)).id, MARKET_ID);
  assert.equal(ctx.sleeps.length, 1);
});

test('orderbook: 200 with ETag, then 304 with If-None-Match', async () => {
  const path = `GET /markets/${MARKET_ID}/orderbook`;
  ctx.fx.on(path, (r) =>
    r.headers['if-none-match'] === '"v1"'
      ? { status: 304, headers: { etag: '"v1"' } }
      : {
          body: {
            marketId: MARKET_ID,
            bids: [
              { price: 44, size: 5 },
              { price: 45, size: 1.5 },
            ],
            asks: [{ price: 47, size: 2 }],
            timestamp: '2026-11-21T10:00:00Z',
          },
          headers: { etag: '"v1"' },
        },
  );
  const a = await ctx.client.markets.orderbook(MARKET_ID, { outcomeIndex: 1, depth: 20 });
  assert.equal(a.status, 200);
  if (a.status !== 200) return;
  assert.equal(a.etag, '"v1"');
  assert.equal(a.book.outcomeIndex, 1);
  assert.deepEqual(a.book.bids, [
    { price: 450000, size: 1_500_000 },
    { price: 440000, size: 5_000_000 },
  ]);
  assert.equal(ctx.fx.requests[0]!.query.get('outcomeIndex'), '1');
  assert.equal(ctx.fx.requests[0]!.query.get('depth'), '20');
  const b = await ctx.client.markets.orderbook(MARKET_ID, { outcomeIndex: 1, etag: a.etag! });
  assert.deepEqual(b, { status: 304 });
  await assert.rejects(ctx.client.markets.orderbook(MARKET_ID, { depth: 101 }), BadInputError);
});

test('orderbook with malformed levels names the level', async () => {
  ctx.fx.on(`GET /markets/${MARKET_ID}/orderbook`, { body: { marketId: MARKET_ID, bids: [{ price: 45, size: 'lots' }], asks: [] } });
  await assert.rejects(
    ctx.client.markets.orderbook(MARKET_ID),
    (e: unknown) => e instanceof BadResponseError && e.field === 'bids[0].size' && e.endpoint === 'GET /markets/:id/orderbook',
  );
});

test('quotes (cents → units), prices (timeframe), simulate', async () => {
  ctx.fx.on(`GET /markets/${MARKET_ID}/quotes`, {
    body: { marketId: MARKET_ID, yes: { bid: 45, ask: 47, last: 46 }, no: { bid: 53, ask: 55, last: null }, spread: 2, timestamp: '2026-11-21T10:00:00Z' },
  });
  const q = await ctx.client.markets.quotes(MARKET_ID);
  assert.deepEqual(q.yes, { bid: 450000, ask: 470000, last: 460000 });
  assert.equal(q.no.last, null);
  assert.equal(q.spread, 20000);
  ctx.fx.on(`GET /markets/${MARKET_ID}/prices`, {
    body: {
      prices: [
        { time: 1, price: 0.45 },
        { time: 2, price: 0.5 },
      ],
      startTime: 1,
      endTime: 2,
      interval: 60,
    },
  });
  const p = await ctx.client.markets.prices(MARKET_ID, '1d');
  assert.deepEqual(
    p.prices.map((x) => x.price),
    [450000, 500000],
  );
  assert.equal(ctx.fx.requests.at(-1)!.query.get('timeframe'), '1d');
  await assert.rejects(ctx.client.markets.prices(MARKET_ID, '2d' as never), BadInputError);
  ctx.fx.on(`POST /markets/${MARKET_ID}/simulate`, {
    body: {
      marketId: MARKET_ID,
      side: 'yes',
      amount: 10,
      amountType: 'usd',
      estimatedContracts: 21.3,
      estimatedAvgPrice: 0.47,
      estimatedSlippage: 0.01,
      warnings: [],
    },
  });
  const s = await ctx.client.markets.simulate(MARKET_ID, { side: 'yes', amount: 10 });
  assert.equal(s.estimatedContracts, 21.3);
  assert.deepEqual(JSON.parse(ctx.fx.requests.at(-1)!.body), { side: 'yes', amount: 10, amountType: 'usd' });
});

test('oracle summary, oracle quotes list / latest / request (202), and its 429 retryAfter', async () => {
  ctx.fx.on(`GET /markets/${MARKET_ID}/oracle`, {
    body: {
      oracle: {
        lastCheckedAt: '2026-11-21T10:00:00Z',
        confidenceLevel: 'high',
        evidenceCollected: { postsCount: 3, relevantPosts: ['a'] },
        sourcesMonitored: ['x'],
        summary: { decision: 'YES', shortSummary: 's', expandedSummary: 'e' },
      },
    },
  });
  const o = await ctx.client.markets.oracle(MARKET_ID);
  assert.equal(o?.decision, 'YES');
  assert.equal(o?.postsCount, 3);
  ctx.fx.on(`GET /markets/${MARKET_ID}/oracle`, { body: { oracle: null } });
  assert.equal(await ctx.client.markets.oracle(MARKET_ID), null);
  const quote = {
    id: 'q1',
    status: 'completed',
    probability: 0.62,
    confidence: 'medium',
    reasoning: 'r',
    referenceMarketsCount: 2,
    createdAt: '2026-11-21T10:00:00Z',
    completedAt: '2026-11-21T10:01:00Z',
  };
  ctx.fx.on(`GET /markets/${MARKET_ID}/oracle/quotes`, { body: { quotes: [quote] } });
  assert.equal((await ctx.client.markets.oracleQuotes(MARKET_ID))[0]!.probability, 0.62);
  ctx.fx.on(`GET /markets/${MARKET_ID}/oracle/quotes/latest`, { body: { quote: { ...quote, probability: 1.5 } } });
  await assert.rejects(ctx.client.markets.latestOracleQuote(MARKET_ID), (e: unknown) => e instanceof BadResponseError && e.field === 'quote.probability');
  ctx.fx.on(
    `POST /markets/${MARKET_ID}/oracle/quotes`,
    { status: 429, body: { message: 'one per 5 minutes', retryAfter: 4 } },
    { status: 202, body: { id: 'q2', status: 'pending', createdAt: '2026-11-21T10:02:00Z' } },
  );
  const r = await ctx.client.markets.requestOracleQuote(MARKET_ID);
  assert.equal(r.status, 'pending');
  assert.deepEqual(ctx.sleeps, [4000]);
});

test('activity: pagination object, types filter, time range, market activity', async () => {
  ctx.fx.on('GET /activity', (r) =>
    r.query.get('cursor') === 'p2'
      ? { body: { activity: [{ type: 'trade', marketId: MARKET_ID, timestamp: '2026-11-21T10:00:02Z' }], pagination: { cursor: null, hasMore: false } } }
      : { body: { activity: [{ type: 'trade', timestamp: '2026-11-21T10:00:01Z', price: '450000' }], pagination: { cursor: 'p2', hasMore: true } } },
  );
  const items = [];
  for await (const it of ctx.client.activity.iterate({ types: ['trade'] })) items.push(it);
  assert.equal(items.length, 2);
  assert.equal(items[0]!.data.price, '450000');
  assert.equal(items[1]!.marketId, MARKET_ID);
  assert.equal(ctx.fx.requests[0]!.query.get('types'), 'trade');
  await assert.rejects(ctx.client.activity.list({ types: ['trades' as never] }), BadInputError);
  ctx.fx.on(`GET /markets/${MARKET_ID}/activity`, { body: { marketId: MARKET_ID, activity: [], pagination: { cursor: null, hasMore: false } } });
  const page = await ctx.client.activity.market(MARKET_ID, {
    limit: 5,
    types: ['trade', 'resolution'],
    startTime: '2026-11-21T10:00:00Z',
    endTime: '2026-11-21T11:00:00Z',
  });
  assert.equal(page.marketId, MARKET_ID);
  const mq = ctx.fx.requests.at(-1)!.query;
  assert.deepEqual(
    [mq.get('limit'), mq.get('types'), mq.get('startTime'), mq.get('endTime')],
    ['5', 'trade,resolution', '2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z'],
  );
  const sent = ctx.fx.requests.length;
  await assert.rejects(
    ctx.client.activity.market(MARKET_ID, { startTime: 'yesterday-ish' }),
    (e: unknown) => e instanceof BadInputError && e.field === 'startTime',
  );
  await assert.rejects(ctx.client.activity.list({ endTime: '' }), (e: unknown) => e instanceof BadInputError && e.field === 'endTime');
  await assert.rejects(ctx.client.activity.list({ limit: 101 }), (e: unknown) => e instanceof BadInputError && e.field === 'limit');
  assert.equal(ctx.fx.requests.length, sent, 'bad filters are refused before sending');
  ctx.fx.on('GET /activity', { body: { activity: [] } });
  await assert.rejects(ctx.client.activity.list(), (e: unknown) => e instanceof BadResponseError && e.field === 'pagination');
});

test('a list answer without a body cursor pages by the X-Next-Cursor header', async () => {
  ctx.fx.on('GET /markets', (r) =>
    r.query.get('cursor') === 'h2' ? { body: { markets: [marketJson()] } } : { body: { markets: [marketJson()] }, headers: { 'x-next-cursor': 'h2' } },
  );
  let n = 0;
  for await (const _m of ctx.client.markets.iterate()) n++;
  assert.equal(n, 2);
  assert.deepEqual(
    ctx.fx.requests.map((r) => r.query.get('cursor')),
    [null, 'h2'],
  );
});
