import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { classify } from '../../../src/exchange/client/classify.ts';
import { BadInputError, BadResponseError } from '../../../src/model/errors.ts';
import { MARKET_ID, NONCE, SIG, TRADER, limitBody, orderJson, useFixtureClient } from './fixture-server.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const KEY = 'ctx_pk_test_0123456789abcdef';

const ctx = useFixtureClient(KEY);

const cancelBody = { trader: TRADER, nonce: NONCE, signature: SIG };

test('create: 201 → the parsed order, body sent as given with the bearer key', async () => {
  ctx.fx.on('POST /orders', { status: 201, body: { success: true, order: orderJson() } });
  const r = await ctx.client.orders.create(limitBody());
  assert.equal(r.duplicate, false);
  assert.equal(r.nonce, NONCE);
  assert.equal(r.order?.price, 450000);
  assert.equal(r.order?.sv2MaxCollateralIn, 4545000n);
  assert.equal(r.order?.outcomeIndex, 1);
  assert.deepEqual(JSON.parse(ctx.fx.requests[0]!.body), limitBody());
  assert.equal(ctx.fx.requests[0]!.headers.authorization, `Bearer ${KEY}`);
});

test('create retried after 5xx meets 409 duplicate → already placed, not an error, sent twice with identical bytes', async () => {
  ctx.fx.on(
    'POST /orders',
    { status: 502, body: { message: 'bad gateway' } },
    { status: 409, body: { message: 'Nonce already used', code: 'nonce_already_used' } },
  );
  const r = await ctx.client.orders.create(limitBody());
  assert.deepEqual(r, { nonce: NONCE, order: null, duplicate: true });
  assert.equal(ctx.fx.requests.length, 2);
  assert.equal(ctx.fx.requests[0]!.body, ctx.fx.requests[1]!.body);
});

