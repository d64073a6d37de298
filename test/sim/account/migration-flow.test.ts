/**
 * The whole migration of seeded legacy accounts over HTTP, signed by the signing module:
 * status → start → migrate-funds (many chunks; and one chunk) → restore → trading allowed; the 409
 * rule on create / bulk / cancel-replace while cancels keep working; forged and replayed signatures
 * rejected; acting for another wallet with the five-line authorization.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { addressOfPrivateKey, randomPrivateKey } from '../../support/keys.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import type { Signer } from '../../../src/exchange/signing/signer.ts';
import type { UnsignedLimitOrderBody } from '../../../src/exchange/signing/orderBody.ts';
import { installMigration } from '../../../src/sim/migration/install.ts';
import { checksumOf } from '../../../src/sim/checksum.ts';
import { migrateFundsBody, startHarness, type Harness } from './harness.ts';
import { holding, legacyOrder } from '../../support/legacy-seeds.ts';

const legacyPk = randomPrivateKey();
const LEGACY = addressOfPrivateKey(legacyPk) as Address;
const singlePk = randomPrivateKey();
const SINGLE = addressOfPrivateKey(singlePk) as Address;

let h: Harness;
let m0: Bytes32;
let m1: Bytes32;

before(async () => {
  h = await startHarness({
    apiKeys: [{ key: 'legacy-key', wallet: LEGACY }, { key: 'single-key', wallet: SINGLE }, { key: 'other-key' }],
    privateKeys: { 'legacy-key': legacyPk, 'single-key': singlePk },
  });
  [m0, m1] = [...h.ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32];
  installMigration(h.ex.state, {
    active: true,
    tokensPerChunk: 2,
    legacyAccounts: [
      {
        wallet: LEGACY,
        collateral: 50_000_000n,
        positions: [holding(m0, 1, 5_000_000n), holding(m1, 0, 3_000_000n)],
        orders: [legacyOrder(m0, 1, 0, 400_000, 10_000_000), legacyOrder(m0, 1, 1, 700_000, 2_000_000, 500_000), legacyOrder(m1, 0, 0, 300_000, 1_000_000)],
      },
      { wallet: SINGLE, collateral: 7_000_000n, orders: [legacyOrder(m1, 1, 0, 200_000, 1_000_000)] },
    ],
  });
});
after(() => h.close());

const order = (s: Signer, price = 450_000) => s.signOrder({ marketId: m0, outcomeIndex: 1, side: 0, price, size: 1_000_000 });

/** The restore body for a draft: the legacy terms re-signed as a V2 limit order. */
function restoreBody(s: Signer, draft: Record<string, any>, tamper: Partial<UnsignedLimitOrderBody> = {}) {
  const unsigned: UnsignedLimitOrderBody = {
    type: 'limit',
    marketId: draft.marketId,
    trader: draft.trader,
    price: draft.price,
    size: draft.remainingSize,
    outcomeIndex: draft.outcomeIndex,
    side: draft.side,
    nonce: draft.nonce,
    expiry: draft.expiry,
    maxFee: draft.maxFee,
    makerRoleConstraint: draft.makerRoleConstraint,
    inventoryModeConstraint: draft.inventoryModeConstraint,
    timeInForce: draft.timeInForce,
    clientOrderType: draft.clientOrderType,
    ...tamper,
  };
  return s.signOrderBody(unsigned);
}

