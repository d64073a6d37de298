/**
 * OpenAPI conformance of the local exchange: every path of the venue's openapi.json (BOOKMAKER_OPENAPI or
 * ../shared/openapi.json; without either every test here is skipped, naming why) is called over real
 * HTTP (orders signed by the signing module), in success and error cases, and every answer is
 * validated with ajv against the schema the spec documents for its status. Endpoints the spec omits
 * (quotes, oracle quotes, deposit-with-permit) are checked against docs/venue.md's shapes. The last
 * test proves coverage: each spec operation answered at least one 2xx and one error.
 */
import { test as nodeTest, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { addressOfPrivateKey, randomPrivateKey } from '../../support/keys.ts';
import type { Address, Bytes32, LimitOrderBody } from '../../../src/model/order.ts';
import { restorationBody } from '../../../src/migration/restoration-body.ts';
import { installMigration } from '../../../src/sim/migration/install.ts';
import { startHarness, type Harness } from '../account/harness.ts';
import { creditWalletUsdc } from '../../../src/sim/routes/account/wallet-usdc.ts';
import { ConformanceRecorder } from './conformance-recorder.ts';
import { findSpec } from './openapi-schemas.ts';
import { DEPOSIT_WITH_PERMIT, MARKET_QUOTES, ORACLE_QUOTE_LATEST, ORACLE_QUOTE_LIST, ORACLE_QUOTE_REQUESTED } from './extra-schemas.ts';
import { holding, legacyOrder } from '../../support/legacy-seeds.ts';
import { mustAddress } from '../../../src/sim/wire-ids.ts';

const legacyPk = randomPrivateKey();
const LEGACY = addressOfPrivateKey(legacyPk) as Address;
const singlePk = randomPrivateKey();
const SINGLE = addressOfPrivateKey(singlePk) as Address;
const UNKNOWN_MARKET = ('0x' + 'ee'.repeat(32)) as Bytes32;
const NOBODY = '0x000000000000000000000000000000000000dEaD';

// Without the spec, every test of this file is reported as skipped with the reason (nothing to validate against).
const SPEC = findSpec();
const test = (SPEC.path === null ? (name: string) => nodeTest(name, { skip: SPEC.reason }) : nodeTest) as typeof nodeTest;

let h: Harness;
let rec: ConformanceRecorder;
let m0: Bytes32;
let m1: Bytes32;

before(async () => {
  if (SPEC.path === null) return;
  rec = new ConformanceRecorder();
  h = await startHarness({
    apiKeys: [
      { key: 'alice' },
      { key: 'bob' },
      { key: 'creator', perms: ['read', 'trade', 'can_create_markets'] },
      { key: 'reader', perms: ['read'] },
      { key: 'minter' },
      { key: 'legacy', wallet: LEGACY },
      { key: 'single', wallet: SINGLE },
    ],
    privateKeys: { legacy: legacyPk, single: singlePk },
    accounts: { mintsPerHour: 2, marketsPerDay: 1, submissionProcessingAfterMs: 1_000, submissionCompletedAfterMs: 2_000 },
    markets: 3,
  });
  [m0, m1] = [...h.ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32];
  installMigration(h.ex.state, {
    active: true,
    tokensPerChunk: 2,
    legacyAccounts: [
      {
        wallet: LEGACY,
        collateral: 20_000_000n,
        positions: [holding(m0, 1, 2_000_000n), holding(m1, 0, 1_000_000n)],
        orders: [legacyOrder(m0, 1, 0, 300_000, 2_000_000)],
      },
      { wallet: SINGLE, collateral: 5_000_000n },
    ],
  });
});
after(() => h?.close());

const order = (key: string, o: Partial<{ marketId: Bytes32; outcomeIndex: 0 | 1; side: 0 | 1; price: number; size: number }> = {}): LimitOrderBody =>
  h.signerOf(key).signOrder({ marketId: m0, outcomeIndex: 1, side: 0, price: 400_000, size: 2_000_000, ...o });

test('markets: list, search, get, activity, oracle, order book, prices, simulate', async () => {
  const { call } = h;
  rec.check('GET /markets', await call('GET', '/markets?limit=2'), 200);
  rec.check('GET /markets', await call('GET', '/markets?limit=abc'), 400);
  rec.check('GET /markets/search', await call('GET', '/markets/search?q=gas&limit=5'), 200);
  rec.check('GET /markets/search', await call('GET', '/markets/search?q=gas&limit=-1'), 400);
  rec.check('GET /markets/{id}', await call('GET', `/markets/${m0}`), 200);
  rec.check('GET /markets/{id}', await call('GET', `/markets/${UNKNOWN_MARKET}`), 404);
  rec.check('GET /activity', await call('GET', '/activity?limit=5'), 200);
  rec.check('GET /activity', await call('GET', '/activity?cursor=@@'), 400);
  rec.check('GET /markets/{id}/activity', await call('GET', `/markets/${m0}/activity`), 200);
  rec.check('GET /markets/{id}/activity', await call('GET', `/markets/${UNKNOWN_MARKET}/activity`), 404);
  rec.check('GET /markets/{id}/oracle', await call('GET', `/markets/${m0}/oracle`), 200);
  rec.check('GET /markets/{id}/oracle', await call('GET', `/markets/${UNKNOWN_MARKET}/oracle`), 404);
  rec.check('GET /markets/{id}/orderbook', await call('GET', `/markets/${m0}/orderbook?depth=5&outcomeIndex=1`), 200);
  rec.check('GET /markets/{id}/orderbook', await call('GET', `/markets/${m0}/orderbook?depth=0`), 400);
  rec.check('GET /markets/{id}/orderbook', await call('GET', `/markets/${UNKNOWN_MARKET}/orderbook`), 404);
  rec.check('GET /markets/{id}/prices', await call('GET', `/markets/${m0}/prices?timeframe=1d`), 200);
  rec.check('GET /markets/{id}/prices', await call('GET', `/markets/${m0}/prices?timeframe=1y`), 400);
  rec.check('POST /markets/{id}/simulate', await call('POST', `/markets/${m0}/simulate`, { body: { side: 'yes', amount: 10, amountType: 'usd' } }), 200);
  rec.check('POST /markets/{id}/simulate', await call('POST', `/markets/${m0}/simulate`, { body: { side: 'maybe', amount: 10, amountType: 'usd' } }), 400);
});

test('not in the spec: quotes and oracle quotes (docs/venue.md shapes)', async () => {
  const { call } = h;
  rec.check('GET /markets/{id}/quotes', await call('GET', `/markets/${m0}/quotes`), 200, { extraSchema: MARKET_QUOTES });
  rec.check('GET /markets/{id}/quotes', await call('GET', `/markets/${UNKNOWN_MARKET}/quotes`), 404);
  rec.check('POST /markets/{id}/oracle/quotes', await call('POST', `/markets/${m0}/oracle/quotes`, { body: {} }), 202, { extraSchema: ORACLE_QUOTE_REQUESTED });
  rec.check('POST /markets/{id}/oracle/quotes', await call('POST', `/markets/${m0}/oracle/quotes`, { body: {} }), 429);
  rec.check('GET /markets/{id}/oracle/quotes', await call('GET', `/markets/${m0}/oracle/quotes`), 200, { extraSchema: ORACLE_QUOTE_LIST });
  rec.check('GET /markets/{id}/oracle/quotes/latest', await call('GET', `/markets/${m0}/oracle/quotes/latest`), 200, { extraSchema: ORACLE_QUOTE_LATEST });
  rec.check('GET /markets/{id}/oracle/quotes/latest', await call('GET', `/markets/${UNKNOWN_MARKET}/oracle/quotes/latest`), 404);
});

test('orders: create, list, recent, get, cancel, cancel-replace, bulk, simulate — success and errors', async () => {
  const { call } = h;
  const resting = order('alice');
  rec.check('POST /orders', await call('POST', '/orders', { key: 'alice', body: resting }), 201);
  rec.check('POST /orders', await call('POST', '/orders', { key: 'alice', body: resting }), 409);
  rec.check('POST /orders', await call('POST', '/orders', { key: 'alice', body: { ...order('alice'), signature: order('bob').signature } }), 400);
  rec.check('POST /orders', await call('POST', '/orders', { body: order('alice') }), 401);
  rec.check('POST /orders', await call('POST', '/orders', { key: 'reader', body: order('alice') }), 403);
  rec.check('POST /orders', await call('POST', '/orders', { key: 'alice', body: order('alice', { marketId: UNKNOWN_MARKET }) }), 404);
  // bob takes part of alice's bid so there are fills, positions and an average fill price
  rec.check('POST /orders', await call('POST', '/orders', { key: 'bob', body: order('bob', { outcomeIndex: 0, price: 600_000, size: 1_000_000 }) }), 201);

  const list = await call('GET', `/orders?trader=${h.walletOf('alice')}&limit=1`, { key: 'alice' });
  rec.check('GET /orders', list, 200);
  rec.check('GET /orders', await call('GET', '/orders?status=sleeping', { key: 'alice' }), 400);
  rec.check('GET /orders', await call('GET', '/orders'), 401);
  rec.check('GET /orders/recent', await call('GET', '/orders/recent?windowSeconds=600', { key: 'alice' }), 200);
  rec.check('GET /orders/recent', await call('GET', '/orders/recent?windowSeconds=0', { key: 'alice' }), 400);
  const placed = list.body.orders[0];
  rec.check('GET /orders/{id}', await call('GET', `/orders/${placed.id}`, { key: 'alice' }), 200);
  rec.check('GET /orders/{id}', await call('GET', `/orders/${placed.hash}`, { key: 'alice' }), 200);
  rec.check('GET /orders/{id}', await call('GET', '/orders/999999', { key: 'alice' }), 404);
  rec.check('GET /orders/{id}', await call('GET', '/orders/not-an-id', { key: 'alice' }), 400);

  const a = h.signerOf('alice');
  rec.check('POST /orders/cancel', await call('POST', '/orders/cancel', { key: 'alice', body: a.signCancel(resting.nonce) }), 201);
  rec.check('POST /orders/cancel', await call('POST', '/orders/cancel', { key: 'alice', body: a.signCancel(resting.nonce) }), 200);
  rec.check(
    'POST /orders/cancel',
    await call('POST', '/orders/cancel', {
      key: 'alice',
      body: { ...a.signCancel(resting.nonce), signature: h.signerOf('bob').signCancel(resting.nonce).signature },
    }),
    400,
  );

  const r1 = order('alice', { price: 350_000 });
  rec.check('POST /orders', await call('POST', '/orders', { key: 'alice', body: r1 }), 201);
  rec.check(
    'POST /orders/cancel-replace',
    await call('POST', '/orders/cancel-replace', { key: 'alice', body: { cancel: a.signCancel(r1.nonce), create: order('alice', { price: 360_000 }) } }),
    201,
  );
  rec.check('POST /orders/cancel-replace', await call('POST', '/orders/cancel-replace', { key: 'alice', body: { cancel: {}, create: {} } }), 400);

  const b1 = order('alice', { price: 200_000 });
  const b2 = order('alice', { price: 210_000 });
  rec.check('POST /orders/bulk/create', await call('POST', '/orders/bulk/create', { key: 'alice', body: { orders: [b1, b2] } }), 201);
  rec.check('POST /orders/bulk/create', await call('POST', '/orders/bulk/create', { key: 'alice', body: { orders: 'all' } }), 400);
  rec.check(
    'POST /orders/bulk',
    await call('POST', '/orders/bulk', {
      key: 'alice',
      body: {
        operations: [
          { type: 'cancel', cancel: a.signCancel(b1.nonce) },
          { type: 'create', order: order('alice', { price: 220_000 }) },
        ],
      },
    }),
    201,
  );
  rec.check('POST /orders/bulk', await call('POST', '/orders/bulk', { key: 'alice', body: { operations: [{ type: 'explode' }] } }), 400);
  rec.check('POST /orders/bulk/cancel', await call('POST', '/orders/bulk/cancel', { key: 'alice', body: { cancels: [a.signCancel(b2.nonce)] } }), 200);
  rec.check('POST /orders/bulk/cancel', await call('POST', '/orders/bulk/cancel', { key: 'alice', body: { cancels: [{ trader: 'x' }] } }), 400);
  const sim = { marketId: m0, trader: h.walletOf('bob'), maxSize: '1000000', maxPrice: '900000', outcomeIndex: 1, side: 'bid' };
  rec.check('POST /orders/simulate', await call('POST', '/orders/simulate', { key: 'bob', body: sim }), 200);
  rec.check('POST /orders/simulate', await call('POST', '/orders/simulate', { key: 'bob', body: { ...sim, side: 'up' } }), 400);
});

test('portfolio and balance', async () => {
  const { call } = h;
  const bob = h.walletOf('bob');
  for (const suffix of ['', '/positions', '/claimable', '/stats']) {
    const op = `GET /portfolio/{address}${suffix}`;
    rec.check(op, await call('GET', `/portfolio/${bob}${suffix}`, { key: 'bob' }), 200);
    rec.check(op, await call('GET', `/portfolio/not-an-address${suffix}`, { key: 'bob' }), 400);
    rec.check(op, await call('GET', `/portfolio/${bob}${suffix}`), 401);
  }
  const pf = await call('GET', `/portfolio/${bob}`, { key: 'bob' });
  assert.ok(pf.body.portfolio.length >= 1, 'bob holds a position, so the item schema is exercised');
  rec.check('GET /balance/{address}', await call('GET', `/balance/${bob}`, { key: 'bob' }), 200);
  rec.check('GET /balance/{address}', await call('GET', '/balance/0x12', { key: 'bob' }), 400);
  const usdc = h.ex.state.chain.usdc;
  rec.check('GET /balance', await call('GET', `/balance?address=${bob}&tokenAddress=${usdc}`, { key: 'bob' }), 200);
  rec.check('GET /balance', await call('GET', `/balance?address=${bob}&tokenAddress=${NOBODY}`, { key: 'bob' }), 404);
  rec.check('GET /balance', await call('GET', `/balance?address=${bob}`, { key: 'bob' }), 400);
  const yesToken = h.ex.state.stores.markets.get(m0.toLowerCase())!.outcomeTokens[1];
  rec.check('GET /balance/settlement', await call('GET', `/balance/settlement?address=${bob}&tokenAddress=${yesToken}`, { key: 'bob' }), 200);
  rec.check('GET /balance/settlement', await call('GET', `/balance/settlement?address=${bob}&tokenAddress=${NOBODY}`, { key: 'bob' }), 404);
  const minter = h.walletOf('minter');
  rec.check('POST /balance/mint-test-usdc', await call('POST', '/balance/mint-test-usdc', { key: 'minter', body: { address: minter, amount: '10' } }), 200);
  rec.check(
    'POST /balance/mint-test-usdc',
    await call('POST', '/balance/mint-test-usdc', { key: 'minter', body: { address: minter, amount: '0.0000001' } }),
    400,
  );
  rec.check('POST /balance/mint-test-usdc', await call('POST', '/balance/mint-test-usdc', { key: 'minter', body: { address: minter, amount: '10' } }), 200);
  rec.check('POST /balance/mint-test-usdc', await call('POST', '/balance/mint-test-usdc', { key: 'minter', body: { address: minter, amount: '10' } }), 429);
});

test('gasless operator and (not in the spec) deposit-with-permit', async () => {
  const { call } = h;
  const s = h.signerOf('bob');
  const approval = s.signOperatorApproval({ nonce: 0 });
  rec.check('POST /gasless/operator', await call('POST', '/gasless/operator', { key: 'bob', body: approval }), 200);
  rec.check('POST /gasless/operator', await call('POST', '/gasless/operator', { key: 'bob', body: approval }), 400);
  rec.check('POST /gasless/operator', await call('POST', '/gasless/operator', { body: approval }), 401);
  // a deposit moves the wallet's own USDC into Holdings: bob's wallet holds some outside them first
  creditWalletUsdc(h.ex.state, mustAddress(s.address, 'wallet'), 1_000_000n);
  rec.check(
    'POST /gasless/deposit-with-permit',
    await call('POST', '/gasless/deposit-with-permit', { key: 'bob', body: s.signPermit2({ amount: 1_000_000n }) }),
    200,
    { extraSchema: DEPOSIT_WITH_PERMIT },
  );
  rec.check('POST /gasless/deposit-with-permit', await call('POST', '/gasless/deposit-with-permit', { key: 'bob', body: { user: s.address } }), 400);
});

test('questions, submissions and market creation', async () => {
  const { call } = h;
  const q = await call('POST', '/questions', { key: 'creator', body: { question: 'Will the river freeze over by February?' } });
  rec.check('POST /questions', q, 200);
  rec.check('POST /questions', await call('POST', '/questions', { key: 'creator', body: { question: '' } }), 400);
  rec.check('POST /questions', await call('POST', '/questions', { key: 'alice', body: { question: 'Why?' } }), 403);
  const draft = {
    formattedQuestion: 'Will the night market open on schedule?',
    shortQuestion: 'Night market on time?',
    marketType: 'OBJECTIVE',
    evidenceMode: 'web_enabled',
    resolutionCriteria: 'Per the city listing.',
    endTime: '2027-03-01 18:00:00',
  };
  const agent = await call('POST', '/questions/agent-submit', { key: 'creator', body: { market: draft } });
  rec.check('POST /questions/agent-submit', agent, 200);
  rec.check(
    'POST /questions/agent-submit',
    await call('POST', '/questions/agent-submit', { key: 'creator', body: { market: { ...draft, evidenceMode: 'rumours' } } }),
    400,
  );
  const sub = `/questions/submissions/${q.body.submissionId}`;
  rec.check('GET /questions/submissions/{id}', await call('GET', sub, { key: 'creator' }), 200);
  h.clock.advance(5_000);
  const done = await call('GET', sub, { key: 'creator' });
  rec.check('GET /questions/submissions/{id}', done, 200);
  assert.equal(done.body.questions.length, 1, 'the completed schema with questions is exercised');
  rec.check('GET /questions/submissions/{id}', await call('GET', '/questions/submissions/sub_missing', { key: 'creator' }), 404);
  const vague = await call('POST', '/questions', { key: 'creator', body: { question: 'Rain?' } });
  h.clock.advance(5_000);
  const failed = await call('GET', `/questions/submissions/${vague.body.submissionId}`, { key: 'creator' });
  rec.check('GET /questions/submissions/{id}', failed, 200);
  assert.equal(failed.body.status, 'failed', 'the failed shape (rejectionReasons) is exercised');
  rec.check('POST /markets/create', await call('POST', '/markets/create', { key: 'creator', body: { questionId: done.body.questions[0].id } }), 200);
  rec.check('POST /markets/create', await call('POST', '/markets/create', { key: 'creator', body: { questionId: 'q1' } }), 400);
  rec.check('POST /markets/create', await call('POST', '/markets/create', { key: 'creator', body: { questionId: UNKNOWN_MARKET } }), 404);
  rec.check('POST /markets/create', await call('POST', '/markets/create', { key: 'alice', body: { questionId: UNKNOWN_MARKET } }), 403);
  rec.check('POST /markets/create', await call('POST', '/markets/create', { body: { questionId: UNKNOWN_MARKET } }), 401);
  const second = (await call('GET', `/questions/submissions/${agent.body.submissionId}`, { key: 'creator' })).body.questions[0].id;
  rec.check('POST /markets/create', await call('POST', '/markets/create', { key: 'creator', body: { questionId: second } }), 429);
});

test('migration: status, start, migrate-funds (many chunks and one), restore, dismiss', async () => {
  const { call } = h;
  const s = h.signerOf('legacy');
  const st = await call('GET', '/account/migration', { key: 'legacy' });
  rec.check('GET /account/migration', st, 200);
  rec.check('GET /account/migration', await call('GET', '/account/migration?address=0xzz', { key: 'legacy' }), 400);
  rec.check('GET /account/migration', await call('GET', '/account/migration'), 401);
  // the 409 trading rule, which docs/venue.md documents beyond the spec's list for bulk routes
  rec.check('POST /orders', await call('POST', '/orders', { key: 'legacy', body: order('legacy') }), 409);
  rec.check('POST /orders/bulk/create', await call('POST', '/orders/bulk/create', { key: 'legacy', body: { orders: [order('legacy')] } }), 409, {
    undocumented: '409 MIGRATION_REQUIRED during migration (docs/venue.md#migration-to-settlement-v2; the spec lists 409 only on POST /orders)',
  });

  rec.check('POST /account/migration/start', await call('POST', '/account/migration/start', { key: 'alice', body: { address: LEGACY } }), 403);
  rec.check('POST /account/migration/start', await call('POST', '/account/migration/start', { key: 'legacy', body: { address: 'x' } }), 400);
  const started = await call('POST', '/account/migration/start', { key: 'legacy', body: {} });
  rec.check('POST /account/migration/start', started, 200);
  assert.equal(started.body.pendingRestorations.length, 1);

  const plan = st.body.fundsMigrationPlan;
  const relayer = st.body.sponsoredRelayerAddress as Address;
  const op = s.signOperatorApproval({ nonce: st.body.newHoldingsOperatorNonce });
  const setOperator = { nonce: op.nonce, deadline: op.deadline, signature: op.signature };
  const chunks = plan.chunks.map((c: { tokens: { token: Address; amount: string }[] }) => {
    const bw = s.signBatchWithdraw({ to: relayer, tokens: c.tokens });
    return { batchWithdraw: { nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature } };
  });
  rec.check(
    'POST /account/migration/migrate-funds',
    await call('POST', '/account/migration/migrate-funds', { key: 'legacy', body: { chunks: chunks.slice().reverse(), setOperator } }),
    400,
  );
  rec.check(
    'POST /account/migration/migrate-funds',
    await call('POST', '/account/migration/migrate-funds', { key: 'legacy', body: { chunks, setOperator } }),
    200,
  );
  rec.check(
    'POST /account/migration/migrate-funds',
    await call('POST', '/account/migration/migrate-funds', { key: 'legacy', body: { chunks, setOperator } }),
    409,
  );

  // the single-chunk body form
  const one = h.signerOf('single');
  const st1 = (await call('GET', '/account/migration', { key: 'single' })).body;
  const bw = one.signBatchWithdraw({ to: relayer, tokens: st1.fundsMigrationPlan.chunks[0].tokens });
  const op1 = one.signOperatorApproval({ nonce: st1.newHoldingsOperatorNonce });
  rec.check(
    'POST /account/migration/migrate-funds',
    await call('POST', '/account/migration/migrate-funds', {
      key: 'single',
      body: {
        batchWithdraw: { nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature },
        setOperator: { nonce: op1.nonce, deadline: op1.deadline, signature: op1.signature },
      },
    }),
    200,
  );

  const d = started.body.pendingRestorations[0].draft;
  const restoreOrder = s.signOrderBody(restorationBody(d, s.address));
  const legacyOrderId = started.body.pendingRestorations[0].legacyOrderId;
  rec.check(
    'POST /account/migration/restore-orders',
    await call('POST', '/account/migration/restore-orders', { key: 'legacy', body: { restorations: [] } }),
    400,
  );
  const restored = await call('POST', '/account/migration/restore-orders', { key: 'legacy', body: { restorations: [{ legacyOrderId, order: restoreOrder }] } });
  rec.check('POST /account/migration/restore-orders', restored, 200);
  assert.equal(restored.body.restoredCount, 1, JSON.stringify(restored.body));
  rec.check('POST /account/migration/dismiss-orders', await call('POST', '/account/migration/dismiss-orders', { key: 'legacy', body: {} }), 200);
  rec.check(
    'POST /account/migration/dismiss-orders',
    await call('POST', '/account/migration/dismiss-orders', { key: 'legacy', body: { legacyOrderIds: [-1] } }),
    400,
  );
  const final = await call('GET', '/account/migration', { key: 'legacy' });
  rec.check('GET /account/migration', final, 200);
  assert.equal(final.body.migrationComplete, true);
  rec.check('POST /orders', await call('POST', '/orders', { key: 'legacy', body: order('legacy') }), 201);
});

test('every authenticated operation of the spec answers 401 without a key, in the documented shape', async () => {
  const concrete = (path: string): string =>
    path
      .replace('/questions/submissions/{id}', '/questions/submissions/sub_x')
      .replace('/orders/{id}', '/orders/1')
      .replace('{id}', m0)
      .replace('{address}', h.walletOf('alice'));
  const ops = Object.entries(rec.spec.spec.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => Array.isArray(op.security) && op.security.length > 0)
      .map(([method]) => [method.toUpperCase(), path] as const),
  );
  assert.ok(ops.length >= 25, `found ${ops.length} authenticated operations`);
  for (const [method, path] of ops) {
    const r = await h.call(method, concrete(path), method === 'POST' ? { body: {} } : {});
    rec.check(`${method} ${path}`, r, 401);
  }
});

