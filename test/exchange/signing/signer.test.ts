import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { encodeAbiParameters, keccak256, type Hex, type TypedData, type TypedDataDomain } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import { toSettlementV2Order } from '../../../src/exchange/signing/orderMapping.ts';
import { nativeEcdsa } from '../../../src/exchange/signing/ecdsa.ts';
import { nativeKeccak256 } from '../../../src/exchange/signing/keccak.ts';
import { MAINNET, TESTNET } from '../../../src/exchange/chains.ts';
import { BadInputError, BookmakerError } from '../../../src/model/errors.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import {
  BATCH_WITHDRAW_TYPES,
  CANCEL_TYPES,
  MARKET,
  OPERATOR_APPROVAL_TYPES,
  ORDER_TYPES,
  PERMIT2_TYPES,
  TEST_KEYS,
  holdingsLegacyDomain,
  holdingsNewDomain,
  permit2Domain,
  randHex,
  randInt,
  randomOrder,
  rng,
  settlementV2Domain,
} from './fixtures.ts';

const NOW = 1_800_000_000;

/** The signature viem gives for this typed data: the reference every signature here is checked against. */
function viemSigns(acct: PrivateKeyAccount, domain: TypedDataDomain, types: TypedData, primaryType: string, message: Record<string, unknown>): Promise<Hex> {
  return acct.signTypedData({ domain, types, primaryType, message } as never);
}

test('the native add-ons load on this machine (the fast path is really in use)', () => {
  assert.ok(nativeKeccak256, 'native keccak did not load');
  assert.ok(nativeEcdsa, 'native secp256k1 did not load');
  assert.deepEqual(createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET }).backend, { keccak: 'native', secp256k1: 'native' });
  assert.deepEqual(createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET, pure: true }).backend, { keccak: 'pure', secp256k1: 'pure' });
});

test('BOOKMAKER_PURE_JS=1 forces the pure path; an explicit argument wins over it', () => {
  const prev = process.env.BOOKMAKER_PURE_JS;
  process.env.BOOKMAKER_PURE_JS = '1';
  try {
    assert.equal(createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET }).backend.secp256k1, 'pure');
    assert.equal(createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET, pure: false }).backend.secp256k1, 'native');
  } finally {
    if (prev === undefined) delete process.env.BOOKMAKER_PURE_JS;
    else process.env.BOOKMAKER_PURE_JS = prev;
  }
});

test('addresses match viem for every test key', () => {
  for (const k of TEST_KEYS) {
    assert.equal(createSigner({ privateKey: k, chain: MAINNET }).address, privateKeyToAccount(k).address);
    assert.equal(createSigner({ privateKey: k.slice(2), chain: TESTNET, pure: true }).address, privateKeyToAccount(k).address);
  }
});

test('480 random V2 orders (3 kinds, 2 chains, 4 keys): native and pure signatures are byte-identical to viem signTypedData', async () => {
  const r = rng(42);
  const signers = new Map<string, { native: ReturnType<typeof createSigner>; pure: ReturnType<typeof createSigner> }>();
  for (let i = 0; i < 480; i++) {
    const key = TEST_KEYS[i % TEST_KEYS.length]!;
    const chain = (i >> 2) % 2 ? TESTNET : MAINNET;
    const id = `${key}:${chain.name}`;
    if (!signers.has(id)) signers.set(id, { native: createSigner({ privateKey: key, chain }), pure: createSigner({ privateKey: key, chain, pure: true }) });
    const s = signers.get(id)!;
    const order = randomOrder(r, (i % 3) as 0 | 1 | 2);
    const a = s.native.signOrder(order, NOW);
    const b = s.pure.signOrder(order, NOW);
    const expected = await privateKeyToAccount(key).signTypedData({
      domain: settlementV2Domain(chain),
      types: ORDER_TYPES,
      primaryType: 'Order',
      message: toSettlementV2Order(a),
    });
    assert.equal(a.signature, expected, `order ${i} native`);
    assert.equal(b.signature, expected, `order ${i} pure`);
    assert.deepEqual(b, a);
  }
});

test('market orders are signed as IOC limits with clientOrderType "market"', async () => {
  const s = createSigner({ privateKey: TEST_KEYS[1], chain: TESTNET });
  const body = s.signMarketOrder({ marketId: MARKET, outcomeIndex: 1, side: 0, maxPrice: 370_000, buyValue: 25_000_000 }, NOW);
  assert.equal(body.timeInForce, 1);
  assert.equal(body.clientOrderType, 'market');
  assert.equal(body.size, '67567567');
  assert.equal(body.buyValue, '25000000');
  const expected = await privateKeyToAccount(TEST_KEYS[1]).signTypedData({
    domain: settlementV2Domain(TESTNET),
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: toSettlementV2Order(body),
  });
  assert.equal(body.signature, expected);
});

test('default nonces are fresh bytes32 values, never repeated', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const b = s.signOrder({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 500_000, size: 1_000_000 }, NOW);
    assert.match(b.nonce, /^0x[0-9a-f]{64}$/);
    assert.ok(!seen.has(b.nonce));
    seen.add(b.nonce);
  }
});