test('status of a seeded legacy account before anything', async () => {
  const r = await h.call('GET', '/account/migration', { key: 'legacy-key' });
  assert.equal(r.status, 200);
  const s = r.body;
  assert.equal(s.migrationActive, true);
  assert.equal(s.walletAddress, LEGACY);
  assert.equal(s.legacyOpenOrderCount, 3);
  assert.equal(s.canStart, true);
  assert.equal(s.canMigrateFunds, true);
  assert.equal(s.migrationComplete, false);
  assert.equal(s.v2OperatorApproved, false);
  assert.equal(s.newHoldingsOperatorNonce, '0');
  assert.equal(s.legacyBalances.length, 3);
  assert.equal(s.fundsMigrationPlan.chunkCount, 2);
  assert.deepEqual(
    s.fundsMigrationPlan.chunks.map((c: { tokens: unknown[] }) => c.tokens.length),
    [2, 1],
  );
  assert.equal(s.sponsoredRelayerAddress, h.ex.state.ext.migration && (h.ex.state.ext.migration as { relayer: string }).relayer);
  assert.equal(s.holdings.legacy, h.ex.state.chain.holdingsLegacy);
  const other = await h.call('GET', '/account/migration', { key: 'other-key' });
  assert.equal(other.body.migrationComplete, true, 'a wallet without legacy state has nothing to do');
  assert.equal(other.body.canStart, false);
});

test('while blocked: create, bulk create, mixed bulk and cancel-replace are 409; cancel works', async () => {
  const s = h.signerOf('legacy-key');
  // an order placed while the migration switch was off, so there is something to cancel
  installMigration(h.ex.state, { active: false });
  const resting = order(s, 300_000);
  assert.equal((await h.call('POST', '/orders', { key: 'legacy-key', body: resting })).status, 201);
  installMigration(h.ex.state, { active: true });

  const create = await h.call('POST', '/orders', { key: 'legacy-key', body: order(s) });
  assert.equal(create.status, 409);
  assert.equal(create.body.code, 'MIGRATION_REQUIRED');
  assert.equal((await h.call('POST', '/orders/bulk/create', { key: 'legacy-key', body: { orders: [order(s)] } })).status, 409);
  const mixed = await h.call('POST', '/orders/bulk', {
    key: 'legacy-key',
    body: {
      operations: [
        { type: 'create', order: order(s) },
        { type: 'cancel', cancel: s.signCancel(resting.nonce) },
      ],
    },
  });
  assert.equal(mixed.status, 409);
  const cr = await h.call('POST', '/orders/cancel-replace', { key: 'legacy-key', body: { cancel: s.signCancel(resting.nonce), create: order(s) } });
  assert.equal(cr.status, 409);
  // cancels are not blocked; this one finds the order over: a legacy wallet has no Settlement V2
  // operator approval before its funds migration, so the venue voided its order on arrival
  const cancel = await h.call('POST', '/orders/cancel', { key: 'legacy-key', body: s.signCancel(resting.nonce) });
  assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  assert.equal(cancel.body.alreadyCancelled, true);
  // another wallet trades freely
  assert.equal((await h.call('POST', '/orders', { key: 'other-key', body: order(h.signerOf('other-key')) })).status, 201);
});

test('start retires the legacy orders into restoration drafts', async () => {
  const r = await h.call('POST', '/account/migration/start', { key: 'legacy-key', body: {} });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true);
  assert.equal(r.body.retiredCount, 3);
  assert.equal(r.body.restorableCount, 3);
  assert.equal(r.body.legacyOpenOrderCount, 0);
  assert.equal(r.body.pendingRestorations.length, 3);
  const draft = r.body.pendingRestorations[1].draft;
  assert.equal(draft.remainingSize, '1500000');
  assert.equal(draft.reason, 'ready_for_resign');
  const again = await h.call('POST', '/account/migration/start', { key: 'legacy-key' });
  assert.equal(again.body.retiredCount, 0, 'start is idempotent');
  const status = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body;
  assert.equal(status.voidedLegacyOrderCount, 3);
  assert.equal(status.canRestoreOrders, true);
  assert.equal(status.pendingRestorations[0].market.outcomeNames.length, 2);
});

