/**
 * Operations of several legs apply whole or not at all: cancel-replace (create refused → the old
 * order untouched, the answer names the leg), bulk (one refused create → nothing applied),
 * migrate-funds (a resolved market's tokens are redeemed at its payout; a retry is 409, never a
 * second credit) and the permit deposit (a refused deposit leaves its nonce unused). restore-orders
 * (each item whole; a retried item is not placed twice) is tested in account/migration-flow.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressOfPrivateKey, randomPrivateKey } from '../support/keys.ts';
import type { Address, Bytes32 } from '../../src/model/order.ts';
import { installMigration } from '../../src/sim/migration/install.ts';
import type { LegacyPositionSeed } from '../../src/sim/migration/legacy-seeds.ts';
import { bulk, call, cancelOp, createOp, onHarness } from './helpers.ts';
import { migrateFundsBody, startHarness } from './account/harness.ts';
import { holding } from '../support/legacy-seeds.ts';

const USDC = 1_000_000;

async function balanceOf(base: string, key: string) {
  return (await call(base, 'GET', '/balance', undefined, key)).body;
}

test('cancel-replace: a refused create leaves the old order open and says which leg failed; a create that needs the freed balance passes', async () => {
  await onHarness(
    async (h) => {
      // the resting order reserves most of alice's 1,000 USDC
      const old = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 500_000, size: 1_800 * USDC });
      const placed = await call(h.base, 'POST', '/orders', old, 'alice-key');
      assert.equal(placed.status, 201);
      const before = await balanceOf(h.base, 'alice-key');

      const tooBig = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 500_000, size: 2_400 * USDC });
      const r = await call(h.base, 'POST', '/orders/cancel-replace', { cancel: h.alice.signCancel(old.nonce), create: tooBig }, 'alice-key');
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'INSUFFICIENT_BALANCE');
      assert.equal(r.body.failedLeg, 'create');
      assert.equal(r.body.applied, false);
      assert.match(r.body.message, /create leg refused; nothing was applied/);
      assert.equal((await call(h.base, 'GET', `/orders/${placed.body.order.id}`, undefined, 'alice-key')).body.status, 'open', 'the old order is untouched');
      assert.deepEqual(await balanceOf(h.base, 'alice-key'), before);
      assert.equal((await call(h.base, 'POST', '/orders', tooBig, 'alice-key')).status, 400, 'the refused create was not stored (its nonce is free)');

      // a bad signature on the create leg: same, nothing applied
      const forged = {
        ...h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 450_000, size: USDC }),
        signature: h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 450_000, size: USDC }).signature,
      };
      const f = await call(h.base, 'POST', '/orders/cancel-replace', { cancel: h.alice.signCancel(old.nonce), create: forged }, 'alice-key');
      assert.equal(f.body.code, 'INVALID_SIGNATURE');
      assert.equal(f.body.failedLeg, 'create');
      assert.equal((await call(h.base, 'GET', `/orders/${placed.body.order.id}`, undefined, 'alice-key')).body.status, 'open');

      // a cancel leg for an unknown order: failedLeg cancel
      const u = await call(
        h.base,
        'POST',
        '/orders/cancel-replace',
        { cancel: h.alice.signCancel(('0x' + '7'.repeat(64)) as Bytes32), create: tooBig },
        'alice-key',
      );
      assert.equal(u.status, 404);
      assert.equal(u.body.failedLeg, 'cancel');

      // 1,900 shares at 0.5 needs more than what is available now, but not more than what the cancel frees
      const fits = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 500_000, size: 1_900 * USDC });
      const ok = await call(h.base, 'POST', '/orders/cancel-replace', { cancel: h.alice.signCancel(old.nonce), create: fits }, 'alice-key');
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.cancel.alreadyCancelled, false);
      assert.equal((await call(h.base, 'GET', `/orders/${placed.body.order.id}`, undefined, 'alice-key')).body.status, 'cancelled');
      assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
    },
    { initialCollateral: 1_000n * BigInt(USDC) },
  );
});

test('bulk: one create the engine would refuse refuses the whole call; creates may use what the call cancels frees', async () => {
  await onHarness(
    async (h) => {
      const small = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 400_000, size: 1_000 * USDC }); // ~400 USDC
      const small2 = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 410_000, size: 1_000 * USDC }); // ~410
      const third = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 420_000, size: 1_000 * USDC }); // ~420: 1,230 in all
      const r = await call(h.base, 'POST', '/orders/bulk/create', { orders: [small, small2, third] }, 'alice-key');
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'INSUFFICIENT_BALANCE');
      assert.deepEqual(
        r.body.errors.map((e: { index: number }) => e.index),
        [2],
      );
      assert.match(r.body.message, /nothing was applied/);
      assert.equal((await call(h.base, 'GET', '/orders', undefined, 'alice-key')).body.orders.length, 0, 'no order of the call was placed');
      assert.equal(h.ex.state.engine.balance(h.ex.state.keys.get('alice-key')!.wallet)!.reserved, 0n, 'nothing reserved');

      // two fit; then a mixed call cancelling one of them funds a third
      const two = await call(h.base, 'POST', '/orders/bulk/create', { orders: [small, small2] }, 'alice-key');
      assert.equal(two.status, 201);
      const mixed = await bulk(h.base, 'alice-key', createOp(third), cancelOp(h.alice.signCancel(small.nonce)));
      assert.equal(mixed.status, 201, JSON.stringify(mixed.body));
      assert.equal(mixed.body.errors, undefined);
      assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
    },
    { initialCollateral: 1_000n * BigInt(USDC) },
  );
});

/**
 * A local exchange of two markets and a wallet with no collateral yet (its key 'legacy-key'), whose funds
 * migration is active: `collateral` and the `holdings` in the two markets wait in its legacy account.
 */
