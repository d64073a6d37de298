import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashTypedData, keccak256, encodeAbiParameters } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import {
  orderHash,
  recoverBatchWithdrawSigner,
  recoverCancelSigner,
  recoverDigestSigner,
  recoverOperatorApprovalSigner,
  recoverOrder,
  recoverOrderSigner,
  recoverPermit2Signer,
  recoverPersonalMessageSigner,
} from '../../../src/exchange/signing/recover.ts';
import { toSettlementV2Order } from '../../../src/exchange/signing/orderMapping.ts';
import { MAINNET, TESTNET } from '../../../src/exchange/chains.ts';
import { BadInputError } from '../../../src/model/errors.ts';
import type { Address, LimitOrderBody } from '../../../src/model/order.ts';
import { MARKET, ORDER_TYPES, TEST_KEYS, randHex, randomOrder, rng, settlementV2Domain } from './fixtures.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const NOW = 1_800_000_000;

test('orderHash is the EIP-712 digest viem computes; recovery gives the checksummed trader (both backends)', async () => {
  const r = rng(9);
  for (let i = 0; i < 150; i++) {
    const key = TEST_KEYS[i % TEST_KEYS.length]!;
    const chain = i % 2 ? TESTNET : MAINNET;
    const body = createSigner({ privateKey: key, chain }).signOrder(randomOrder(r, (i % 3) as 0 | 1 | 2), NOW);
    const expectedHash = hashTypedData({ domain: settlementV2Domain(chain), types: ORDER_TYPES, primaryType: 'Order', message: toSettlementV2Order(body) });
    const address = privateKeyToAccount(key).address;
    for (const pure of [false, true]) {
      assert.equal(orderHash(body, chain, { pure }), expectedHash);
      assert.equal(recoverOrderSigner(body, chain, { pure }), address);
      assert.deepEqual(recoverOrder(body, chain, { pure }), { hash: expectedHash, signer: address });
    }
  }
});

test('an order signed by viem recovers to its signer; the wrong chain or a changed field does not', async () => {
  const acct = privateKeyToAccount(TEST_KEYS[1]);
  const unsigned = {
    type: 'limit' as const,
    marketId: MARKET,
    trader: acct.address,
    price: '450000',
    size: '2000000',
    outcomeIndex: 1,
    side: 1,
    nonce: randHex(rng(1), 32),
    expiry: '1900000000',
    maxFee: '9000',
    makerRoleConstraint: 0,
    inventoryModeConstraint: 2,
    timeInForce: 0,
  };
  const signature = await acct.signTypedData({
    domain: settlementV2Domain(MAINNET),
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: toSettlementV2Order(unsigned),
  });
  const body: LimitOrderBody = { ...unsigned, signature };
  assert.equal(recoverOrderSigner(body, MAINNET), acct.address);
  assert.notEqual(recoverOrderSigner(body, TESTNET), acct.address);
  assert.notEqual(recoverOrderSigner({ ...body, price: '450001' }, MAINNET), acct.address);
  // inventoryModeConstraint is not signed as such, but it changes orderKind, so it changes the signer too.
  assert.notEqual(recoverOrderSigner({ ...body, inventoryModeConstraint: 1 }, MAINNET), acct.address);
  // clientOrderType is a label only: not signed.
  assert.equal(recoverOrderSigner({ ...body, clientOrderType: 'market' }, MAINNET), acct.address);
});

test('v as 0/1 is accepted like 27/28', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const body = s.signOrder({ marketId: MARKET, outcomeIndex: 0, side: 0, price: 1, size: 1 }, NOW);
  const v = parseInt(body.signature.slice(130), 16);
  const raw = (body.signature.slice(0, 130) + (v - 27).toString(16).padStart(2, '0')) as Bytes32;
  assert.equal(recoverOrderSigner({ ...body, signature: raw }, MAINNET), s.address);
});