test('migrate-funds rejects forged, mismatched and stale signatures, then moves every chunk', async () => {
  const s = h.signerOf('legacy-key');
  const forger = h.signerOf('other-key');
  const st = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body;
  const relayer = st.sponsoredRelayerAddress as Address;
  const chunks = st.fundsMigrationPlan.chunks as { tokens: { token: Address; amount: string }[] }[];
  const sign = (signer: Signer, tokens: { token: Address; amount: string }[]) => {
    const { nonce, deadline, signature } = signer.signBatchWithdraw({ to: relayer, tokens });
    return { nonce, deadline, signature };
  };
  const setOperator = (() => {
    const o = s.signOperatorApproval({ nonce: st.newHoldingsOperatorNonce });
    return { nonce: o.nonce, deadline: o.deadline, signature: o.signature };
  })();
  const good = { chunks: chunks.map((c) => ({ batchWithdraw: sign(s, c.tokens) })), setOperator };

  const forged = await h.call('POST', '/account/migration/migrate-funds', {
    key: 'legacy-key',
    body: { ...good, chunks: [good.chunks[0], { batchWithdraw: sign(forger, chunks[1]!.tokens) }] },
  });
  assert.equal(forged.status, 400);
  assert.equal(forged.body.code, 'INVALID_SIGNATURE');
  assert.equal(forged.body.field, 'chunks[1].batchWithdraw.signature');
  const swapped = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body: { ...good, chunks: [good.chunks[1], good.chunks[0]] } });
  assert.equal(swapped.body.code, 'INVALID_SIGNATURE', 'each signature commits to its own chunk');
  const one = await h.call('POST', '/account/migration/migrate-funds', {
    key: 'legacy-key',
    body: { batchWithdraw: good.chunks[0]!.batchWithdraw, setOperator },
  });
  assert.equal(one.status, 400, 'a two-chunk plan needs two signatures');
  const badOp = s.signOperatorApproval({ nonce: '7' });
  const wrongNonce = await h.call('POST', '/account/migration/migrate-funds', {
    key: 'legacy-key',
    body: { ...good, setOperator: { nonce: badOp.nonce, deadline: badOp.deadline, signature: badOp.signature } },
  });
  assert.equal(wrongNonce.body.field, 'setOperator.nonce');
  const forgedOp = forger.signOperatorApproval({ nonce: '0' });
  const opForged = await h.call('POST', '/account/migration/migrate-funds', {
    key: 'legacy-key',
    body: { ...good, setOperator: { nonce: '0', deadline: forgedOp.deadline, signature: forgedOp.signature } },
  });
  assert.equal(opForged.body.code, 'INVALID_SIGNATURE');
  const stale = s.signBatchWithdraw({ to: relayer, tokens: chunks[0]!.tokens, deadline: Math.floor(h.clock.now() / 1000) - 1 });
  const expired = await h.call('POST', '/account/migration/migrate-funds', {
    key: 'legacy-key',
    body: { ...good, chunks: [{ batchWithdraw: { nonce: stale.nonce, deadline: stale.deadline, signature: stale.signature } }, good.chunks[1]] },
  });
  assert.equal(expired.status, 400);
  assert.equal(expired.body.field, 'chunks[0].batchWithdraw.deadline');
  assert.equal((await h.call('GET', '/account/migration', { key: 'legacy-key' })).body.legacyBalances.length, 3, 'nothing moved by refused calls');

  const ok = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body: good });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.success, true);
  assert.equal(ok.body.executions.length, 2);
  assert.deepEqual(ok.body.legacyBalances, []);
  assert.equal(ok.body.v2OperatorApproved, true);
  const yes = ok.body.newBalances.find((b: { token: string }) => b.token === checksumOf(h.ex.state.stores.markets.get(m0.toLowerCase())!.outcomeTokens[1]));
  assert.equal(yes.balance, '5000000', 'the legacy YES position is in the V2 ledger');
  const replay = await h.call('POST', '/account/migration/migrate-funds', { key: 'legacy-key', body: good });
  assert.equal(replay.status, 409, 'nothing left to migrate, and the signatures are spent');
  const st2 = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body;
  assert.equal(st2.newHoldingsOperatorNonce, '1');
  assert.equal(st2.sponsoredFundsMigrationStatus.status, 'completed');
  assert.equal(st2.fundsMigrationPlan.phase, 'completed');
  assert.equal(st2.canMigrateFunds, false);
  assert.equal(h.ex.state.engine.engine.checkInvariants().length, 0, 'ledger conservation holds after the credits');
  // restorations still pending: still blocked
  assert.equal((await h.call('POST', '/orders', { key: 'legacy-key', body: order(s) })).status, 409);
});

