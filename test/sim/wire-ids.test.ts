/**
 * Ids and addresses are normalised once where they enter the local exchange: each HTTP entry
 * (order and cancel bodies, path parameters, query strings, the book stream, account, migration and
 * admin requests) takes any hex case and finds the same orders, markets and wallets; answers carry ids
 * lower-case and addresses checksummed, and messages name an id as the caller spelt it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checksum } from '../../src/sim/checksum.ts';
import { EngineHost } from '../../src/sim/engine-host.ts';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import { normaliseActivity, normaliseMarket, normaliseOrder } from '../../src/sim/durability/restore-ids.ts';
import { addressOf, walletOf } from '../../src/sim/wire-ids.ts';
import * as v from '../../src/sim/validate.ts';
import { HttpError } from '../../src/sim/http-errors.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { ActivityEntry, MarketRecord, StoredOrder } from '../../src/sim/records.ts';
import { call, onHarness, readSse, type Harness } from './helpers.ts';

const A = 'alice-key';
/** `0x` + the hex digits upper-cased: the same id or address in another spelling. */
const up = (hex: string): string => `0x${hex.slice(2).toUpperCase()}`;

/** Alice's one-share YES bid at 40¢, signed, with its ids and trader respelt upper-case. */
function upperBid(h: Harness) {
  const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000 });
  return { body, wire: { ...body, marketId: up(body.marketId), nonce: up(body.nonce), trader: up(body.trader) } };
}

test('validators: ids and addresses of any case come out lower-case; malformed ones are the same 400s', () => {
  const id = `0x${'aB'.repeat(32)}`;
  assert.equal(v.bytes32(id, 'marketId'), id.toLowerCase());
  assert.equal(v.address(`0x${'Cd'.repeat(20)}`, 'trader'), `0x${'cd'.repeat(20)}`);
  assert.equal(v.queryBytes32(new URLSearchParams({ marketId: up(id) }), 'marketId'), id.toLowerCase());
  assert.equal(v.queryAddress(new URLSearchParams({ trader: `0x${'EF'.repeat(20)}` }), 'trader'), `0x${'ef'.repeat(20)}`);
  assert.throws(
    () => v.bytes32('0x12', 'nonce'),
    (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === 'nonce: expected 0x followed by 64 hex digits',
  );
  assert.throws(
    () => v.address('0xzz', 'trader'),
    (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === 'trader: expected an address (0x followed by 40 hex digits)',
  );
});

test('order body: an upper-case market id, nonce and trader place the order; the answer spells ids lower-case, the trader checksummed', async () => {
  await onHarness(async (h) => {
    const { body, wire } = upperBid(h);
    const r = await call(h.base, 'POST', '/orders', wire, A);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.order.marketId, h.marketId);
    assert.equal(r.body.order.nonce, body.nonce.toLowerCase());
    assert.equal(r.body.order.trader, checksum(h.alice.address));
    // the same nonce in the other spelling is the same nonce
    const again = await call(h.base, 'POST', '/orders', body, A);
    assert.equal(again.status, 409);
    // an unknown market is named as the caller spelt it
    const other = h.alice.signOrder({ marketId: `0x${'ab'.repeat(32)}` as Bytes32, outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000 });
    const missing = await call(h.base, 'POST', '/orders', { ...other, marketId: up(other.marketId) }, A);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, `market ${up(other.marketId)} not found`);
  });
});

test('cancel body: an upper-case trader and nonce cancel the order placed lower-case', async () => {
  await onHarness(async (h) => {
    const { body } = upperBid(h);
    assert.equal((await call(h.base, 'POST', '/orders', body, A)).status, 201);
    const cancel = h.alice.signCancel(body.nonce);
    const r = await call(h.base, 'POST', '/orders/cancel', { ...cancel, trader: up(cancel.trader), nonce: up(cancel.nonce) }, A);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.alreadyCancelled, false);
    const bulk = await call(h.base, 'POST', '/orders/bulk/cancel', { cancels: [{ ...cancel, nonce: up(cancel.nonce) }] }, A);
    assert.equal(bulk.status, 200);
    assert.equal(bulk.body.results[0].trader, checksum(h.alice.address));
    assert.equal(bulk.body.results[0].nonce, body.nonce.toLowerCase());
    assert.equal(bulk.body.results[0].alreadyCancelled, true);
  });
});

