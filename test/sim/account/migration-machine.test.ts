/**
 * The migration state machine without HTTP: seeding, the 409 predicate through every step, chunking,
 * nonce reuse, restore matching and dismissal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { buildFundsPlan, fundsPlanToWire } from '../../../src/sim/migration/funds-plan.ts';
import { emptyMigrationData, type LegacyAsset } from '../../../src/sim/migration/migration-data.ts';
import {
  applyFundsMigration,
  applyOperatorApproval,
  dismissOrders,
  fundsPlanOf,
  isTradingBlocked,
  markRestored,
  operatorState,
  restorationDraft,
  restorationFor,
  restoreMismatch,
  startMigration,
  walletState,
} from '../../../src/sim/migration/migration-machine.ts';
import { seedLegacyAccount, demoLegacyAccounts } from '../../../src/sim/migration/legacy-seeds.ts';
import { HttpError } from '../../../src/sim/http-errors.ts';
import { mustAddress } from '../../../src/sim/wire-ids.ts';
import { holding, legacyOrder } from '../../support/legacy-seeds.ts';

const WALLET = mustAddress('0x1111111111111111111111111111111111111111', 'WALLET');
const OTHER = mustAddress('0x2222222222222222222222222222222222222222', 'OTHER');
const USDC = '0x00000000000000000000000000000000000000A0' as Address;
const M1 = ('0x' + 'a1'.repeat(32)) as Bytes32;
const M2 = ('0x' + 'b2'.repeat(32)) as Bytes32;
const tokenOf = (m: string, o: number) => ('0x' + m.slice(2, 4).repeat(19) + (o ? '01' : '00')) as Address;
const tokens = { usdc: USDC, outcomeToken: (m: Bytes32, o: 0 | 1) => ([M1, M2].includes(m) ? tokenOf(m, o) : undefined) };
const CONTRACTS = { holdingsLegacy: OTHER, holdingsNew: USDC };
const hash = (s: string) => ('0x' + Buffer.from(s.padEnd(32, '.').slice(0, 32)).toString('hex')) as Bytes32;

function seeded() {
  const data = emptyMigrationData({ active: true, tokensPerChunk: 2, relayer: OTHER });
  seedLegacyAccount(
    data,
    {
      wallet: WALLET,
      collateral: 50_000_000n,
      positions: [holding(M1, 1, 2_000_000n), holding(M2, 0, 3_000_000n)],
      orders: [legacyOrder(M1, 1, 0, 400_000, 10_000_000), legacyOrder(M1, 1, 1, 700_000, 2_000_000, 500_000)],
    },
    tokens,
    1_700_000_000,
  );
  return data;
}

test('funds plan splits tokens into chunks of the configured size and drops zero balances', () => {
  const plan = buildFundsPlan(
    [
      { token: USDC, amount: 5n },
      { token: OTHER, amount: 0n },
      { token: WALLET, amount: 7n },
      { token: tokenOf(M1, 1), amount: 9n },
    ],
    2,
    { ...CONTRACTS, relayer: OTHER },
    WALLET,
  );
  assert.equal(plan.phase, 'ready');
  assert.deepEqual(
    plan.chunks.map((c) => c.tokens.map((t) => t.amount)),
    [[5n, 7n], [9n]],
  );
  const wire = fundsPlanToWire(plan) as { chunkCount: number; callCount: number; chunks: { callCount: number; tokens: { amount: string }[] }[] };
  assert.equal(wire.chunkCount, 2);
  assert.equal(wire.chunks[0]!.callCount, 3); // one batch withdraw + two deposits
  assert.equal(wire.callCount, 5);
  assert.equal(wire.chunks[1]!.tokens[0]!.amount, '9');
  assert.equal(buildFundsPlan([], 2, { ...CONTRACTS, relayer: OTHER }, WALLET).phase, 'none');
});

test('a seeded legacy wallet is blocked until funds, orders and restorations are all dealt with', () => {
  const data = seeded();
  assert.equal(isTradingBlocked(data, WALLET), true);
  assert.equal(isTradingBlocked(data, OTHER), false, 'wallets without legacy state trade freely');

  const w = walletState(data, WALLET)!;
  assert.equal(fundsPlanOf(data, w, CONTRACTS).chunks.length, 2, 'three tokens at two per chunk');

  const started = startMigration(data, WALLET);
  assert.deepEqual(started, { retiredCount: 2, restorableCount: 2 });
  assert.deepEqual(startMigration(data, WALLET), { retiredCount: 0, restorableCount: 2 }, 'start is idempotent');
  assert.equal(isTradingBlocked(data, WALLET), true);

  const credits: [LegacyAsset, bigint][] = [];
  assert.equal(operatorState(data, 2, WALLET).approved, false, 'legacy wallets start without V2 approval');
  const { executions } = applyFundsMigration(data, WALLET, [11n, 12n], { credit: (_w, a, n) => credits.push([a, n]) }, hash);
  assert.equal(executions.length, 2);
  assert.deepEqual(
    credits.map(([, n]) => n),
    [50_000_000n, 2_000_000n, 3_000_000n],
  );
  assert.deepEqual(credits[1]![0], { kind: 'outcome', marketId: M1, outcomeIndex: 1 });
  assert.deepEqual(operatorState(data, 2, WALLET), { nonce: 1n, approved: true });
  assert.equal(fundsPlanOf(data, w, CONTRACTS).phase, 'completed');
  assert.equal(isTradingBlocked(data, WALLET), true, 'restorations still pending');

  const first = restorationFor(w, w.legacyOrders[0]!.id);
  assert.ok(!('error' in first));
  markRestored(first.restoration, 99, hash('restored'));
  assert.equal(isTradingBlocked(data, WALLET), true, 'one restoration left');
  assert.equal(dismissOrders(data, WALLET, undefined), 1);
  assert.equal(isTradingBlocked(data, WALLET), false, 'fully migrated');
  const fresh = seeded();
  fresh.active = false;
  assert.equal(isTradingBlocked(fresh, WALLET), false, 'an inactive migration blocks no one');
});

test('batch withdraw nonces cannot be replayed and must differ between chunks', () => {
  const data = seeded();
  const sink = { credit: () => {} };
  assert.throws(
    () => applyFundsMigration(data, WALLET, [5n, 5n], sink, hash),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
  applyFundsMigration(data, WALLET, [5n, 6n], sink, hash);
  assert.throws(
    () => applyFundsMigration(data, WALLET, [6n], sink, hash),
    (e: unknown) => e instanceof HttpError && e.status === 409,
  );
  assert.throws(
    () => applyFundsMigration(data, OTHER, [1n], sink, hash),
    (e: unknown) => e instanceof HttpError && e.status === 409,
  );
});

test('operator approvals increment the nonce per Holdings version', () => {
  const data = seeded();
  assert.deepEqual(operatorState(data, 2, OTHER), { nonce: 0n, approved: true });
  applyOperatorApproval(data, 2, OTHER, false);
  assert.deepEqual(operatorState(data, 2, OTHER), { nonce: 1n, approved: false });
  assert.equal(operatorState(data, 1, OTHER).nonce, 0n);
});

test('a restoration must reuse the retired order terms exactly', () => {
  const data = seeded();
  startMigration(data, WALLET);
  const o = walletState(data, WALLET)!.legacyOrders[1]!;
  const draft = restorationDraft(o);
  assert.equal(draft.remainingSize, '1500000');
  assert.equal(draft.reason, 'ready_for_resign');
  const body = {
    type: 'limit',
    marketId: o.marketId,
    trader: o.trader,
    side: o.side,
    outcomeIndex: o.outcomeIndex,
    price: '700000',
    size: '1500000',
    nonce: o.nonce,
    expiry: String(o.expiry),
    maxFee: String(o.maxFee),
    makerRoleConstraint: 0,
    inventoryModeConstraint: 0,
    timeInForce: 0,
  };
  const upper = (h: string) => '0x' + h.slice(2).toUpperCase();
  assert.equal(restoreMismatch(o, WALLET, body), null);
  assert.equal(restoreMismatch(o, WALLET, { ...body, nonce: '0x' + '0'.repeat(64) }), 'nonce');
  assert.equal(restoreMismatch(o, WALLET, { ...body, expiry: String(o.expiry + 1) }), 'expiry');
  assert.equal(restoreMismatch(o, WALLET, { ...body, maxFee: '1' }), 'maxFee');
  assert.equal(restoreMismatch(o, WALLET, { ...body, size: '2000000' }), 'size');
  assert.equal(restoreMismatch(o, WALLET, { ...body, trader: OTHER }), 'trader');
  assert.equal(restoreMismatch(o, WALLET, { ...body, marketId: 'not-an-id' }), 'marketId');
  assert.equal(
    restoreMismatch(o, WALLET, { ...body, marketId: upper(M1), trader: upper(WALLET), nonce: upper(o.nonce) }),
    null,
    'the body ids are normalised where they enter: any spelling of the same id matches',
  );
});

test('dismissing unknown ids is a 400 naming the field; open legacy orders can be dismissed before start', () => {
  const data = seeded();
  assert.throws(
    () => dismissOrders(data, WALLET, [12345]),
    (e: unknown) => e instanceof HttpError && e.field === 'legacyOrderIds',
  );
  const ids = walletState(data, WALLET)!.legacyOrders.map((o) => o.id);
  assert.equal(dismissOrders(data, WALLET, [ids[0]!]), 1);
  assert.equal(walletState(data, WALLET)!.legacyOrders[0]!.status, 'dismissed');
  assert.equal(startMigration(data, WALLET).retiredCount, 1);
});

test('bad seeds are rejected with the field named; demo accounts are deterministic', () => {
  const data = emptyMigrationData({ active: true, tokensPerChunk: 2, relayer: OTHER });
  assert.throws(() => seedLegacyAccount(data, { wallet: WALLET, orders: [legacyOrder(M1, 1, 0, 0, 1)] }, tokens, 0), /orders\[0\]\.price/);
  assert.throws(
    () => seedLegacyAccount(data, { wallet: WALLET, positions: [{ marketId: ('0x' + 'cc'.repeat(32)) as Bytes32, outcomeIndex: 1, amount: 1n }] }, tokens, 0),
    /positions\[0\]\.marketId/,
  );
  assert.throws(() => seedLegacyAccount(data, { wallet: 'nobody' as Address }, tokens, 0), /legacyAccounts\[\]\.wallet/);
  assert.throws(
    () => seedLegacyAccount(data, { wallet: WALLET, orders: [legacyOrder('0xabc' as Bytes32, 1, 0, 400_000, 1)] }, tokens, 0),
    /orders\[0\]\.marketId/,
  );
  assert.throws(
    () => seedLegacyAccount(data, { wallet: WALLET, orders: [{ ...legacyOrder(M1, 1, 0, 400_000, 1), nonce: '0x12' as Bytes32 }] }, tokens, 0),
    /orders\[0\]\.nonce/,
  );
  assert.deepEqual(data.wallets, {}, 'a refused seed adds no wallet');
  const a = demoLegacyAccounts(7, 2, [M1, M2]);
  const b = demoLegacyAccounts(7, 2, [M1, M2]);
  assert.deepEqual(
    a.map((x) => x.account.wallet),
    b.map((x) => x.account.wallet),
  );
  assert.notEqual(a[0]!.account.wallet, a[1]!.account.wallet);
  assert.equal(a[0]!.account.positions!.length, 4);
});

test('seeded ids are normalised once: the wallet keys its record in any spelling, ids are stored lower-case', () => {
  const upper = (h: string) => ('0x' + h.slice(2).toUpperCase()) as Bytes32;
  const seed = (wallet: Address) => {
    const data = emptyMigrationData({ active: true, tokensPerChunk: 2, relayer: OTHER });
    const orders = [{ ...legacyOrder(upper(M1), 1, 0, 400_000, 10_000_000), nonce: upper('0x' + 'ef'.repeat(32)) }, legacyOrder(M1, 1, 1, 700_000, 1)];
    seedLegacyAccount(data, { wallet, collateral: 1n, orders }, tokens, 1_700_000_000);
    return data;
  };
  const lower = seed(WALLET);
  const shouting = seed(upper(WALLET));
  assert.deepEqual(Object.keys(shouting.wallets), [WALLET], 'keyed by the normal form');
  assert.equal(isTradingBlocked(shouting, WALLET), true);
  const w = walletState(shouting, WALLET)!;
  assert.equal(w.wallet, upper(WALLET), 'the record keeps the seeded spelling');
  assert.equal(w.legacyOrders[0]!.marketId, M1);
  assert.equal(w.legacyOrders[0]!.nonce, '0x' + 'ef'.repeat(32));
  assert.deepEqual(
    w.legacyOrders.map((o) => [o.hash, o.nonce]),
    walletState(lower, WALLET)!.legacyOrders.map((o) => [o.hash, o.nonce]),
    'hashes and derived nonces do not depend on how the wallet was spelt',
  );
});
