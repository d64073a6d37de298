/**
 * The venue's four failure answers (4xx with {message, code}, 429 with Retry-After, 5xx, malformed body)
 * against one endpoint of every family, so a family whose parser or retry flags drift is caught even when its
 * own test file only scripts the happy path. Reads must retry a 5xx; a non-idempotent write (gasless relay)
 * must not, since the venue may already have acted on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import { BadResponseError } from '../../../src/model/errors.ts';
import { MARKET_ID, SIG, TRADER, useFixtureClient } from './fixture-server.ts';

const TOKEN = ('0x' + 'cd'.repeat(20)) as `0x${string}`;
const HASH = '0x' + 'ef'.repeat(32);

const ctx = useFixtureClient('ctx_pk_matrix');

const migrationStatus = {
  migrationActive: false,
  walletAddress: TRADER,
  holdings: { legacy: TOKEN, new: TOKEN },
  settlementV2Address: TOKEN,
  legacyBalances: [],
  newBalances: [],
  v2OperatorApproved: true,
  newHoldingsOperatorNonce: '1',
  fundsMigrationPlan: null,
  pendingRestorations: [],
  voidedLegacyOrderCount: 0,
  legacyOpenOrderCount: 0,
  sponsoredFundsMigrationAvailable: false,
  sponsoredRelayerAddress: null,
  sponsoredFundsMigrationStatus: null,
  canStart: false,
  canMigrateFunds: false,
  canRestoreOrders: false,
  canDismissOrders: false,
  migrationComplete: true,
};

interface Family {
  name: string;
  /** fixture route key */
  route: string;
  call: () => Promise<unknown>;
  ok: unknown;
  /** a body of the right status with a wrong shape, and the field the error must name */
  malformed: unknown;
  field: string;
  /** reads and idempotent writes are retried on 5xx */
  retries5xx: boolean;
}

const families: Family[] = [
  {
    name: 'markets list',
    route: 'GET /markets',
    call: () => ctx.client.markets.list(),
    ok: { markets: [], cursor: null },
    malformed: { markets: {}, cursor: null },
    field: 'markets',
    retries5xx: true,
  },
  {
    name: 'order book',
    route: `GET /markets/${MARKET_ID}/orderbook`,
    call: () => ctx.client.markets.orderbook(MARKET_ID),
    ok: { marketId: MARKET_ID, bids: [], asks: [] },
    malformed: { marketId: MARKET_ID, bids: [{ price: 45 }], asks: [] },
    field: 'bids[0].size',
    retries5xx: true,
  },
  {
    name: 'quotes',
    route: `GET /markets/${MARKET_ID}/quotes`,
    call: () => ctx.client.markets.quotes(MARKET_ID),
    ok: { marketId: MARKET_ID, yes: { bid: 45, ask: 47, last: null }, no: { bid: 53, ask: 55, last: null }, spread: 2, timestamp: '2026-11-21T10:00:00Z' },
    malformed: {
      marketId: MARKET_ID,
      yes: { bid: 'x', ask: 47, last: null },
      no: { bid: 53, ask: 55, last: null },
      spread: 2,
      timestamp: '2026-11-21T10:00:00Z',
    },
    field: 'yes.bid',
    retries5xx: true,
  },
  {
    name: 'oracle',
    route: `GET /markets/${MARKET_ID}/oracle`,
    call: () => ctx.client.markets.oracle(MARKET_ID),
    ok: { oracle: null },
    malformed: { oracle: 7 },
    field: 'oracle',
    retries5xx: true,
  },
  {
    name: 'activity',
    route: 'GET /activity',
    call: () => ctx.client.activity.list(),
    ok: { activity: [], pagination: { cursor: null, hasMore: false } },
    malformed: { activity: [], pagination: { cursor: 5, hasMore: false } },
    field: 'pagination.cursor',
    retries5xx: true,
  },
  {
    name: 'orders list',
    route: 'GET /orders',
    call: () => ctx.client.orders.list(),
    ok: { orders: [], markets: {}, cursor: null },
    malformed: { orders: 'none', markets: {}, cursor: null },
    field: 'orders',
    retries5xx: true,
  },
  {
    name: 'portfolio',
    route: `GET /portfolio/${TRADER}`,
    call: () => ctx.client.portfolio.get(TRADER),
    ok: { portfolio: [], marketIds: [], cursor: null },
    malformed: { portfolio: null, marketIds: [], cursor: null },
    field: 'portfolio',
    retries5xx: true,
  },
  {
    name: 'balance',
    route: `GET /balance/${TRADER}`,
    call: () => ctx.client.balance.summary(TRADER),
    ok: { address: TRADER, usdc: { tokenAddress: TOKEN, balance: '1', settlementBalance: '1', walletBalance: '0' }, outcomeTokens: [] },
    malformed: { address: TRADER, usdc: { tokenAddress: TOKEN, balance: '-1', settlementBalance: '1', walletBalance: '0' }, outcomeTokens: [] },
    field: 'usdc.balance',
    retries5xx: true,
  },
  {
    name: 'migration status',
    route: 'GET /account/migration',
    call: () => ctx.client.migration.status(),
    ok: migrationStatus,
    malformed: { ...migrationStatus, newHoldingsOperatorNonce: 1.5 },
    field: 'newHoldingsOperatorNonce',
    retries5xx: true,
  },
  {
    name: 'question submission',
    route: 'GET /questions/submissions/s1',
    call: () => ctx.client.questions.submission('s1'),
    ok: { submissionId: 's1', status: 'pending', questions: [], accounts: {}, qualityExplanation: null, refuseToResolve: false, statusUpdates: [] },
    malformed: { submissionId: 's1', status: 'pending', questions: 'none', accounts: {}, qualityExplanation: null, refuseToResolve: false, statusUpdates: [] },
    field: 'questions',
    retries5xx: true,
  },
  {
    name: 'gasless operator (not idempotent)',
    route: 'POST /gasless/operator',
    call: () => ctx.client.gasless.setOperator({ user: TRADER, settlementVersion: 2, nonce: '0', deadline: '1800000000', signature: SIG }),
    ok: { success: true, txHash: HASH, user: TRADER, operator: TOKEN, relayer: TOKEN },
    malformed: { success: true, txHash: 12, user: TRADER, operator: TOKEN, relayer: TOKEN },
    field: 'txHash',
    retries5xx: false,
  },
];

