import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { BadInputError, BadResponseError } from '../../../src/model/errors.ts';
import { MARKET_ID, SIG, TRADER, limitBody, useFixtureClient } from './fixture-server.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const TOKEN = ('0x' + 'cd'.repeat(20)) as Bytes32;
const HASH = '0x' + 'ef'.repeat(32);

const ctx = useFixtureClient('ctx_pk_account_tests');

const holding = {
  tokenAddress: TOKEN,
  balance: '5000000',
  settlementBalance: '4000000',
  walletBalance: '1000000',
  outcomeIndex: 1,
  outcomeName: 'Yes',
  marketId: MARKET_ID,
  netInvestment: '2250000',
  currentValue: '2300000',
  claimState: null,
  claimableAmount: '0',
  tokensRedeemed: '0',
};

test('portfolio: pages, positions, claimable, stats (bigint amounts, signed PnL)', async () => {
  ctx.fx.on(`GET /portfolio/${TRADER}`, (r) =>
    r.query.get('cursor')
      ? { body: { portfolio: [holding], marketIds: [MARKET_ID], cursor: null } }
      : { body: { portfolio: [holding], marketIds: [MARKET_ID], cursor: 'n' } },
  );
  const hs = [];
  for await (const h of ctx.client.portfolio.iterate(TRADER, { kind: 'active' })) hs.push(h);
  assert.equal(hs.length, 2);
  assert.equal(hs[0]!.balance, 5_000_000n);
  assert.equal(ctx.fx.requests[0]!.query.get('kind'), 'active');
  ctx.fx.on(`GET /portfolio/${TRADER}/positions`, {
    body: {
      positions: [
        {
          marketId: MARKET_ID,
          slug: null,
          marketName: 'Rain?',
          outcomeName: 'Yes',
          outcomeIndex: 1,
          size: '5000000',
          avgPrice: '450000',
          price: '460000',
          claimState: null,
          claimableAmount: '0',
          tokensRedeemed: '0',
          status: 'open',
        },
      ],
      cursor: null,
    },
  });
  const ps = await ctx.client.portfolio.positions(TRADER, { status: 'open' });
  assert.equal(ps.positions[0]!.avgPrice, 450000n);
  ctx.fx.on(`GET /portfolio/${TRADER}/claimable`, {
    body: {
      positions: [],
      markets: [{ id: MARKET_ID, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payoutPcts: [0, 100] }],
      totalClaimable: '7000000',
    },
  });
  assert.equal((await ctx.client.portfolio.claimable(TRADER)).totalClaimable, 7_000_000n);
  assert.deepEqual((await ctx.client.portfolio.claimable(TRADER)).markets[0]!.payouts, [0n, 1_000_000n], 'numbers are percentages');
  // the spec's form: decimal-integer strings in 1e-6 USDC per share, and typed positions
  const pos = {
    tokenAddress: TOKEN,
    balance: '7000000',
    settlementBalance: '7000000',
    walletBalance: '0',
    outcomeIndex: 1,
    outcomeName: 'Yes',
    marketId: MARKET_ID,
    netInvestment: '2800000',
    claimableAmount: '7000000',
  };
  ctx.fx.on(`GET /portfolio/${TRADER}/claimable`, {
    body: {
      positions: [pos],
      markets: [{ id: MARKET_ID, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payoutPcts: ['250000', '750000'] }],
      totalClaimable: '7000000',
    },
  });
  const cl = await ctx.client.portfolio.claimable(TRADER);
  assert.deepEqual(cl.markets[0]!.payouts, [250_000n, 750_000n]);
  assert.deepEqual(cl.positions, [
    { marketId: MARKET_ID, outcomeIndex: 1, outcomeName: 'Yes', tokenAddress: TOKEN, balance: 7_000_000n, claimableAmount: 7_000_000n },
  ]);
  ctx.fx.on(`GET /portfolio/${TRADER}/claimable`, {
    body: { positions: [], markets: [{ id: MARKET_ID, outcomeTokens: [], outcomeNames: [], payoutPcts: ['1000001'] }], totalClaimable: '0' },
  });
  await assert.rejects(ctx.client.portfolio.claimable(TRADER), BadResponseError);
  ctx.fx.on(`GET /portfolio/${TRADER}/claimable`, { body: { positions: [{ ...pos, claimableAmount: '-1' }], markets: [], totalClaimable: '0' } });
  await assert.rejects(ctx.client.portfolio.claimable(TRADER), (e: unknown) => e instanceof BadResponseError && e.field === 'positions[0].claimableAmount');
  // a market's outcome tokens are addresses (old code: any strings, typed as addresses unchecked)
  ctx.fx.on(`GET /portfolio/${TRADER}/claimable`, {
    body: { positions: [], markets: [{ id: MARKET_ID, outcomeTokens: [TOKEN, 'not-an-address'], outcomeNames: ['No', 'Yes'] }], totalClaimable: '0' },
  });
  await assert.rejects(ctx.client.portfolio.claimable(TRADER), (e: unknown) => e instanceof BadResponseError && e.field === 'markets[0].outcomeTokens[1]');
  ctx.fx.on(`GET /portfolio/${TRADER}/stats`, {
    body: {
      currentPortfolioValue: '100',
      currentPortfolioPercentChange: -1.5,
      predictionsPlaced: 3,
      totalPlaced: '300',
      allTimeWinLoss: '-200',
      allTimeReturnPct: -0.4,
    },
  });
  assert.equal((await ctx.client.portfolio.stats(TRADER)).allTimeWinLoss, -200n);
  ctx.fx.on(`GET /portfolio/${TRADER}`, { body: { portfolio: [{ ...holding, balance: '1e6' }], marketIds: [], cursor: null } });
  await assert.rejects(ctx.client.portfolio.get(TRADER), (e: unknown) => e instanceof BadResponseError && e.field === 'portfolio[0].balance');
  await assert.rejects(ctx.client.portfolio.get('0xnope' as never), (e: unknown) => e instanceof BadInputError && e.field === 'address');
});

