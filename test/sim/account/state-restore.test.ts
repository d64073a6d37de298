/**
 * `--state FILE`: a half-done migration, the operator nonces, submissions and the ledger credits of
 * migrated funds survive a save and a restart of the local exchange.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressOfPrivateKey, randomPrivateKey } from '../../support/keys.ts';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { createLocalExchange } from '../../../src/sim/local-exchange.ts';
import { installMigration } from '../../../src/sim/migration/install.ts';
import { caller, closeCaller } from '../conformance/http-client.ts';
import { manualClock } from './harness.ts';
import { holding, legacyOrder } from '../../support/legacy-seeds.ts';

test('migration progress and migrated funds are restored from the state file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-account-state-'));
  const file = join(dir, 'state.json');
  const pk = randomPrivateKey();
  const wallet = addressOfPrivateKey(pk) as Address;
  const clock = manualClock();
  const signer = createSigner({ privateKey: pk, chain: TESTNET, now: () => Math.floor(clock.now() / 1000) });
  const opts = { seed: 3, apiKeys: [{ key: 'legacy', wallet }], markets: 2, clock, expirySweepMs: 0, stateFile: file, initialCollateral: 0n };
  try {
    const ex1 = createLocalExchange(opts);
    const m0 = [...ex1.state.stores.markets.values()][0]!.id as Bytes32;
    const seed = {
      legacyAccounts: [
        {
          wallet,
          collateral: 9_000_000n,
          positions: [holding(m0, 1, 4_000_000n)],
          orders: [legacyOrder(m0, 1, 0, 250_000, 1_000_000)],
        },
      ],
    };
    installMigration(ex1.state, seed);
    const call1 = caller(await ex1.start(0));
    assert.equal((await call1('POST', '/account/migration/start', { key: 'legacy' })).status, 200);
    const st = (await call1('GET', '/account/migration', { key: 'legacy' })).body;
    const bw = signer.signBatchWithdraw({ to: st.sponsoredRelayerAddress, tokens: st.fundsMigrationPlan.chunks[0].tokens });
    const op = signer.signOperatorApproval({ nonce: st.newHoldingsOperatorNonce });
    const fundsBody = {
      batchWithdraw: { nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature },
      setOperator: { nonce: op.nonce, deadline: op.deadline, signature: op.signature },
    };
    const moved = await call1('POST', '/account/migration/migrate-funds', { key: 'legacy', body: fundsBody });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await ex1.close(); // saves

    const ex2 = createLocalExchange(opts);
    installMigration(ex2.state, seed); // as start-up would: must not reseed the restored wallet
    const call2 = caller(await ex2.start(0));
    try {
      const after = (await call2('GET', '/account/migration', { key: 'legacy' })).body;
      assert.deepEqual(after.legacyBalances, [], 'funds stay migrated');
      assert.equal(after.newHoldingsOperatorNonce, '1');
      assert.equal(after.v2OperatorApproved, true);
      assert.equal(after.pendingRestorations.length, 1, 'the retired order still awaits restoration');
      assert.equal(after.legacyOpenOrderCount, 0);
      const bal = (await call2('GET', `/balance/${wallet}`, { key: 'legacy' })).body;
      assert.equal(bal.usdc.balance, '9000000');
      assert.equal(bal.outcomeTokens[0].balance, '4000000');
      assert.equal(
        (await call2('POST', '/orders', { key: 'legacy', body: signer.signOrder(legacyOrder(m0, 1, 0, 300_000, 1_000_000)) })).status,
        409,
        'the 409 rule survives the restart',
      );
      const replay = await call2('POST', '/account/migration/migrate-funds', { key: 'legacy', body: fundsBody });
      assert.equal(replay.status, 409, 'spent signatures stay spent');
    } finally {
      await closeCaller(call1);
      await closeCaller(call2);
      await ex2.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
