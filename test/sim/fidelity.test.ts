/**
 * Fidelity to the venue and to on-chain verification: the chain option picks the EIP-712 domains and
 * the chainId markets report; high-s signatures and v = 0/1 are refused (OpenZeppelin ECDSA rules).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAINNET, TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { call, onHarness, placeBid } from './helpers.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

test('--chain mainnet: mainnet signatures verify, testnet ones are INVALID_SIGNATURE, markets report chainId 8453', async () => {
  await onHarness(
    async (h) => {
      const pk = h.ex.state.keys.get('alice-key')!.privateKey!;
      const main = createSigner({ privateKey: pk, chain: MAINNET });
      const ok = await placeBid(h, main, 300_000);
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const test = createSigner({ privateKey: pk, chain: TESTNET });
      const bad = await placeBid(h, test, 300_000);
      assert.equal(bad.body.code, 'INVALID_SIGNATURE');
      const m = await call(h.base, 'GET', `/markets/${h.marketId}`);
      assert.equal(String(m.body.market?.chainId ?? m.body.chainId), String(MAINNET.chainId));
    },
    { chain: MAINNET },
  );
});

test('a high-s twin of a valid signature and v = 0/1 are refused as INVALID_SIGNATURE', async () => {
  await onHarness(async (h) => {
    const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 1_000_000 });
    const sig = body.signature.slice(2);
    const s = BigInt('0x' + sig.slice(64, 128));
    const v = parseInt(sig.slice(128, 130), 16);
    assert.ok(v === 27 || v === 28, 'our signer writes v 27/28');
    const highS = (N - s).toString(16).padStart(64, '0');
    const twin = `0x${sig.slice(0, 64)}${highS}${(v === 27 ? 28 : 27).toString(16)}`;
    const r1 = await call(h.base, 'POST', '/orders', { ...body, signature: twin }, 'alice-key');
    assert.equal(r1.status, 400);
    assert.equal(r1.body.code, 'INVALID_SIGNATURE');
    assert.match(r1.body.message, /high-s/);
    const v0 = `0x${sig.slice(0, 128)}${(v - 27).toString(16).padStart(2, '0')}`;
    const r2 = await call(h.base, 'POST', '/orders', { ...body, signature: v0 }, 'alice-key');
    assert.equal(r2.body.code, 'INVALID_SIGNATURE');
    assert.match(r2.body.message, /v must be 27 or 28/);
    // the original is accepted; the cancel path applies the same rule
    assert.equal((await call(h.base, 'POST', '/orders', body, 'alice-key')).status, 201);
    const c = h.alice.signCancel(body.nonce);
    const cs = c.signature.slice(2);
    const ctwin = `0x${cs.slice(0, 64)}${(N - BigInt('0x' + cs.slice(64, 128))).toString(16).padStart(64, '0')}${cs.slice(128, 130) === '1b' ? '1c' : '1b'}`;
    assert.equal((await call(h.base, 'POST', '/orders/cancel', { ...c, signature: ctwin }, 'alice-key')).body.code, 'INVALID_SIGNATURE');
  });
});

test('GET /orders/:id finds an order by numeric id, by hash and by its nonce', async () => {
  await onHarness(async (h) => {
    const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 1_000_000 });
    const r = await call(h.base, 'POST', '/orders', body, 'alice-key');
    assert.equal(r.status, 201);
    const stored = h.ex.orders.byTraderNonce(h.alice.address, body.nonce)!;
    for (const id of [String(stored.id), stored.hash, body.nonce]) {
      const g = await call(h.base, 'GET', `/orders/${id}`, undefined, 'alice-key');
      assert.equal(g.status, 200, id);
      assert.equal(g.body.nonce, body.nonce);
    }
    assert.equal((await call(h.base, 'GET', `/orders/0x${'5'.repeat(64)}`, undefined, 'alice-key')).status, 404);
  });
});

test('createdAfter takes unix seconds or an ISO date; minting test USDC needs the trade permission', async () => {
  await onHarness(async (h) => {
    const all = (await call(h.base, 'GET', '/markets?limit=50')).body.markets.length;
    assert.ok(all > 0);
    assert.equal((await call(h.base, 'GET', '/markets?limit=50&createdAfter=2000-01-01T00:00:00Z')).body.markets.length, all);
    assert.equal((await call(h.base, 'GET', '/markets?limit=50&createdAfter=2000-01-01')).body.markets.length, all);
    assert.equal((await call(h.base, 'GET', '/markets?limit=50&createdAfter=2999-01-01T00:00:00.000Z')).body.markets.length, 0);
    assert.equal((await call(h.base, 'GET', '/markets?limit=50&createdAfter=946684800')).body.markets.length, all);
    assert.equal((await call(h.base, 'GET', '/markets?createdAfter=yesterday')).status, 400);
    const reader = h.ex.state.keys.get('reader-key')!;
    const mint = await call(h.base, 'POST', '/balance/mint-test-usdc', { address: reader.wallet, amount: '100' }, 'reader-key');
    assert.equal(mint.status, 403);
    assert.equal((await call(h.base, 'POST', '/balance/mint-test-usdc', { address: h.alice.address, amount: '100' }, 'alice-key')).status, 200);
  });
});

test('an expiry beyond 2^53 is reported with every digit; quotes are in cents', async () => {
  await onHarness(async (h) => {
    const far = '340282366920938463463374607431768211455'; // 2^128 − 1: "never"
    const unsigned = { ...h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 1_000_000 }) };
    const body = h.alice.signOrderBody({ ...unsigned, expiry: far } as never);
    const r = await call(h.base, 'POST', '/orders', body, 'alice-key');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.order.expiry, far);
    assert.equal((await call(h.base, 'GET', `/orders/${r.body.order.id}`, undefined, 'alice-key')).body.expiry, far);
    assert.equal((await call(h.base, 'GET', `/orders?limit=5`, undefined, 'alice-key')).body.orders[0].expiry, far);
    const q = await call(h.base, 'GET', `/markets/${h.marketId}/quotes`);
    assert.equal(q.body.yes.bid, 30, 'the 0.30 bid as 30 cents');
  });
});