test('malformed signatures are BadInputErrors on "signature", never crashes', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const body = s.signOrder({ marketId: MARKET, outcomeIndex: 0, side: 0, price: 1, size: 1 }, NOW);
  const bad = [
    undefined,
    12,
    '',
    '0x',
    '0x1234',
    body.signature.slice(0, 130),
    body.signature + '00',
    body.signature.replace('0x', '0X'),
    body.signature.slice(0, 130) + '1d', // v = 29
    '0x' + '00'.repeat(64) + '1b', // r = s = 0
    '0x' + 'ff'.repeat(64) + '1b', // r, s above the curve order
    '0x' + 'zz'.repeat(65),
  ];
  for (const pure of [false, true]) {
    for (const sig of bad) {
      assert.throws(
        () => recoverOrderSigner({ ...body, signature: sig } as LimitOrderBody, MAINNET, { pure }),
        (e: unknown) => e instanceof BadInputError && e.field === 'signature',
        String(sig),
      );
    }
  }
  assert.throws(() => recoverDigestSigner(new Uint8Array(32), '0x' + '00'.repeat(64) + '1c'), BadInputError);
});

test('cancel, operator approval, batch withdraw, Permit2 and personal_sign all recover their signer', () => {
  for (const chain of [MAINNET, TESTNET]) {
    for (const pure of [false, true]) {
      const s = createSigner({ privateKey: TEST_KEYS[2], chain, pure });
      const nonce = randHex(rng(5), 32);
      assert.equal(recoverCancelSigner(s.signCancel(nonce), chain, { pure }), s.address);
      assert.notEqual(recoverCancelSigner({ ...s.signCancel(nonce), nonce: randHex(rng(6), 32) }, chain, { pure }), s.address);

      const op = s.signOperatorApproval({ nonce: 3, deadline: 1_900_000_000 });
      assert.equal(recoverOperatorApprovalSigner(op, chain, { pure }), s.address);
      assert.notEqual(recoverOperatorApprovalSigner({ ...op, settlementVersion: 1 }, chain, { pure }), s.address);

      const tokens = [
        { token: chain.usdc, amount: '5000000' },
        { token: randHex(rng(8), 20) as Address, amount: '7' },
      ];
      const to = privateKeyToAccount(TEST_KEYS[0]).address;
      const bw = s.signBatchWithdraw({ to, tokens, nonce: 99n, deadline: 1_900_000_000 });
      assert.equal(
        bw.withdrawsHash,
        keccak256(encodeAbiParameters([{ type: 'address[]' }, { type: 'uint256[]' }], [tokens.map((t) => t.token), tokens.map((t) => BigInt(t.amount))])),
      );
      assert.equal(
        recoverBatchWithdrawSigner({ from: s.address, to, tokens, nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature }, chain, { pure }),
        s.address,
      );
      assert.notEqual(
        recoverBatchWithdrawSigner(
          { from: s.address, to, tokens: tokens.slice(0, 1), nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature },
          chain,
          { pure },
        ),
        s.address,
      );

      const p = s.signPermit2({ amount: 10n, nonce: 1n, deadline: 1_900_000_000 });
      assert.equal(
        recoverPermit2Signer(
          { token: chain.usdc, amount: p.amount, spender: chain.holdingsNew, nonce: p.nonce, deadline: p.deadline, signature: p.signature },
          chain,
          { pure },
        ),
        s.address,
      );

      const m = s.signMigrationAuthorization({ action: 'start', deadline: 1_900_000_000 });
      assert.equal(recoverPersonalMessageSigner(m.message, m.signature, { pure }), s.address);
      assert.notEqual(recoverPersonalMessageSigner(m.message + ' ', m.signature, { pure }), s.address);
    }
  }
});

test('recovery input errors name the field', () => {
  const s = createSigner({ privateKey: TEST_KEYS[2], chain: MAINNET });
  const c = s.signCancel(randHex(rng(5), 32));
  assert.throws(
    () => recoverCancelSigner({ ...c, trader: '0x12' as Address }, MAINNET),
    (e: unknown) => e instanceof BadInputError && e.field === 'trader',
  );
  assert.throws(() => recoverCancelSigner(null as never, MAINNET), BadInputError);
  assert.throws(
    () =>
      recoverBatchWithdrawSigner(
        { from: s.address, to: s.address, tokens: [{ token: '0x1', amount: '1' }], nonce: '1', deadline: '1', signature: c.signature },
        MAINNET,
      ),
    (e: unknown) => e instanceof BadInputError && e.field === 'tokens[0].token',
  );
  assert.throws(
    () => recoverOperatorApprovalSigner({ user: s.address, nonce: 'x', deadline: '1', signature: c.signature }, MAINNET),
    (e: unknown) => e instanceof BadInputError && e.field === 'nonce',
  );
});
