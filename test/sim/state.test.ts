/** --state FILE: everything survives a save and a restore (orders, balances, positions, nonces, markets, activity). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, harness } from './helpers.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { decodeState, encodeState } from '../../src/sim/state-file.ts';
import { startCounterparties } from '../../src/sim/counterparties.ts';

test('state codec round-trips bigints and maps', () => {
  const s = {
    version: 1,
    seed: 1,
    savedAt: 0,
    keys: [],
    markets: [],
    orders: [],
    activity: [],
    ext: { big: 123456789012345678901234567890n, m: new Map([['a', 1n]]) },
    counters: {},
    engineLog: [],
  };
  const back = decodeState(encodeState(s));
  assert.equal(back.ext.big, 123456789012345678901234567890n);
  assert.deepEqual([...(back.ext.m as Map<string, bigint>)], [['a', 1n]]);
  assert.throws(() => decodeState('{"version":99}'), /version/);
});

test('close saves and a new exchange restores exactly: books, balances, orders, nonces, activity, counterparties', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
  const file = join(dir, 'state.json');
  try {
    const h = await harness({ stateFile: file });
    const cp = startCounterparties(h.ex, { seed: 3, intervalMs: 1e9 });
    cp.step();
    cp.step();
    const rest = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 150_000, size: 4_000_000 });
    const r1 = await call(h.base, 'POST', '/orders', rest, 'alice-key');
    const take = h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 860_000, size: 1_000_000 }); // hits alice's YES bid at 15
    await call(h.base, 'POST', '/orders', take, 'bob-key');
    const cancelled = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 120_000, size: 1_000_000 });
    await call(h.base, 'POST', '/orders', cancelled, 'alice-key');
    await call(h.base, 'POST', '/orders/cancel', h.alice.signCancel(cancelled.nonce), 'alice-key');
    const book1 = await call(h.base, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1&depth=50`);
    const orders1 = await call(h.base, 'GET', `/orders?trader=${h.alice.address}&limit=100`, undefined, 'alice-key');
    const act1 = await call(h.base, 'GET', '/activity?limit=100');
    const markets1 = await call(h.base, 'GET', '/markets?limit=50');
    const balA = h.ex.state.engine.balance(h.alice.address);
    const posB = h.ex.state.engine.position(h.bob.address, h.marketId);
    cp.stop();
    await h.close();

    const ex2 = createLocalExchange({ stateFile: file, expirySweepMs: 0 });
    const base2 = await ex2.start(0);
    try {
      assert.deepEqual((await call(base2, 'GET', `/markets/${h.marketId}/orderbook?outcomeIndex=1&depth=50`)).body.bids, book1.body.bids);
      assert.deepEqual((await call(base2, 'GET', `/orders?trader=${h.alice.address}&limit=100`, undefined, 'alice-key')).body.orders, orders1.body.orders);
      assert.deepEqual((await call(base2, 'GET', '/activity?limit=100')).body, act1.body);
      assert.deepEqual(
        (await call(base2, 'GET', '/markets?limit=50')).body.markets.map((m: any) => [m.id, m.volume]),
        markets1.body.markets.map((m: any) => [m.id, m.volume]),
      );
      assert.deepEqual(ex2.state.engine.balance(h.alice.address), balA);
      assert.deepEqual(ex2.state.engine.position(h.bob.address, h.marketId), posB);
      assert.equal(ex2.state.engine.engine.checkInvariants().length, 0);
      // nonces survive: a replay is still a duplicate
      assert.equal((await call(base2, 'POST', '/orders', rest, 'alice-key')).status, 409);
      // the restored resting order is still live and cancellable
      const c = await call(base2, 'POST', '/orders/cancel', h.alice.signCancel(rest.nonce), 'alice-key');
      assert.equal(c.status, 201);
      assert.equal((await call(base2, 'GET', `/orders/${r1.body.order.id}`, undefined, 'alice-key')).body.status, 'cancelled');
      // and new orders get fresh ids after the restored ones
      const fresh = await call(
        base2,
        'POST',
        '/orders',
        h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 }),
        'alice-key',
      );
      assert.equal(fresh.body.order.id, ex2.state.stores.orders.length);
    } finally {
      await ex2.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