test('restore-orders verifies each re-signed order and reuses the legacy terms', async () => {
  const s = h.signerOf('legacy-key');
  const drafts = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body.pendingRestorations as {
    legacyOrderId: number;
    draft: Record<string, any>;
  }[];
  const [a, b, c] = drafts as [(typeof drafts)[0], (typeof drafts)[0], (typeof drafts)[0]];
  const forgedBody = { ...restoreBody(s, a.draft), signature: restoreBody(h.signerOf('other-key'), { ...a.draft, trader: h.walletOf('other-key') }).signature };
  const r = await h.call('POST', '/account/migration/restore-orders', {
    key: 'legacy-key',
    body: {
      restorations: [
        { legacyOrderId: a.legacyOrderId, order: forgedBody },
        { legacyOrderId: b.legacyOrderId, order: restoreBody(s, b.draft, { expiry: String(Number(b.draft.expiry) + 60) }) },
        { legacyOrderId: c.legacyOrderId, order: restoreBody(s, c.draft) },
        { legacyOrderId: 999_999, order: restoreBody(s, c.draft) },
      ],
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.restoredCount, 1);
  assert.equal(r.body.failedCount, 3);
  assert.equal(r.body.results[0].success, false);
  assert.match(r.body.results[0].error, /signature|signer/);
  assert.match(r.body.results[1].error, /expiry/);
  assert.equal(r.body.results[2].success, true);
  assert.equal(r.body.results[3].success, false);
  const restored = await h.call('GET', `/orders/${r.body.results[2].restoredOrderHash}`, { key: 'legacy-key' });
  assert.equal(restored.status, 200);
  assert.equal(restored.body.nonce, c.draft.nonce, 'the legacy nonce is reused');
  assert.equal(restored.body.expiry, c.draft.expiry);
  assert.equal(restored.body.status, 'open');
  assert.equal(restored.body.settlementVersion, 2);

  // each item is whole: a retry of the restored one is refused per item and places nothing twice
  const ordersBefore = h.ex.state.stores.orders.length;
  const again = await h.call('POST', '/account/migration/restore-orders', {
    key: 'legacy-key',
    body: { restorations: [{ legacyOrderId: c.legacyOrderId, order: restoreBody(s, c.draft) }] },
  });
  assert.equal(again.body.restoredCount, 0);
  assert.match(again.body.results[0].error, /already restored/);
  assert.equal(h.ex.state.stores.orders.length, ordersBefore);

  const st = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body;
  assert.equal(st.pendingRestorations.length, 2);
  assert.equal(st.pendingRestorations.filter((p: { status: string }) => p.status === 'failed').length, 2);
  assert.equal((await h.call('POST', '/orders', { key: 'legacy-key', body: order(s) })).status, 409, 'failed restorations still block');

  const retry = await h.call('POST', '/account/migration/restore-orders', {
    key: 'legacy-key',
    body: { restorations: [a, b].map((x) => ({ legacyOrderId: x.legacyOrderId, order: restoreBody(s, x.draft) })) },
  });
  assert.equal(retry.body.restoredCount, 2, JSON.stringify(retry.body));
  const empty = await h.call('POST', '/account/migration/restore-orders', { key: 'legacy-key', body: { restorations: [] } });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.field, 'restorations');
});

test('once migrated, trading is allowed', async () => {
  const st = (await h.call('GET', '/account/migration', { key: 'legacy-key' })).body;
  assert.equal(st.migrationComplete, true);
  assert.equal(st.canRestoreOrders, false);
  const placed = await h.call('POST', '/orders', { key: 'legacy-key', body: order(h.signerOf('legacy-key')) });
  assert.equal(placed.status, 201, JSON.stringify(placed.body));
});

test('one chunk, acting for another wallet with the migration authorization, and dismiss', async () => {
  const owner = h.signerOf('single-key');
  // the other key acts for SINGLE: without authorization 403, with a forged one 400
  const noAuth = await h.call('POST', '/account/migration/start', { key: 'other-key', body: { address: SINGLE } });
  assert.equal(noAuth.status, 403);
  const forged = h.signerOf('other-key').signMigrationAuthorization({ action: 'start' });
  const bad = await h.call('POST', '/account/migration/start', {
    key: 'other-key',
    body: { address: SINGLE, authorization: { deadline: forged.deadline, signature: forged.signature } },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.field, 'authorization.signature');
  const wrongAction = owner.signMigrationAuthorization({ action: 'dismiss-orders' });
  assert.equal(
    (
      await h.call('POST', '/account/migration/start', {
        key: 'other-key',
        body: { address: SINGLE, authorization: { deadline: wrongAction.deadline, signature: wrongAction.signature } },
      })
    ).status,
    400,
  );
  const auth = owner.signMigrationAuthorization({ action: 'start' });
  const started = await h.call('POST', '/account/migration/start', {
    key: 'other-key',
    body: { address: SINGLE, authorization: { deadline: auth.deadline, signature: auth.signature } },
  });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.equal(started.body.retiredCount, 1);

  const st = (await h.call('GET', `/account/migration?address=${SINGLE}`, { key: 'other-key' })).body;
  assert.equal(st.fundsMigrationPlan.chunkCount, 1);
  const moved = await h.call('POST', '/account/migration/migrate-funds', { key: 'single-key', body: migrateFundsBody(owner, st) });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  assert.equal(moved.body.executions.length, 1);

  const ids = [st.pendingRestorations[0].legacyOrderId as number];
  const dAuth = owner.signMigrationAuthorization({ action: 'dismiss-orders', legacyOrderIds: ids });
  const dismissed = await h.call('POST', '/account/migration/dismiss-orders', {
    key: 'other-key',
    body: { address: SINGLE, legacyOrderIds: ids, authorization: { deadline: dAuth.deadline, signature: dAuth.signature } },
  });
  assert.equal(dismissed.status, 200, JSON.stringify(dismissed.body));
  assert.equal(dismissed.body.dismissedCount, 1);
  const done = (await h.call('GET', `/account/migration?address=${SINGLE}`, { key: 'single-key' })).body;
  assert.equal(done.migrationComplete, true);
  assert.equal((await h.call('POST', '/orders', { key: 'single-key', body: order(owner) })).status, 201);
});

test('malformed migration bodies are 400s naming the field', async () => {
  const cases: [string, unknown, string][] = [
    ['/account/migration/migrate-funds', { setOperator: {} }, 'batchWithdraw'],
    ['/account/migration/migrate-funds', { chunks: 'x', setOperator: {} }, 'chunks'],
    ['/account/migration/restore-orders', { restorations: [{ legacyOrderId: 0, order: {} }] }, 'restorations[0].legacyOrderId'],
    ['/account/migration/dismiss-orders', { legacyOrderIds: ['a'] }, 'legacyOrderIds[0]'],
    ['/account/migration/start', { address: 'nope' }, 'address'],
  ];
  for (const [path, body, field] of cases) {
    const r = await h.call('POST', path, { key: 'other-key', body });
    assert.equal(r.status === 400 || r.status === 409, true, `${path} ${JSON.stringify(body)} → ${r.status}`);
    if (r.status === 400) assert.equal(r.body.field, field, path);
  }
  assert.equal((await h.call('GET', '/account/migration?address=0x12', { key: 'other-key' })).body.field, 'address');
  assert.equal((await h.call('GET', '/account/migration')).status, 401);
});
