/**
 * The migration runner against the real local exchange over HTTP: the venue client's migration
 * calls, the real signer (the exchange verifies every EIP-712 signature), a seeded legacy account
 * with several funds chunks and two retired orders; then an interrupted run and a re-run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keccakText } from '../../src/exchange/signing/text-hash.ts';
import { systemClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { runStartupMigration, type MigrationApi } from '../../src/migration/startup-migration.ts';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { installMigration } from '../../src/sim/migration/install.ts';
import type { Bytes32 } from '../../src/model/order.ts';

function legacyWallet(tag: string) {
  const signer = createSigner({ privateKey: keccakText(`migration-e2e:${tag}`), chain: TESTNET });
  return signer;
}

describe('start-up migration against the local exchange', () => {
  let ex: LocalExchange;
  let baseUrl: string;
  const a = legacyWallet('a');
  const b = legacyWallet('b');

  before(async () => {
    ex = createLocalExchange({
      seed: 7,
      markets: 2,
      apiKeys: [
        { key: 'key-a', wallet: a.address },
        { key: 'key-b', wallet: b.address },
      ],
      expirySweepMs: 0,
    });
    const markets = [...ex.state.stores.markets.values()].map((m) => m.id as Bytes32);
    const seed = (wallet: `0x${string}`) => ({
      wallet,
      collateral: 50_000_000n,
      positions: [
        { marketId: markets[0]!, outcomeIndex: 1 as const, amount: 5_000_000n },
        { marketId: markets[1]!, outcomeIndex: 0 as const, amount: 3_000_000n },
      ],
      orders: [
        { marketId: markets[0]!, outcomeIndex: 1 as const, side: 0 as const, price: 400_000, size: 10_000_000 },
        // a partly filled sell of YES held in the same market (3 of the 5 YES shares remain to sell)
        { marketId: markets[0]!, outcomeIndex: 1 as const, side: 1 as const, price: 650_000, size: 4_000_000, filled: 1_000_000 },
      ],
    });
    installMigration(ex.state, { tokensPerChunk: 2, legacyAccounts: [seed(a.address), seed(b.address)] });
    baseUrl = await ex.start(0);
  });
  after(async () => {
    await ex.close();
  });

  it('migrates funds in chunks, restores the retired orders, and trading is allowed afterwards', async (t) => {
    const client = createVenueClient({ baseUrl, apiKey: 'key-a', chain: TESTNET });
    try {
      assert.equal((await client.migration.status()).migrationComplete, false);
      const lines: string[] = [];
      const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
      const r = await runStartupMigration({ api: client.migration, signer: a, clock: systemClock, logger, pollIntervalMs: 50, maxWaitMs: 10_000 });
      for (const l of lines) if (l.includes('refused')) t.diagnostic(l.trim());
      assert.ok(
        lines.some((l) => l.includes('"step":"migrate-funds"')),
        'each step is logged',
      );
      assert.equal(r.outcome, 'completed');
      assert.ok(r.fundsChunks >= 2, `several chunks expected, got ${r.fundsChunks}`);
      assert.deepEqual({ restored: r.restored, failed: r.failedRestorations }, { restored: 2, failed: 0 }, JSON.stringify(r));
      const open = (await client.orders.list({ trader: a.address, status: ['open'] })).orders;
      assert.deepEqual(
        open.map((o) => o.settlementVersion),
        [2, 2],
        'restored as V2 orders',
      );
      const s = await client.migration.status();
      assert.equal(s.migrationComplete, true);
      assert.equal(s.v2OperatorApproved, true);
      // a second run finds nothing to do
      assert.equal((await runStartupMigration({ api: client.migration, signer: a, clock: systemClock })).outcome, 'not-needed');
    } finally {
      await client.close();
    }
  });

  it('an interrupted run (answer lost after the funds migration) completes on the re-run', async () => {
    const client = createVenueClient({ baseUrl, apiKey: 'key-b', chain: TESTNET });
    try {
      let cut = true;
      const flaky: MigrationApi = {
        ...client.migration,
        migrateFunds: async (input) => {
          const res = await client.migration.migrateFunds(input);
          if (cut) {
            cut = false;
            throw new Error('connection reset after the venue applied migrate-funds');
          }
          return res;
        },
      };
      await assert.rejects(runStartupMigration({ api: flaky, signer: b, clock: systemClock, pollIntervalMs: 50, maxWaitMs: 10_000, restore: 'dismiss' }));
      const r = await runStartupMigration({ api: flaky, signer: b, clock: systemClock, pollIntervalMs: 50, maxWaitMs: 10_000, restore: 'dismiss' });
      assert.equal(r.outcome, 'completed');
      assert.equal(r.fundsChunks, 0, 'funds were not submitted twice');
      assert.equal(r.dismissed, 2);
      assert.equal((await client.migration.status()).migrationComplete, true);
    } finally {
      await client.close();
    }
  });
});
