/**
 * Interoperability: the project's own venue client and start-up migration runner (what the bot runs
 * before quoting) complete the migration of a seeded legacy account on the local exchange — two
 * funds chunks, both retired orders restored — and then trading is allowed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressOfPrivateKey, randomPrivateKey } from '../../support/keys.ts';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createVenueClient } from '../../../src/exchange/venue-client.ts';
import { runStartupMigration } from '../../../src/migration/startup-migration.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { installMigration, isWalletTradingBlocked } from '../../../src/sim/migration/install.ts';
import { startHarness } from './harness.ts';
import { holding, legacyOrder } from '../../support/legacy-seeds.ts';

test('the venue client and the start-up migration runner migrate a seeded legacy account', async () => {
  const pk = randomPrivateKey();
  const wallet = addressOfPrivateKey(pk) as Address;
  const h = await startHarness({ apiKeys: [{ key: 'bot', wallet }], privateKeys: { bot: pk }, markets: 2 });
  const client = createVenueClient({ chain: TESTNET, baseUrl: h.baseUrl, apiKey: 'bot', now: () => h.clock.now() });
  try {
    const [m0, m1] = [...h.ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32];
    installMigration(h.ex.state, {
      tokensPerChunk: 2,
      legacyAccounts: [
        {
          wallet,
          collateral: 30_000_000n,
          positions: [holding(m0, 1, 2_000_000n), holding(m1, 0, 1_000_000n)],
          orders: [legacyOrder(m0, 1, 0, 300_000, 2_000_000), legacyOrder(m0, 1, 1, 800_000, 1_000_000)],
        },
      ],
    });
    assert.equal(isWalletTradingBlocked(h.ex.state, wallet), true);
    const report = await runStartupMigration({ api: client.migration, signer: h.signerOf('bot'), clock: h.clock, pollIntervalMs: 1, maxWaitMs: 10 });
    assert.equal(report.outcome, 'completed');
    assert.deepEqual(report.steps, ['status', 'start', 'migrate-funds', 'restore-orders', 'ready']);
    assert.equal(report.fundsChunks, 2);
    assert.equal(report.restored, 2);
    assert.equal(isWalletTradingBlocked(h.ex.state, wallet), false);
    const again = await runStartupMigration({ api: client.migration, signer: h.signerOf('bot'), clock: h.clock, pollIntervalMs: 1, maxWaitMs: 10 });
    assert.equal(again.outcome, 'not-needed', 'a re-run finds nothing to do');
  } finally {
    await client.close();
    await h.close();
  }
});

test('the venue client parses every account answer: balance, mint, portfolio, gasless, questions', async () => {
  // the faucet mints to the wallet, as on the venue, so the permit deposit has USDC to move
  const h = await startHarness({
    apiKeys: [{ key: 'maker', perms: ['read', 'trade', 'can_create_markets'] }, { key: 'taker' }],
    markets: 2,
    accounts: { faucet: 'wallet' },
  });
  const sleep = async (ms: number) => h.clock.advance(ms);
  const client = createVenueClient({ chain: TESTNET, baseUrl: h.baseUrl, apiKey: 'maker', now: () => h.clock.now(), sleep });
  const taker = createVenueClient({ chain: TESTNET, baseUrl: h.baseUrl, apiKey: 'taker', now: () => h.clock.now(), sleep });
  try {
    const maker = h.signerOf('maker');
    const m0 = [...h.ex.state.stores.markets.values()][0]!.id as Bytes32;
    const minted = await client.balance.mintTestUsdc(maker.address, '12.5');
    assert.match(minted.hash, /^0x[0-9a-f]{64}$/);
    // a fill, so portfolio answers carry items
    assert.equal((await h.call('POST', '/orders', { key: 'maker', body: maker.signOrder(legacyOrder(m0, 1, 0, 450_000, 2_000_000)) })).status, 201);
    assert.equal(
      (
        await h.call('POST', '/orders', {
          key: 'taker',
          body: h.signerOf('taker').signOrder(legacyOrder(m0, 0, 0, 550_000, 2_000_000)),
        })
      ).status,
      201,
    );
    const summary = await client.balance.summary(maker.address);
    assert.equal(summary.outcomeTokens.length, 1);
    assert.equal(typeof (await client.balance.token(maker.address, TESTNET.usdc)).balance, 'bigint');
    assert.equal((await client.balance.settlement(maker.address, TESTNET.usdc)).account, maker.normalAddress); // addresses enter in normal form
    assert.equal((await client.portfolio.get(maker.address)).portfolio.length, 1);
    assert.equal((await client.portfolio.positions(maker.address)).positions.length, 1);
    await client.portfolio.claimable(maker.address);
    await client.portfolio.stats(maker.address);
    const op = maker.signOperatorApproval({ nonce: 0 });
    const relayed = await client.gasless.setOperator(op);
    assert.equal(relayed.user, maker.normalAddress);
    const permit = maker.signPermit2({ amount: 3_000_000n });
    const dep = await client.gasless.depositWithPermit({
      user: permit.user,
      amount: permit.amount,
      nonce: permit.nonce,
      deadline: permit.deadline,
      signature: permit.signature,
    });
    assert.equal(dep.amount, 3_000_000n);
    const sub = await client.questions.submit('Will the lighthouse reopen to visitors this summer?');
    const done = await client.questions.waitForSubmission(sub.submissionId, { intervalMs: 1_000, maxAttempts: 20 });
    assert.equal(done.status, 'completed');
    const created = await client.questions.createMarket(done.questions[0]!.id as Bytes32);
    assert.match(created.marketId, /^0x[0-9a-fA-F]{64}$/);
    await assert.rejects(
      () => taker.questions.submit('Will it happen at all, ever?'),
      (e: { status?: number }) => e.status === 403,
    );
  } finally {
    await client.close();
    await taker.close();
    await h.close();
  }
});