async function legacyWallet(collateral: bigint, holdings: (m0: Bytes32, m1: Bytes32) => LegacyPositionSeed[]) {
  const pk = randomPrivateKey();
  const wallet = addressOfPrivateKey(pk) as Address;
  const h = await startHarness({ apiKeys: [{ key: 'legacy-key', wallet }], privateKeys: { 'legacy-key': pk }, initialCollateral: 0n, markets: 2 });
  const [m0, m1] = [...h.ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32];
  installMigration(h.ex.state, { active: true, tokensPerChunk: 5, legacyAccounts: [{ wallet, collateral, positions: holdings(m0, m1) }] });
  return { h, wallet, m0, m1 };
}

test('migrate-funds: a resolved market’s legacy tokens are redeemed at the payout, the whole chunk applies once, and a retry is 409 without a second credit', async () => {
  const { h, wallet, m0, m1 } = await legacyWallet(1_000_000_000n, (m0, m1) => [holding(m0, 1, 5_000_000n), holding(m1, 0, 3_000_000n)]);
  try {
    // m1 resolves YES: its NO tokens are worth nothing; resolve m0 to 30 % YES: its YES tokens pay 0.3
    h.ex.state.services.resolveMarket(m0, 300_000, h.clock.now());
    h.ex.state.services.resolveMarket(m1, 1_000_000, h.clock.now());
    const body = migrateFundsBody(h.signerOf('legacy-key'), (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body);
    const r = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const expected = 1_000_000_000n + (5_000_000n * 300_000n) / 1_000_000n; // + 1.5 USDC for the YES tokens, 0 for the NO
    assert.equal(h.ex.state.engine.balance(wallet)!.collateral, expected);
    assert.deepEqual(r.body.redeemedResolved.map((x: { collateral: string }) => x.collateral).sort(), ['0', '1500000']);
    assert.deepEqual(r.body.legacyBalances, []);
    const again = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body });
    assert.equal(again.status, 409, 'a retry of the applied chunk is recognised');
    assert.equal(h.ex.state.engine.balance(wallet)!.collateral, expected, 'never credited twice');
    assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
  } finally {
    await h.close();
  }
});

test('migrate-funds: a token of a halted market refuses the whole chunk and changes nothing; a retry after it reopens applies once', async () => {
  const { h, wallet, m0, m1 } = await legacyWallet(2_000_000n, (m0, m1) => [holding(m0, 1, 4_000_000n), holding(m1, 1, 1_000_000n)]);
  try {
    const host = h.ex.state.engine;
    host.setMarketStatus(host.marketIndex(m1)!, 'halted');
    const body = migrateFundsBody(h.signerOf('legacy-key'), (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body);
    const r = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(host.balance(wallet)?.collateral ?? 0n, 0n, 'no collateral credited');
    assert.equal(host.position(wallet, m0)?.yes ?? 0n, 0n, 'no tokens credited');
    assert.equal((await h.call('GET', '/account/migration', { key: 'legacy-key' })).body.legacyBalances.length, 3, 'legacy balances untouched');
    host.setMarketStatus(host.marketIndex(m1)!, 'open');
    const ok = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(host.balance(wallet)!.collateral, 2_000_000n);
    assert.equal(host.position(wallet, m0)!.yes, 4_000_000n);
    assert.equal(host.position(wallet, m1)!.yes, 1_000_000n);
    assert.equal((await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body })).status, 409);
    assert.equal(host.balance(wallet)!.collateral, 2_000_000n);
  } finally {
    await h.close();
  }
});

test('deposit-with-permit: a deposit the ledger refuses leaves the permit nonce unused', async () => {
  const pk = randomPrivateKey();
  const wallet = addressOfPrivateKey(pk) as Address;
  const h = await startHarness({ apiKeys: [{ key: 'k', wallet }], privateKeys: { k: pk }, initialCollateral: 0n, markets: 1 });
  try {
    const s = h.signerOf('k');
    h.ex.state.ext.walletUsdc = { [wallet.toLowerCase()]: 10n ** 16n };
    // 10^16 (1e10 USDC) passes the route's bound but not the engine's 2^53 cap on collateral
    const huge = s.signPermit2({ amount: 10n ** 16n, nonce: 77n });
    const r = await h.call('POST', '/gasless/deposit-with-permit', { key: 'k', body: huge });
    assert.notEqual(r.status, 200);
    assert.equal(h.ex.state.engine.balance(wallet)?.collateral ?? 0n, 0n);
    assert.equal((h.ex.state.ext.walletUsdc as Record<string, bigint>)[wallet.toLowerCase()], 10n ** 16n, 'the wallet keeps its USDC');
    const small = s.signPermit2({ amount: 5_000_000n, nonce: 77n });
    const ok = await h.call('POST', '/gasless/deposit-with-permit', { key: 'k', body: small });
    assert.equal(ok.status, 200, `the nonce of the refused deposit is still usable: ${JSON.stringify(ok.body)}`);
    assert.equal(h.ex.state.engine.balance(wallet)!.collateral, 5_000_000n);
    assert.equal((await h.call('POST', '/gasless/deposit-with-permit', { key: 'k', body: small })).status, 409);
    assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
  } finally {
    await h.close();
  }
});