test('path parameters: an order by upper-case hash or nonce, a market, its book and its activity by upper-case id', async () => {
  await onHarness(async (h) => {
    const { body } = upperBid(h);
    const placed = await call(h.base, 'POST', '/orders', body, A);
    const byHash = await call(h.base, 'GET', `/orders/${up(placed.body.order.hash)}`, undefined, A);
    assert.equal(byHash.status, 200);
    assert.equal(byHash.body.id, placed.body.order.id);
    const byNonce = await call(h.base, 'GET', `/orders/${up(body.nonce)}`, undefined, A);
    assert.equal(byNonce.status, 200);
    assert.equal(byNonce.body.id, placed.body.order.id);
    const m = await call(h.base, 'GET', `/markets/${up(h.marketId)}`);
    assert.equal(m.status, 200);
    assert.equal(m.body.market.id, h.marketId);
    const book = await call(h.base, 'GET', `/markets/${up(h.marketId)}/orderbook?outcomeIndex=1`);
    assert.equal(book.status, 200);
    assert.equal(book.body.bids.length, 1);
    const prices = await call(h.base, 'GET', `/markets/${up(h.marketId)}/prices`);
    assert.equal(prices.status, 200);
    const activity = await call(h.base, 'GET', `/markets/${up(h.marketId)}/activity`);
    assert.equal(activity.status, 200);
    assert.ok(activity.body.activity.every((e: { marketId: string }) => e.marketId === h.marketId));
  });
});

test('query strings: orders, recent orders, markets and positions filtered by upper-case ids and addresses', async () => {
  await onHarness(async (h) => {
    const { body } = upperBid(h);
    assert.equal((await call(h.base, 'POST', '/orders', body, A)).status, 201);
    const list = await call(h.base, 'GET', `/orders?trader=${up(h.alice.address)}&marketId=${up(h.marketId)}`, undefined, A);
    assert.equal(list.status, 200);
    assert.equal(list.body.orders.length, 1);
    const recent = await call(h.base, 'GET', `/orders/recent?trader=${up(h.alice.address)}&marketId=${up(h.marketId)}`, undefined, A);
    assert.equal(recent.body.orders.length, 1);
    const creator = (await call(h.base, 'GET', `/markets/${h.marketId}`)).body.market.creator as string;
    const markets = await call(h.base, 'GET', `/markets?creator=${up(creator)}`);
    assert.equal(markets.status, 200);
    assert.ok(markets.body.markets.some((x: { id: string }) => x.id === h.marketId));
    const sim = await call(
      h.base,
      'POST',
      '/orders/simulate',
      {
        marketId: up(h.marketId),
        trader: up(h.bob.address),
        maxSize: '1000000',
        maxPrice: '990000',
        outcomeIndex: 1,
        side: 'ask',
      },
      A,
    );
    assert.equal(sim.status, 200, JSON.stringify(sim.body));
  });
});

test('book stream: a subscription by upper-case market id gets the market’s snapshot and its changes', async () => {
  await onHarness(async (h) => {
    const url = `${h.base}/markets/${up(h.marketId)}/orderbook?outcomeIndex=1`;
    let ended = false;
    const got = readSse(url, {}, (frames) => frames.some((f) => f.event === 'delta')).finally(() => {
      ended = true;
    });
    // the delta needs the subscription in place: wait until the hub has it (or the request ended: a 404)
    while (h.ex.hub.subscriberCount() === 0 && !ended) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await call(h.base, 'POST', '/orders', upperBid(h).body, A)).status, 201);
    const { frames } = await got;
    assert.equal(frames[0]!.event, 'snapshot');
    assert.equal(frames[0]!.data.marketId, h.marketId);
    const delta = frames.find((f) => f.event === 'delta')!;
    assert.equal(delta.data.marketId, h.marketId);
  });
});