test('the per-key rate limit answers the documented 429 on authenticated operations', async () => {
  const small = await startHarness({ apiKeys: [{ key: 'hasty' }], rateLimit: { capacity: 3, refillPerSecond: 0.001 } });
  try {
    const w = small.walletOf('hasty');
    const ops: [string, string][] = [
      ['GET /orders', '/orders'],
      ['GET /portfolio/{address}', `/portfolio/${w}`],
      ['GET /balance/{address}', `/balance/${w}`],
      ['GET /account/migration', '/account/migration'],
    ];
    let limited = 0;
    for (const [op, path] of ops) {
      const r = await small.call('GET', path, { key: 'hasty' });
      if (r.status === 429) {
        limited++;
        rec.check(op, r, 429);
        assert.ok(r.headers.get('x-ratelimit-reset'), 'the limiter tells when to come back');
      } else rec.check(op, r, 200);
    }
    assert.ok(limited >= 1, 'the fourth request of a three-token bucket is refused');
  } finally {
    await small.close();
  }
});

test('the checker itself fails on a wrong shape, a wrong status and an undocumented status', () => {
  const probe = new ConformanceRecorder();
  const ok = { status: 200, body: { hash: '0x' + '1'.repeat(64) }, headers: new Headers() };
  probe.check('POST /balance/mint-test-usdc', ok, 200);
  assert.throws(() => probe.check('POST /balance/mint-test-usdc', { ...ok, body: { hash: 'nope' } }, 200), /pattern/);
  assert.throws(() => probe.check('POST /balance/mint-test-usdc', { ...ok, body: {} }, 200), /required/);
  assert.throws(() => probe.check('POST /balance/mint-test-usdc', ok, 201), /expected 201/);
  assert.throws(() => probe.check('POST /balance/mint-test-usdc', { ...ok, status: 409, body: { message: 'x' } }, 409), /not documented/);
  // the mint 429 documents rate-limit headers: their absence fails
  assert.throws(
    () => probe.check('POST /balance/mint-test-usdc', { ...ok, status: 429, body: { message: 'x', remainingRequests: 0 } }, 429),
    /X-RateLimit-Limit/,
  );
  // nullable fields accept null and nothing else
  const pos = probe.spec.component('PortfolioPosition');
  const row = {
    marketId: '0x' + 'a'.repeat(64),
    slug: null,
    marketName: 'm',
    outcomeName: 'Yes',
    outcomeIndex: 1,
    size: '1',
    avgPrice: '1',
    price: '1',
    claimState: null,
    claimableAmount: '0',
    tokensRedeemed: '0',
    status: 'open',
  };
  assert.equal(pos(row), true);
  assert.equal(pos({ ...row, claimState: 'lost' }), false);
  assert.equal(pos({ ...row, slug: 5 }), false);
});

test('every path of the spec is covered with a success and an error answer', (t) => {
  t.diagnostic('coverage (operation → statuses answered and validated):');
  for (const line of rec.table().split('\n')) t.diagnostic(line);
  for (const d of rec.deviations) t.diagnostic(`deviation: ${d}`);
  assert.deepEqual(rec.uncoveredSuccess(), [], 'operations without a validated 2xx answer');
  assert.deepEqual(rec.uncoveredError(), [], 'operations without a validated error answer');
  assert.equal(rec.spec.responses.length > 200, true, 'the whole spec was compiled');
});
