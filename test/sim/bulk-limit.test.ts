/**
 * The venue takes at most 50 orders a bulk call (docs/venue.md): the local exchange refuses more, as the
 * venue would, and the bot's default orders.batchLimit splits a larger requote into calls it takes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, harness, type Harness } from './helpers.ts';
import { systemClock } from '../../src/core/clock.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { BATCH_LIMIT } from '../../src/exchange/client/orders-write.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { DesiredOrder } from '../../src/orders/diff.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { createLiveVenue, type LiveOrdersClient } from '../../src/runtime/live-venue.ts';

let h: Harness;
before(async () => {
  h = await harness({ seed: 24 });
});
after(async () => {
  await h.close();
});

test('the local exchange takes at most 50 orders a bulk call by default, as the venue does', async () => {
  assert.equal(BATCH_LIMIT, 50);
  const mk = () => h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000_000 });
  for (const [path, key, op] of [
    ['/orders/bulk/create', 'orders', (o: unknown) => o],
    ['/orders/bulk', 'operations', (o: unknown) => ({ type: 'create', order: o })],
  ] as const) {
    const over = await call(h.base, 'POST', path, { [key]: Array.from({ length: 51 }, () => op(mk())) }, 'alice-key');
    assert.equal(over.status, 400, path);
    assert.equal(over.body.code, 'BATCH_TOO_LARGE', path);
    assert.match(over.body.message, /at most 50 items/);
    const full = await call(h.base, 'POST', path, { [key]: Array.from({ length: 50 }, () => op(mk())) }, 'alice-key');
    assert.equal(full.status, 201, path);
  }
  const cancels = await call(h.base, 'POST', '/orders/bulk/cancel', { cancels: Array.from({ length: 51 }, () => ({})) }, 'alice-key');
  assert.equal(cancels.body.code, 'BATCH_TOO_LARGE');
});

test("the bot's default batch limit splits a 120-order quote into calls the local exchange takes", async () => {
  const cfg = await parseConfigText('venue: local\nmarkets: all\n', 't.yaml', { env: {} });
  assert.equal(cfg.orders.batchLimit, 50);
  const client = createVenueClient({ baseUrl: h.base, apiKey: 'bob-key', chain: TESTNET });
  try {
    const sizes: number[] = [];
    const orders: LiveOrdersClient = {
      create: (b, o) => client.orders.create(b, o),
      cancelReplace: (c, b, o) => client.orders.cancelReplace(c, b, o),
      iterate: (p) => client.orders.iterate(p),
      bulk: (ops, o) => (sizes.push(ops.length), client.orders.bulk(ops, o)),
      bulkCreate: (list, o) => (sizes.push(list.length), client.orders.bulkCreate(list, o)),
      bulkCancel: (list) => (sizes.push(list.length), client.orders.bulkCancel(list)),
    };
    const venue = createLiveVenue({ client: { orders }, signer: h.bob, batchLimit: cfg.orders.batchLimit, aheadNonces: 0 });
    const om = new OrderManager({ venue, clock: systemClock, tolerances: { price: 5_000, sizeFraction: 0.1 }, cancelAllDelayMs: 50 });
    const m = h.marketId;
    const want = (shift: number): DesiredOrder[] =>
      Array.from({ length: 120 }, (_, i) => ({
        slot: `${m}:bid:${i}`,
        order: { marketId: m, outcomeIndex: 1 as const, side: 0 as const, price: 10_000 + (i % 5) * 10_000 + shift, size: 1_000_000 },
      }));
    await om.reconcile(undefined, want(0));
    await om.sync(m, want(0));
    const open = async () => (await venue.openOrders(m)).filter((o) => o.status === 'open' && o.trader.toLowerCase() === h.bob.address.toLowerCase()).length;
    assert.equal(await open(), 120);
    await om.sync(m, want(10_000)); // every order moves: 120 cancels and 120 creates
    assert.equal(await open(), 120);
    assert.ok(sizes.length >= 6, `calls: ${sizes.join(', ')}`);
    assert.ok(
      sizes.every((n) => n >= 1 && n <= 50),
      `every call within the venue's limit: ${sizes.join(', ')}`,
    );
    const r = await om.cancelAll();
    assert.equal(r.ok, true);
    assert.equal(await open(), 0);
  } finally {
    await client.close();
  }
});