test('cancels match viem on both chains and both backends', async () => {
  const r = rng(3);
  for (let i = 0; i < 40; i++) {
    const key = TEST_KEYS[i % TEST_KEYS.length]!;
    const chain = i % 2 ? TESTNET : MAINNET;
    const nonce = randHex(r, 32) as Bytes32;
    const acct = privateKeyToAccount(key);
    const expected = await viemSigns(acct, settlementV2Domain(chain), CANCEL_TYPES, 'CancelNonce', { trader: acct.address, nonce });
    for (const pure of [false, true]) {
      const c = createSigner({ privateKey: key, chain, pure }).signCancel(nonce);
      assert.deepEqual(c, { trader: acct.address, nonce, signature: expected });
    }
  }
});

test('operator approvals: V2 on the new Holdings domain, V1 on the legacy one, as viem signs them', async () => {
  for (const chain of [MAINNET, TESTNET]) {
    for (const pure of [false, true]) {
      const acct = privateKeyToAccount(TEST_KEYS[0]);
      // viem's signature of the approval of `operator` by this account
      const viemApproval = (domain: TypedDataDomain, operator: string, approved: boolean, nonce: bigint, deadline: bigint) =>
        viemSigns(acct, domain, OPERATOR_APPROVAL_TYPES, 'OperatorApproval', { user: acct.address, operator, approved, nonce, deadline });
      const s = createSigner({ privateKey: TEST_KEYS[0], chain, pure });
      const v2 = s.signOperatorApproval({ nonce: '7', deadline: 1_900_000_000 });
      assert.deepEqual(
        { ...v2, signature: undefined },
        { user: acct.address, settlementVersion: 2, approved: true, nonce: '7', deadline: '1900000000', signature: undefined },
      );
      assert.equal(v2.signature, await viemApproval(holdingsNewDomain(chain), chain.settlementV2, true, 7n, 1_900_000_000n));
      const v1 = s.signOperatorApproval({ nonce: 0, approved: false, settlementVersion: 1 }, NOW);
      assert.equal(v1.deadline, String(NOW + 3600));
      assert.equal(v1.signature, await viemApproval(holdingsLegacyDomain(chain), chain.settlementV1, false, 0n, BigInt(NOW + 3600)));
    }
  }
});

test('batch withdraw: withdrawsHash is keccak(abi.encode(address[], uint256[])) and the signature matches viem', async () => {
  const r = rng(11);
  for (let n = 1; n <= 4; n++) {
    const tokens = Array.from({ length: n }, () => ({ token: randHex(r, 20) as Address, amount: BigInt(randInt(r, 0, 2 ** 31)) * 10n ** 20n }));
    const wh = keccak256(encodeAbiParameters([{ type: 'address[]' }, { type: 'uint256[]' }], [tokens.map((t) => t.token), tokens.map((t) => t.amount)]));
    const to = privateKeyToAccount(TEST_KEYS[2]).address;
    for (const pure of [false, true]) {
      const chain = n % 2 ? MAINNET : TESTNET;
      const s = createSigner({ privateKey: TEST_KEYS[1], chain, pure });
      const out = s.signBatchWithdraw({ to, tokens, nonce: (1n << 127n) + BigInt(n), deadline: 1_900_000_000 });
      assert.equal(out.withdrawsHash, wh);
      const acct = privateKeyToAccount(TEST_KEYS[1]);
      assert.equal(
        out.signature,
        await viemSigns(acct, holdingsLegacyDomain(chain), BATCH_WITHDRAW_TYPES, 'BatchWithdraw', {
          from: acct.address,
          to,
          withdrawsHash: wh,
          nonce: (1n << 127n) + BigInt(n),
          deadline: 1_900_000_000n,
        }),
      );
    }
  }
  const s = createSigner({ privateKey: TEST_KEYS[1], chain: MAINNET });
  const d = s.signBatchWithdraw({ to: s.address, tokens: [{ token: MAINNET.usdc, amount: '1' }] }, NOW);
  assert.ok(BigInt(d.nonce) < 1n << 128n, 'default nonce is a uint128');
  assert.equal(d.deadline, String(NOW + 3600));
});

test('Permit2 PermitTransferFrom (domain without version) matches viem', async () => {
  for (const chain of [MAINNET, TESTNET]) {
    for (const pure of [false, true]) {
      const acct = privateKeyToAccount(TEST_KEYS[3]);
      const s = createSigner({ privateKey: TEST_KEYS[3], chain, pure });
      const p = s.signPermit2({ amount: '123456789', nonce: 42n, deadline: 1_900_000_000 });
      assert.equal(p.user, acct.address);
      assert.equal(
        p.signature,
        await viemSigns(acct, permit2Domain(chain), PERMIT2_TYPES, 'PermitTransferFrom', {
          permitted: { token: chain.usdc, amount: 123_456_789n },
          spender: chain.holdingsNew,
          nonce: 42n,
          deadline: 1_900_000_000n,
        }),
      );
    }
  }
});

