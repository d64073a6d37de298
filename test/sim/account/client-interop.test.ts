/**
 * Interoperability: the project's own venue client and start-up migration runner (what the bot runs
 * before quoting) complete the migration of a seeded legacy account on the local exchange — two
 * funds chunks, both retired orders restored — and then trading is allowed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createVenueClient } from '../../../src/exchange/venue-client.ts';
import { runStartupMigration } from '../../../src/migration/startup-migration.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { installMigration, isWalletTradingBlocked } from '../../../src/sim/migration/install.ts';
import { startHarness } from './harness.ts';

test('the venue client and the start-up migration runner migrate a seeded legacy account', async () => {
  const pk = generatePrivateKey();
  const wallet = privateKeyToAccount(pk).address as Address;
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
          positions: [
            { marketId: m0, outcomeIndex: 1, amount: 2_000_000n },
            { marketId: m1, outcomeIndex: 0, amount: 1_000_000n },
          ],
          orders: [
            { marketId: m0, outcomeIndex: 1, side: 0, price: 300_000, size: 2_000_000 },
            { marketId: m0, outcomeIndex: 1, side: 1, price: 800_000, size: 1_000_000 },
          ],
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