test('portfolio: marketIds in any case are read in normal form; one that is no 32-byte id is a bad answer, not a cast', async () => {
  const upper = `0x${MARKET_ID.slice(2).toUpperCase()}`;
  ctx.fx.on(`GET /portfolio/${TRADER}`, { body: { portfolio: [], marketIds: [upper], cursor: null } });
  assert.deepEqual((await ctx.client.portfolio.get(TRADER)).marketIds, [MARKET_ID]);
  ctx.fx.on(`GET /portfolio/${TRADER}`, { body: { portfolio: [], marketIds: [MARKET_ID, 'rain-tomorrow'], cursor: null } });
  await assert.rejects(ctx.client.portfolio.get(TRADER), (e: unknown) => e instanceof BadResponseError && e.field === 'marketIds[1]');
});

test('balance: summary, token, settlement; {error, message} errors; mint-test-usdc', async () => {
  ctx.fx.on(`GET /balance/${TRADER}`, {
    body: {
      address: TRADER,
      usdc: { tokenAddress: TOKEN, balance: '123456789012345678901', settlementBalance: '1', walletBalance: '2' },
      outcomeTokens: [{ ...holding, outcomeName: null }],
    },
  });
  const s = await ctx.client.balance.summary(TRADER);
  assert.equal(s.usdc.balance, 123456789012345678901n); // beyond 2^53: bigint, exact
  assert.equal(s.outcomeTokens[0]!.outcomeIndex, 1);
  ctx.fx.on('GET /balance', { status: 404, body: { error: 'token_not_found', message: 'Unknown token' } });
  await assert.rejects(
    ctx.client.balance.token(TRADER, TOKEN),
    (e: unknown) => e instanceof VenueError && e.venueCode === 'token_not_found' && e.venueMessage === 'Unknown token',
  );
  assert.equal(ctx.fx.requests.at(-1)!.query.get('tokenAddress'), TOKEN);
  ctx.fx.on('GET /balance/settlement', { body: { balance: '42', account: TRADER, token: TOKEN } });
  assert.equal((await ctx.client.balance.settlement(TRADER, TOKEN)).balance, 42n);
  ctx.fx.on(
    'POST /balance/mint-test-usdc',
    { status: 429, body: { message: 'Rate limited', remainingRequests: 0 }, headers: { 'retry-after': '5' } },
    { body: { hash: HASH } },
  );
  assert.equal((await ctx.client.balance.mintTestUsdc(TRADER, '100.5')).hash, HASH);
  assert.deepEqual(ctx.sleeps, [5000]);
  assert.deepEqual(JSON.parse(ctx.fx.requests.at(-1)!.body), { address: TRADER, amount: '100.5' });
  await assert.rejects(ctx.client.balance.mintTestUsdc(TRADER, '10000.01'), BadInputError);
  await assert.rejects(ctx.client.balance.mintTestUsdc(TRADER, '0'), BadInputError);
  await assert.rejects(ctx.client.balance.mintTestUsdc(TRADER, '1.1234567'), BadInputError);
});

