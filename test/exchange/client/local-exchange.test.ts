/**
 * The venue client against the real local exchange (src/sim) over HTTP: every answer the local exchange gives
 * must pass the client's boundary parsers, and a signed order must round-trip (create, duplicate, book, list,
 * cancel, already cancelled).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalExchange, demoWallet, type LocalExchange } from '../../../src/sim/local-exchange.ts';
import { createSigner, type Signer } from '../../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createVenueClient, type VenueClient } from '../../../src/exchange/venue-client.ts';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { classify } from '../../../src/exchange/client/classify.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const KEY = 'bm-client-test-key';
const SEED = 11;
let ex: LocalExchange;
let client: VenueClient;
let signer: Signer;
let marketId: Bytes32;

before(async () => {
  ex = createLocalExchange({ seed: SEED, apiKeys: [{ key: KEY }], expirySweepMs: 0 });
  const baseUrl = await ex.start();
  client = createVenueClient({ baseUrl, apiKey: KEY, retry: { maxAttempts: 1 } });
  signer = createSigner({ privateKey: demoWallet(SEED, KEY).privateKey, chain: TESTNET });
  marketId = (await client.markets.list({ limit: 1 })).markets[0]!.id;
});
after(async () => {
  await client.close();
  await ex.close();
});

test('public reads parse: markets (all pages), search, get, book, prices, quotes, oracle, activity', async () => {
  const ids = [];
  for await (const m of client.markets.iterate({ limit: 1 })) ids.push(m.id);
  assert.ok(ids.length >= 2);
  assert.equal(new Set(ids).size, ids.length);
  const m = await client.markets.get(marketId);
  assert.equal(m.id, marketId);
  assert.ok(m.slug);
  assert.equal((await client.markets.get(m.slug!)).id, marketId);
  await client.markets.search({ q: 'the' });
  await client.markets.prices(marketId);
  await client.markets.quotes(marketId);
  await client.markets.oracle(marketId);
  await client.activity.list({ limit: 5 });
  await client.activity.market(marketId);
});

test('signed order round trip: create, duplicate, book, list, get, cancel, already cancelled', async () => {
  const body = signer.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 120_000, size: 3_000_000 });
  const created = await client.orders.create(body);
  assert.equal(created.duplicate, false);
  assert.equal(created.order?.nonce, body.nonce);
  assert.equal(created.order?.price, 120_000);
  assert.equal(created.order?.status, 'open');

  // the same signed body again: the venue answers 409 duplicate; as a first attempt it is an error…
  await assert.rejects(client.orders.create(body), (e: unknown) => e instanceof VenueError && e.status === 409 && classify(e).reason === 'duplicate');
  // …and for a caller that knows it sent this body before, "already placed"
  assert.equal((await client.orders.create(body, { alreadySent: true })).duplicate, true);

  const ob = await client.markets.orderbook(marketId, { outcomeIndex: 1, depth: 50 });
  assert.equal(ob.status, 200);
  if (ob.status === 200)
    assert.ok(
      ob.book.bids.some((l) => l.price === 120_000 && l.size >= 3_000_000),
      JSON.stringify(ob.book.bids),
    );

  const mine = [];
  for await (const o of client.orders.iterate({ trader: signer.address, status: ['open'] })) mine.push(o);
  assert.ok(mine.some((o) => o.nonce === body.nonce));
  const listed = mine.find((o) => o.nonce === body.nonce)!;
  if (listed.id !== undefined) assert.equal((await client.orders.get(listed.id)).nonce, body.nonce);

  const c1 = await client.orders.cancel(signer.signCancel(body.nonce));
  assert.equal(c1.alreadyCancelled, false);
  const c2 = await client.orders.cancel(signer.signCancel(body.nonce));
  assert.equal(c2.alreadyCancelled, true);
});

test('account reads parse: balance, portfolio, positions, stats, claimable, migration status', async () => {
  const w = signer.address;
  const b = await client.balance.summary(w);
  assert.ok(b.usdc.balance > 0n);
  await client.portfolio.get(w);
  await client.portfolio.positions(w);
  await client.portfolio.stats(w);
  await client.portfolio.claimable(w);
  const st = await client.migration.status();
  assert.equal(st.walletAddress.toLowerCase(), w.toLowerCase());
});