test('account requests: balance, mint, portfolio and the migration status by an upper-case address answer the checksummed wallet', async () => {
  await onHarness(async (h) => {
    const wallet = up(h.alice.address);
    const before = await call(h.base, 'GET', `/balance/${wallet}`, undefined, A);
    assert.equal(before.status, 200);
    assert.equal(before.body.address, checksum(h.alice.address));
    const mint = await call(h.base, 'POST', '/balance/mint-test-usdc', { address: wallet, amount: '5' }, A);
    assert.equal(mint.status, 200, JSON.stringify(mint.body));
    const after = await call(h.base, 'GET', `/balance/${h.alice.address.toLowerCase()}`, undefined, A);
    assert.equal(BigInt(after.body.usdc.balance) - BigInt(before.body.usdc.balance), 5_000_000n, 'minted to the same wallet');
    const usdc = h.ex.state.chain.usdc;
    const token = await call(h.base, 'GET', `/balance/settlement?address=${wallet}&tokenAddress=${up(usdc)}`, undefined, A);
    assert.equal(token.status, 200);
    assert.equal(token.body.account, checksum(h.alice.address));
    assert.equal(token.body.token, checksum(usdc));
    assert.equal((await call(h.base, 'GET', `/portfolio/${wallet}`, undefined, A)).status, 200);
    const status = await call(h.base, 'GET', `/account/migration?address=${wallet}`, undefined, A);
    assert.equal(status.status, 200);
    assert.equal(status.body.walletAddress, checksum(h.alice.address));
  });
});

test('admin request: a market resolved by its upper-case id', async () => {
  await onHarness(
    async (h) => {
      const r = await call(h.base, 'POST', `/markets/${up(h.marketId)}/resolve`, { outcome: 'yes' }, 'admin-key');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(h.ex.state.services.market(h.marketId)!.status, 'resolved');
    },
    { apiKeys: [{ key: A }, { key: 'bob-key' }, { key: 'admin-key', perms: ['read', 'trade', 'admin'] }] },
  );
});

test('restore: records and engine ids read back in another spelling are normalised as they are read', () => {
  const id = `0x${'Ab'.repeat(32)}`;
  const trader = checksum(`0x${'c3'.repeat(20)}`);
  const m = {
    id,
    txHash: id,
    creator: trader,
    oracle: trader,
    outcomeTokens: [trader, trader],
    contractAddress: trader,
    participants: [trader],
  } as unknown as MarketRecord;
  normaliseMarket(m);
  assert.equal(m.id, id.toLowerCase());
  assert.equal(m.creator, trader.toLowerCase());
  assert.deepEqual(m.participants, [trader.toLowerCase()]);
  const o = { id: 1, hash: id, marketId: id, trader, nonce: up(id) } as unknown as StoredOrder;
  normaliseOrder(o);
  assert.deepEqual([o.hash, o.marketId, o.trader, o.nonce], [id.toLowerCase(), id.toLowerCase(), trader.toLowerCase(), id.toLowerCase()]);
  const e = { seq: 1, marketId: id, traders: [trader] } as unknown as ActivityEntry;
  normaliseActivity(e);
  assert.deepEqual([e.marketId, e.traders], [id.toLowerCase(), [trader.toLowerCase()]]);
  assert.throws(() => normaliseOrder({ id: 2, hash: '0x12' } as unknown as StoredOrder), /state file: order 2 hash/);
  // the engine host's id lists, as an older file spelt them
  const host = new EngineHost(
    (sink) => new MatchingEngine({ sink }),
    () => undefined,
    false,
  );
  host.ensureMarket(id.toLowerCase() as Bytes32);
  host.ensureTrader(trader);
  const saved = host.exportState((eng) => (eng as MatchingEngine).exportState());
  const restored = new EngineHost(
    (sink) => new MatchingEngine({ sink }),
    () => undefined,
    false,
  );
  restored.loadState({ ...saved, marketIds: [up(id)], traderAddrs: [trader] }, (d, sink) => MatchingEngine.fromState(d as never, { sink }));
  assert.equal(restored.marketIndex(id.toLowerCase() as Bytes32), 0);
  assert.equal(restored.traderIndex(addressOf(trader)!), 0);
  assert.equal(walletOf({ wallet: trader }), trader.toLowerCase());
});