const status = {
  migrationActive: true,
  walletAddress: TRADER,
  holdings: { legacy: TOKEN, new: TOKEN },
  settlementV2Address: TOKEN,
  legacyBalances: [{ token: TOKEN, balance: '5000000' }],
  newBalances: [],
  v2OperatorApproved: false,
  newHoldingsOperatorNonce: '0',
  fundsMigrationPlan: {
    phase: 'ready',
    callCount: 1,
    chunkCount: 1,
    calls: [],
    tokens: [{ token: TOKEN, amount: '5000000' }],
    chunks: [{ callCount: 1, calls: [], tokens: [{ token: TOKEN, amount: '5000000' }] }],
  },
  pendingRestorations: [
    {
      id: 1,
      legacyOrderId: 9,
      legacyOrderHash: HASH,
      legacyMarketId: MARKET_ID,
      status: 'ready_for_resign',
      draft: { type: 'limit', nonce: HASH },
      error: null,
      market: null,
    },
  ],
  voidedLegacyOrderCount: 0,
  legacyOpenOrderCount: 1,
  sponsoredFundsMigrationAvailable: true,
  sponsoredRelayerAddress: TOKEN,
  sponsoredFundsMigrationStatus: null,
  canStart: true,
  canMigrateFunds: false,
  canRestoreOrders: false,
  canDismissOrders: false,
  migrationComplete: false,
};

test('migration: status, start, migrate-funds (one chunk and many), restore, dismiss', async () => {
  ctx.fx.on('GET /account/migration', { body: status });
  const st = await ctx.client.migration.status(TRADER);
  assert.equal(st.newHoldingsOperatorNonce, 0n);
  assert.equal(st.fundsMigrationPlan?.chunks[0]!.tokens[0]!.amount, 5_000_000n);
  assert.equal(st.pendingRestorations[0]!.legacyOrderId, 9);
  assert.equal(ctx.fx.requests[0]!.query.get('address'), TRADER);
  ctx.fx.on('GET /account/migration', { body: { ...status, canStart: 'yes' } });
  await assert.rejects(ctx.client.migration.status(), (e: unknown) => e instanceof BadResponseError && e.field === 'canStart');

  ctx.fx.on('POST /account/migration/start', {
    body: {
      success: true,
      retiredCount: 1,
      restorableCount: 1,
      legacyBalances: [],
      newBalances: [],
      fundsMigrationPlan: status.fundsMigrationPlan,
      pendingRestorations: [],
      legacyOpenOrderCount: 0,
    },
  });
  assert.equal((await ctx.client.migration.start()).retiredCount, 1);
  assert.equal(ctx.fx.requests.at(-1)!.body, '{}');
  await assert.rejects(ctx.client.migration.start({ authorization: { deadline: '1', signature: SIG } }), BadInputError);

  const step = { nonce: '1', deadline: '1800000000', signature: SIG };
  const mf = {
    success: true,
    userOperationHash: HASH,
    txHash: HASH,
    executions: [{ userOperationHash: HASH, txHash: HASH }],
    legacyBalances: [],
    newBalances: [],
    v2OperatorApproved: true,
  };
  ctx.fx.on('POST /account/migration/migrate-funds', { body: mf });
  await ctx.client.migration.migrateFunds({ batchWithdraws: [step], setOperator: step });
  assert.deepEqual(Object.keys(JSON.parse(ctx.fx.requests.at(-1)!.body)), ['batchWithdraw', 'setOperator']);
  const r = await ctx.client.migration.migrateFunds({ address: TRADER, batchWithdraws: [step, step], setOperator: step });
  assert.equal(r.v2OperatorApproved, true);
  const sent = JSON.parse(ctx.fx.requests.at(-1)!.body);
  assert.equal(sent.chunks.length, 2);
  assert.deepEqual(sent.chunks[0], { batchWithdraw: step });
  assert.equal(sent.address, TRADER);

  ctx.fx.on('POST /account/migration/restore-orders', {
    body: {
      success: true,
      restoredCount: 1,
      failedCount: 1,
      results: [
        { legacyOrderId: 9, success: true, restoredOrderId: 77, restoredOrderHash: HASH },
        { legacyOrderId: 10, success: false, error: 'expired' },
      ],
      settlementV2Address: TOKEN,
    },
  });
  const rr = await ctx.client.migration.restoreOrders([{ legacyOrderId: 9, order: limitBody() }]);
  assert.equal(rr.results[1]!.success, false);
  await assert.rejects(ctx.client.migration.restoreOrders([]), BadInputError);

  ctx.fx.on('POST /account/migration/dismiss-orders', { body: { success: true, dismissedCount: 2 } });
  assert.equal((await ctx.client.migration.dismissOrders({ legacyOrderIds: [9, 10] })).dismissedCount, 2);

  // a migration write is not blindly retried on 5xx
  ctx.fx.requests.length = 0;
  ctx.fx.on('POST /account/migration/start', { status: 500, body: { message: 'x' } });
  await assert.rejects(ctx.client.migration.start(), VenueError);
  assert.equal(ctx.fx.requests.length, 1);
});

