import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrationAuthorizationMessage } from '../../../src/exchange/signing/migrationMessage.ts';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import { recoverOrderSigner } from '../../../src/exchange/signing/recover.ts';
import { MAINNET } from '../../../src/exchange/chains.ts';
import { BadInputError } from '../../../src/model/errors.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { MARKET, TEST_KEYS } from './fixtures.ts';

const WALLET = '0xAbC0000000000000000000000000000000000DeF';

test('five lines, lowercased wallet, ids sorted numerically, no trailing newline', () => {
  const m = migrationAuthorizationMessage({ action: 'start', wallet: WALLET, legacyOrderIds: [10, 9, 100, 1], deadline: 1_900_000_000 });
  assert.equal(
    m,
    'Context public API migration authorization\nAction: start\nWallet: 0xabc0000000000000000000000000000000000def\nLegacy order ids: 1,9,10,100\nDeadline: 1900000000',
  );
  assert.ok(!m.endsWith('\n'));
  assert.match(migrationAuthorizationMessage({ action: 'dismiss-orders', wallet: WALLET, deadline: 5 }), /\nLegacy order ids: all\nDeadline: 5$/);
  assert.match(migrationAuthorizationMessage({ action: 'start', wallet: WALLET, legacyOrderIds: [], deadline: 5 }), /Legacy order ids: all/);
});

test('bad fields are named', () => {
  const base = { action: 'start' as const, wallet: WALLET, deadline: 1 };
  assert.throws(
    () => migrationAuthorizationMessage({ ...base, action: 'restore' as never }),
    (e: unknown) => e instanceof BadInputError && e.field === 'action',
  );
  assert.throws(
    () => migrationAuthorizationMessage({ ...base, wallet: '0x12' }),
    (e: unknown) => e instanceof BadInputError && e.field === 'wallet',
  );
  assert.throws(
    () => migrationAuthorizationMessage({ ...base, legacyOrderIds: [1.5] }),
    (e: unknown) => e instanceof BadInputError && e.field === 'legacyOrderIds',
  );
  assert.throws(
    () => migrationAuthorizationMessage({ ...base, deadline: -1 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'deadline',
  );
});

test('signOrderBody re-signs a restored legacy order keeping its nonce, expiry and maxFee', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const nonce = ('0x' + '9e'.repeat(32)) as Bytes32;
  const draft = {
    type: 'limit' as const,
    marketId: MARKET,
    trader: s.address,
    price: '450000',
    size: '3000000',
    outcomeIndex: 1,
    side: 0,
    nonce,
    expiry: '1750000000',
    maxFee: '13500',
    makerRoleConstraint: 0,
    inventoryModeConstraint: 0,
    timeInForce: 0,
  };
  const body = s.signOrderBody(draft);
  assert.deepEqual({ ...body, signature: undefined }, { ...draft, signature: undefined });
  assert.equal(recoverOrderSigner(body, MAINNET), s.address);
  assert.throws(
    () => s.signOrderBody({ ...draft, makerRoleConstraint: 1 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'makerRoleConstraint',
  );
  // The trader may be given in lowercase (as the venue's drafts may spell it).
  assert.equal(recoverOrderSigner(s.signOrderBody({ ...draft, trader: s.address.toLowerCase() as never }), MAINNET), s.address);
});