test('create: a 409 duplicate on the FIRST attempt is an error (unless alreadySent)', async () => {
  ctx.fx.on('POST /orders', { status: 409, body: { message: 'Nonce already used', code: 'nonce_already_used' } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => e instanceof VenueError && classify(e).reason === 'duplicate');
  const r = await ctx.client.orders.create(limitBody(), { alreadySent: true });
  assert.equal(r.duplicate, true);
});

test('create: 409 during migration → halt; invalid signature → halt; 400 → fail, none retried', async () => {
  ctx.fx.on('POST /orders', { status: 409, body: { message: 'Wallet has not migrated to Settlement V2', code: 'migration_required' } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => classify(e).action === 'halt' && classify(e).reason === 'migration-required');
  ctx.fx.on('POST /orders', { status: 400, body: { message: 'Invalid signature', code: 'invalid_signature' } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => classify(e).reason === 'invalid-signature');
  ctx.fx.on('POST /orders', { status: 400, body: { message: 'price must be a tick multiple', code: 'validation_error' } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => e instanceof VenueError && e.venueMessage === 'price must be a tick multiple');
  assert.equal(ctx.fx.requests.length, 3);
});

test('create: 429 with Retry-After then 201', async () => {
  ctx.fx.on(
    'POST /orders',
    { status: 429, body: { message: 'Too many requests' }, headers: { 'retry-after': '1' } },
    { status: 201, body: { success: true, order: orderJson() } },
  );
  const r = await ctx.client.orders.create(limitBody());
  assert.equal(r.duplicate, false);
  assert.deepEqual(ctx.sleeps, [1000]);
});

test('create refuses an unsigned body before sending', async () => {
  await assert.rejects(
    ctx.client.orders.create({ ...limitBody(), signature: '0x12' as Bytes32 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'body.signature',
  );
  await assert.rejects(
    ctx.client.orders.create({ ...limitBody(), nonce: '0x1' as Bytes32 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'body.nonce',
  );
  assert.equal(ctx.fx.requests.length, 0);
});

test('create: malformed order in the answer → BadResponseError naming the field', async () => {
  ctx.fx.on('POST /orders', { status: 201, body: { success: true, order: orderJson({ price: 45.5 }) } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => e instanceof BadResponseError && e.field === 'order.price');
  ctx.fx.on('POST /orders', { status: 201, body: { success: true, order: orderJson({ status: 'live' }) } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => e instanceof BadResponseError && e.field === 'order.status');
  ctx.fx.on('POST /orders', { status: 201, body: { success: true, order: orderJson({ price: '1000001' }) } });
  await assert.rejects(ctx.client.orders.create(limitBody()), (e: unknown) => e instanceof BadResponseError && e.field === 'order.price');
});

test('cancel: 201 cancelled, 200 already cancelled (idempotent)', async () => {
  ctx.fx.on(
    'POST /orders/cancel',
    { status: 201, body: { success: true, alreadyCancelled: false } },
    { status: 200, body: { success: true, alreadyCancelled: true } },
  );
  assert.equal((await ctx.client.orders.cancel(cancelBody)).alreadyCancelled, false);
  const again = await ctx.client.orders.cancel(cancelBody);
  assert.deepEqual(again, { trader: TRADER, nonce: NONCE, alreadyCancelled: true });
});

test('cancel retried on a network-ish 503 then succeeds', async () => {
  ctx.fx.on('POST /orders/cancel', { status: 503, body: { message: 'busy' } }, { status: 201, body: { success: true, alreadyCancelled: false } });
  assert.equal((await ctx.client.orders.cancel(cancelBody)).alreadyCancelled, false);
  assert.equal(ctx.sleeps.length, 1);
});

test('cancel-replace: both halves parsed; a retried 409 duplicate means it went through', async () => {
  const n2 = ('0x' + '77'.repeat(32)) as Bytes32;
  ctx.fx.on('POST /orders/cancel-replace', {
    status: 201,
    body: { cancel: { success: true, trader: TRADER, nonce: NONCE, alreadyCancelled: false }, create: { success: true, order: orderJson({ nonce: n2 }) } },
  });
  const r = await ctx.client.orders.cancelReplace(cancelBody, limitBody(n2));
  assert.equal(r.cancel.nonce, NONCE);
  assert.equal(r.create.order?.nonce, n2);
  assert.deepEqual(Object.keys(JSON.parse(ctx.fx.requests[0]!.body)), ['cancel', 'create']);
  ctx.fx.on(
    'POST /orders/cancel-replace',
    { status: 500, body: { message: 'x' } },
    { status: 409, body: { message: 'duplicate order', code: 'nonce_already_used' } },
  );
  const d = await ctx.client.orders.cancelReplace(cancelBody, limitBody(n2));
  assert.equal(d.create.duplicate, true);
  assert.equal(d.cancel.alreadyCancelled, true);
});

test('bulk, bulk create, bulk cancel: shapes, limits, retried duplicate', async () => {
  ctx.fx.on('POST /orders/bulk', {
    status: 201,
    body: {
      results: [
        { type: 'create', success: true, order: orderJson() },
        { type: 'cancel', success: true, trader: TRADER, nonce: `0x${'aB'.repeat(32)}`, alreadyCancelled: true },
      ],
    },
  });
  const b = await ctx.client.orders.bulk([
    { type: 'create', order: limitBody() },
    { type: 'cancel', cancel: cancelBody },
  ]);
  assert.equal(b.results.length, 2);
  assert.equal(b.results[0]!.type, 'create');
  const c = b.results[1]!;
  assert.ok(c.type === 'cancel' && c.ok && c.alreadyCancelled);
  assert.equal(c.nonce, `0x${'ab'.repeat(32)}`, "the venue's spelling of a nonce is normalised where it is read");
  ctx.fx.on('POST /orders/bulk/create', { status: 503, body: { message: 'x' } }, { status: 409, body: { message: 'Nonce already used' } });
  const bc = await ctx.client.orders.bulkCreate([limitBody()]);
  assert.deepEqual(bc, { results: [], duplicate: true });
  ctx.fx.on('POST /orders/bulk/cancel', {
    status: 200,
    body: { success: true, results: [{ type: 'cancel', success: true, trader: TRADER, nonce: NONCE, alreadyCancelled: false }] },
  });
  const bx = await ctx.client.orders.bulkCancel([cancelBody]);
  assert.equal(bx.results.length, 1);
  assert.deepEqual(JSON.parse(ctx.fx.requests.at(-1)!.body), { cancels: [cancelBody] });
  await assert.rejects(ctx.client.orders.bulkCreate([]), BadInputError);
  await assert.rejects(ctx.client.orders.bulkCreate(Array.from({ length: 51 }, () => limitBody())), BadInputError);
});

test('orders.list/iterate across pages; recent; get by id and by hash (bare and {order})', async () => {
  const n2 = '0x' + '88'.repeat(32);
  ctx.fx.on('GET /orders', (r) =>
    r.query.get('cursor') === 'k'
      ? { body: { orders: [orderJson({ nonce: n2, avgFillPrice: null })], markets: {}, cursor: null } }
      : {
          body: {
            orders: [orderJson({ avgFillPrice: '452000', filledSize: '5000000', remainingSize: '5000000', percentFilled: 50 })],
            markets: { [MARKET_ID]: { shortQuestion: 'Rain?', slug: 'rain' } },
            cursor: 'k',
          },
        },
  );
  const all = [];
  for await (const o of ctx.client.orders.iterate({ trader: TRADER, status: ['open', 'filled'] })) all.push(o);
  assert.deepEqual(
    all.map((o) => o.nonce),
    [NONCE, n2],
  );
  assert.equal(all[0]!.avgFillPrice, 452000);
  assert.equal(all[0]!.filledSize, 5_000_000);
  assert.equal(ctx.fx.requests[0]!.query.get('status'), 'open,filled');
  const page = await ctx.client.orders.list({ marketId: MARKET_ID });
  assert.equal(page.markets[MARKET_ID]?.slug, 'rain');
  ctx.fx.on('GET /orders/recent', { body: { orders: [orderJson()] } });
  assert.equal((await ctx.client.orders.recent({ windowSeconds: 60, status: 'open' })).length, 1);
  await assert.rejects(ctx.client.orders.recent({ windowSeconds: 601 }), BadInputError);
  ctx.fx.on('GET /orders/42', { body: orderJson({ id: 42 }) });
  assert.equal((await ctx.client.orders.get(42)).id, 42);
  const hash = '0x' + '99'.repeat(32);
  ctx.fx.on(`GET /orders/${hash}`, { body: { order: orderJson() } });
  assert.equal((await ctx.client.orders.get(hash)).nonce, NONCE);
  await assert.rejects(ctx.client.orders.get('abc'), BadInputError);
});

test('orders.simulate converts strings to bigint', async () => {
  const lvl = {
    price: '450000',
    sizeAvailable: '1000000',
    cumulativeSize: '1000000',
    takerFee: '4500',
    cumulativeTakerFee: '4500',
    collateralRequired: '450000',
    cumulativeCollateral: '450000',
    makerCount: 1,
  };
  ctx.fx.on('POST /orders/simulate', {
    body: {
      levels: [lvl],
      summary: {
        fillSize: '1000000',
        fillCost: '450000',
        takerFee: '4500',
        weightedAvgPrice: '450000',
        totalLiquidityAvailable: '1000000',
        percentFillable: 100,
        slippageBps: 0,
      },
      collateral: { balance: '99000000', outcomeTokenBalance: '0', requiredForFill: '454500', isSufficient: true },
      warnings: [],
    },
  });
  const s = await ctx.client.orders.simulate({ marketId: MARKET_ID, trader: TRADER, maxSize: 1_000_000, maxPrice: 500000, outcomeIndex: 1, side: 'bid' });
  assert.equal(s.levels[0]!.takerFee, 4500n);
  assert.equal(s.collateral.isSufficient, true);
  assert.deepEqual(JSON.parse(ctx.fx.requests.at(-1)!.body), {
    marketId: MARKET_ID,
    trader: TRADER,
    maxSize: '1000000',
    maxPrice: '500000',
    outcomeIndex: 1,
    side: 'bid',
  });
});

test('the API key never appears in an error message', async () => {
  ctx.fx.on('GET /orders', { status: 401, body: { message: 'Invalid API key' } });
  await assert.rejects(ctx.client.orders.list(), (e: unknown) => e instanceof VenueError && !e.message.includes(KEY) && !JSON.stringify(e).includes(KEY));
});