test('gasless operator and deposit-with-permit', async () => {
  ctx.fx.on('POST /gasless/operator', { body: { success: true, txHash: HASH, user: TRADER, operator: TOKEN, relayer: TOKEN } });
  const g = await ctx.client.gasless.setOperator({ user: TRADER, settlementVersion: 2, nonce: '0', deadline: '1800000000', signature: SIG });
  assert.equal(g.operator, TOKEN);
  assert.deepEqual(JSON.parse(ctx.fx.requests.at(-1)!.body), { user: TRADER, nonce: '0', deadline: '1800000000', signature: SIG, settlementVersion: 2 });
  ctx.fx.on('POST /gasless/deposit-with-permit', { body: { success: true, txHash: HASH, user: TRADER, token: TOKEN, amount: '1000000', relayer: TOKEN } });
  assert.equal(
    (await ctx.client.gasless.depositWithPermit({ user: TRADER, amount: '1000000', nonce: '5', deadline: '1800000000', signature: SIG })).amount,
    1_000_000n,
  );
  await assert.rejects(ctx.client.gasless.depositWithPermit({ user: TRADER, amount: '1.5', nonce: '5', deadline: '1', signature: SIG }), BadInputError);
});

test('questions: submit, bounded polling (completed, failed → 422, timeout → 408), create market', async () => {
  const submitted = {
    submissionId: 's1',
    questions: [],
    accounts: {},
    qualityExplanation: null,
    refuseToResolve: false,
    status: 'pending',
    statusUpdates: [],
    pollUrl: 'https://x/s1',
  };
  ctx.fx.on('POST /questions', { body: submitted });
  assert.equal((await ctx.client.questions.submit('Will it rain in Lisbon tomorrow?')).submissionId, 's1');
  await assert.rejects(ctx.client.questions.submit(''), BadInputError);
  await assert.rejects(ctx.client.questions.submit('x'.repeat(1001)), BadInputError);

  const sub = (status: string, extra: Record<string, unknown> = {}) => ({
    body: { submissionId: 's1', status, questions: [], accounts: {}, qualityExplanation: null, refuseToResolve: false, statusUpdates: [], ...extra },
  });
  ctx.fx.on('GET /questions/submissions/s1', sub('pending'), sub('processing'), sub('completed', { questions: [{ id: HASH, text: 'Rain?' }] }));
  const done = await ctx.client.questions.waitForSubmission('s1');
  assert.equal(done.questions[0]!.id, HASH);
  assert.deepEqual(ctx.sleeps, [2000, 2000]);

  ctx.fx.on('GET /questions/submissions/s1', sub('failed', { rejectionReasons: [{ message: 'ambiguous' }] }));
  await assert.rejects(
    ctx.client.questions.waitForSubmission('s1'),
    (e: unknown) => e instanceof VenueError && e.status === 422 && /ambiguous/.test(e.message),
  );

  ctx.sleeps = [];
  ctx.fx.on('GET /questions/submissions/s1', sub('processing'));
  await assert.rejects(
    ctx.client.questions.waitForSubmission('s1', { intervalMs: 10, maxAttempts: 3 }),
    (e: unknown) => e instanceof VenueError && e.status === 408,
  );
  assert.deepEqual(ctx.sleeps, [10, 10]);

  ctx.fx.on('POST /questions/agent-submit', { body: submitted });
  const m = {
    formattedQuestion: 'Will it rain?',
    shortQuestion: 'Rain?',
    marketType: 'OBJECTIVE' as const,
    evidenceMode: 'web_enabled' as const,
    resolutionCriteria: 'IPMA data',
    endTime: '2026-12-01 00:00:00',
  };
  assert.equal((await ctx.client.questions.agentSubmit(m)).status, 'pending');
  await assert.rejects(
    ctx.client.questions.agentSubmit({ ...m, endTime: 'tomorrow' }),
    (e: unknown) => e instanceof BadInputError && e.field === 'market.endTime',
  );

  ctx.fx.on('POST /markets/create', {
    body: { marketId: MARKET_ID, txHash: HASH },
    headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '1800000000' },
  });
  assert.equal((await ctx.client.questions.createMarket(HASH as Bytes32)).marketId, MARKET_ID);
  assert.equal(ctx.client.rateLimit?.remaining, 4);
  assert.equal(ctx.client.rateLimit?.limit, 5);
});
