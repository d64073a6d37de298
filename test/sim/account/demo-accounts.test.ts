/**
 * The demo legacy accounts `bookmaker sim` can seed: derived from the seed, their keys complete the
 * SDK's migration flow generically (status → start → one signature per plan chunk → restore every
 * draft) and end able to trade.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createSigner, type Signer } from '../../../src/exchange/signing/signer.ts';
import type { Address } from '../../../src/model/order.ts';
import { restorationBody } from '../../../src/migration/restoration-body.ts';
import { installedDemoAccounts } from '../../../src/sim/migration/install.ts';
import { installAccounts } from '../../../src/sim/routes/account/install-accounts.ts';
import type { Call } from '../conformance/http-client.ts';
import { startHarness } from './harness.ts';

/** What a client does, knowing nothing but the status answer (SDK signSponsoredMigrateFunds + restore). */
async function migrate(call: Call, key: string, s: Signer, address: Address): Promise<void> {
  const q = `?address=${address}`;
  const st0 = (await call('GET', `/account/migration${q}`, { key })).body;
  if (st0.canStart) {
    const auth = s.signMigrationAuthorization({ action: 'start' });
    assert.equal(
      (await call('POST', '/account/migration/start', { key, body: { address, authorization: { deadline: auth.deadline, signature: auth.signature } } }))
        .status,
      200,
    );
  }
  const st = (await call('GET', `/account/migration${q}`, { key })).body;
  if (st.canMigrateFunds) {
    const chunks = st.fundsMigrationPlan.chunks.map((c: { tokens: { token: Address; amount: string }[] }) => {
      const bw = s.signBatchWithdraw({ to: st.sponsoredRelayerAddress, tokens: c.tokens });
      return { batchWithdraw: { nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature } };
    });
    const op = s.signOperatorApproval({ nonce: st.newHoldingsOperatorNonce });
    const setOperator = { nonce: op.nonce, deadline: op.deadline, signature: op.signature };
    const body = chunks.length === 1 ? { address, batchWithdraw: chunks[0].batchWithdraw, setOperator } : { address, chunks, setOperator };
    const r = await call('POST', '/account/migration/migrate-funds', { key, body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const pending = (await call('GET', `/account/migration${q}`, { key })).body.pendingRestorations as { legacyOrderId: number; draft: Record<string, any> }[];
  if (pending.length) {
    const restorations = pending.map(({ legacyOrderId, draft: d }) => ({
      legacyOrderId,
      order: s.signOrderBody(restorationBody(d, s.address)),
    }));
    const r = await call('POST', '/account/migration/restore-orders', { key, body: { address, restorations } });
    assert.equal(r.body.failedCount, 0, JSON.stringify(r.body));
  }
}

test('demo legacy accounts migrate end to end with their derived keys', async () => {
  const h = await startHarness({ apiKeys: [{ key: 'operator' }], markets: 3 });
  try {
    const { demoAccounts } = installAccounts(h.ex.state, { migration: { demoLegacyAccounts: 2, tokensPerChunk: 2 } });
    assert.equal(demoAccounts.length, 2);
    assert.deepEqual(
      installedDemoAccounts(h.ex.state).map((d) => d.account.wallet),
      demoAccounts.map((d) => d.account.wallet),
    );
    for (const demo of demoAccounts) {
      const wallet = demo.account.wallet;
      const s = createSigner({ privateKey: demo.privateKey, chain: TESTNET, now: () => Math.floor(h.clock.now() / 1000) });
      assert.equal(s.address, wallet);
      const before = (await h.call('GET', `/account/migration?address=${wallet}`, { key: 'operator' })).body;
      assert.equal(before.fundsMigrationPlan.chunkCount, 3, 'USDC + four outcome tokens at two per chunk');
      assert.equal(before.legacyOpenOrderCount, 2);
      await migrate(h.call, 'operator', s, wallet);
      const after = (await h.call('GET', `/account/migration?address=${wallet}`, { key: 'operator' })).body;
      assert.equal(after.migrationComplete, true, JSON.stringify(after));
      const open = await h.call('GET', `/orders?trader=${wallet}&status=open`, { key: 'operator' });
      assert.equal(open.body.orders.length, 2, 'both legacy orders rest again as V2 orders');
    }
    assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
  } finally {
    await h.close();
  }
});