for (const f of families) {
  test(`${f.name}: 4xx {message, code} is a VenueError, not retried`, async () => {
    ctx.fx.on(f.route, { status: 403, body: { message: 'Forbidden for this key', code: 'forbidden' } });
    await assert.rejects(
      f.call(),
      (e: unknown) => e instanceof VenueError && e.status === 403 && e.venueCode === 'forbidden' && e.venueMessage === 'Forbidden for this key',
    );
    assert.equal(ctx.fx.requests.length, 1);
    assert.deepEqual(ctx.sleeps, []);
  });

  test(`${f.name}: 429 waits the Retry-After, then succeeds`, async () => {
    ctx.fx.on(f.route, { status: 429, body: { message: 'Too many requests' }, headers: { 'retry-after': '3' } }, { body: f.ok });
    await f.call();
    assert.equal(ctx.fx.requests.length, 2);
    assert.deepEqual(ctx.sleeps, [3000]);
  });

  test(`${f.name}: 5xx is ${f.retries5xx ? 'retried with back-off' : 'not retried (the venue may have acted)'}`, async () => {
    ctx.fx.on(f.route, { status: 503, body: { message: 'busy' } }, { body: f.ok });
    if (f.retries5xx) {
      await f.call();
      assert.equal(ctx.fx.requests.length, 2);
      assert.equal(ctx.sleeps.length, 1);
    } else {
      await assert.rejects(f.call(), (e: unknown) => e instanceof VenueError && e.status === 503);
      assert.equal(ctx.fx.requests.length, 1);
    }
  });

  test(`${f.name}: a malformed 200 is a BadResponseError naming ${f.field}`, async () => {
    ctx.fx.on(f.route, { body: f.malformed });
    await assert.rejects(f.call(), (e: unknown) => e instanceof BadResponseError && e.field === f.field);
    ctx.fx.on(f.route, { raw: '{"truncated": ' });
    await assert.rejects(f.call(), BadResponseError);
  });
}