test('migration authorization: exact five lines, personal_sign identical to viem signMessage', async () => {
  const acct = privateKeyToAccount(TEST_KEYS[0]);
  for (const pure of [false, true]) {
    const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET, pure });
    const a = s.signMigrationAuthorization({ action: 'dismiss-orders', legacyOrderIds: [30, 4, 112], deadline: 1_900_000_000 });
    assert.equal(
      a.message,
      [
        'Context public API migration authorization',
        'Action: dismiss-orders',
        `Wallet: ${acct.address.toLowerCase()}`,
        'Legacy order ids: 4,30,112',
        'Deadline: 1900000000',
      ].join('\n'),
    );
    assert.equal(a.signature, await acct.signMessage({ message: a.message }));
    const b = s.signMigrationAuthorization({ action: 'start' }, NOW);
    assert.ok(b.message.endsWith(`Legacy order ids: all\nDeadline: ${NOW + 3600}`));
    assert.equal(b.deadline, String(NOW + 3600));
    assert.equal(s.signMessage('héllo ✓'), await acct.signMessage({ message: 'héllo ✓' }));
  }
});

test('the private key is never exposed by the signer object', () => {
  const key = TEST_KEYS[0];
  const s = createSigner({ privateKey: key, chain: MAINNET });
  const hexBody = key.slice(2);
  const views = [JSON.stringify(s), inspect(s, { showHidden: true, depth: 5 }), String(Object.keys(s)), JSON.stringify(Object.getOwnPropertyNames(s))];
  for (const v of views) assert.ok(!v.includes(hexBody), v);
  for (const name of Reflect.ownKeys(s)) {
    const v = (s as unknown as Record<PropertyKey, unknown>)[name];
    if (typeof v === 'string') assert.ok(!v.includes(hexBody));
  }
  assert.ok(Object.isFrozen(s));
  assert.match(JSON.stringify(s), /"address":"0x/);
});

test('bad keys are ConfigErrors whose messages do not contain the key', () => {
  const bad = ['0x1234', 'not a key', '0x' + '00'.repeat(32), '0x' + 'ff'.repeat(32), '0x' + 'zz'.repeat(32)];
  for (const k of bad) {
    assert.throws(
      () => createSigner({ privateKey: k, chain: MAINNET }),
      (e: unknown) => e instanceof BookmakerError && e.code === 'CONFIG' && !e.message.includes(k.slice(2)),
      k,
    );
  }
});

test('bad orders are refused before signing, with the field named', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const good = { marketId: MARKET, outcomeIndex: 1 as const, side: 0 as const, price: 500_000, size: 1_000_000 };
  const cases: [string, Record<string, unknown>][] = [
    ['marketId', { marketId: '0x12' }],
    ['marketId', { marketId: MARKET.slice(0, 65) + 'g' }],
    ['outcomeIndex', { outcomeIndex: 2 }],
    ['side', { side: 'buy' }],
    ['price', { price: 0 }],
    ['price', { price: 1_000_000 }],
    ['price', { price: 0.5 }],
    ['price', { price: -1 }],
    ['size', { size: 0 }],
    ['size', { size: -3 }],
    ['size', { size: 1.5 }],
    ['size', { size: 2 ** 60 }],
    ['inventoryMode', { inventoryMode: 3 }],
    ['makerRole', { makerRole: 1 }],
    ['makerRole', { makerRole: 5 }],
    ['timeInForce', { timeInForce: 9 }],
    ['buyValue', { buyValue: -1 }],
    ['buyValue', { side: 1, buyValue: 100 }],
    ['maxFee', { maxFee: 1.1 }],
    ['expiry', { expiry: -1 }],
    ['nonce', { nonce: '0x00' }],
    ['clientOrderType', { clientOrderType: 'stop' }],
  ];
  for (const [field, patch] of cases) {
    assert.throws(
      () => s.signOrder({ ...good, ...patch } as never, NOW),
      (e: unknown) => e instanceof BadInputError && e.field === field,
      `${field} ${JSON.stringify(patch)}`,
    );
  }
  assert.throws(
    () => s.signCancel('0x1' as Bytes32),
    (e: unknown) => e instanceof BadInputError && e.field === 'nonce',
  );
  assert.throws(
    () => s.signOperatorApproval({ nonce: -1 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'nonce',
  );
  assert.throws(
    () => s.signBatchWithdraw({ to: s.address, tokens: [] }),
    (e: unknown) => e instanceof BadInputError && e.field === 'tokens',
  );
  assert.throws(
    () => s.signPermit2({ amount: '1', spender: '0xAbcdefabcdefabcdefabcdefabcdefabcdefabcd' as Address }),
    (e: unknown) => e instanceof BadInputError && e.field === 'spender',
  );
  assert.throws(
    () => s.signOrderBody({ ...s.signOrder(good, NOW), trader: MAINNET.usdc }),
    (e: unknown) => e instanceof BadInputError && e.field === 'trader',
  );
});
