import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { verifyTypedData } from 'viem';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import { createAheadNonces, invertModN } from '../../../src/exchange/signing/ahead-nonces.ts';
import { nativeEcdsa, pureEcdsa } from '../../../src/exchange/signing/ecdsa.ts';
import { toSettlementV2Order } from '../../../src/exchange/signing/orderMapping.ts';
import { recoverOrderSigner } from '../../../src/exchange/signing/recover.ts';
import { MAINNET, TESTNET } from '../../../src/exchange/chains.ts';
import { MARKET, ORDER_TYPES, TEST_KEYS, randomOrder, rng, settlementV2Domain } from './fixtures.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const NOW = 1_800_000_000;
const HALF_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n >> 1n;
const sOf = (sig: string): bigint => BigInt(`0x${sig.slice(66, 130)}`);

for (const pure of [false, true]) {
  test(`${pure ? 'pure' : 'native'}: orders signed with nonces computed ahead recover to the signer, low-s, and viem verifies them`, async () => {
    const r = rng(7);
    for (const [i, key] of TEST_KEYS.entries()) {
      const chain = i % 2 ? TESTNET : MAINNET;
      const s = createSigner({ privateKey: key, chain, pure });
      const n = pure ? 12 : 60;
      assert.equal(s.precomputeNonces(n), n);
      for (let j = 0; j < n; j++) {
        const body = s.signOrder(randomOrder(r, (j % 3) as 0 | 1 | 2), NOW);
        assert.equal(s.precomputedNonces, n - j - 1, 'one nonce consumed per order');
        assert.equal(recoverOrderSigner(body, chain), s.address);
        assert.ok(sOf(body.signature) <= HALF_N, 'low-s');
        assert.match(body.signature.slice(130), /^1[bc]$/, 'v is 27 or 28');
        if (j < 4) {
          const ok = await verifyTypedData({
            address: s.address,
            domain: settlementV2Domain(chain),
            types: ORDER_TYPES,
            primaryType: 'Order',
            message: toSettlementV2Order(body),
            signature: body.signature,
          });
          assert.ok(ok, `viem verifies order ${j}`);
        }
      }
    }
  });
}

test('a nonce computed ahead is used once: 2,000 signatures, 2,000 distinct r, then RFC 6979 again', () => {
  const s = createSigner({ privateKey: TEST_KEYS[0], chain: TESTNET });
  const plain = createSigner({ privateKey: TEST_KEYS[0], chain: TESTNET });
  s.precomputeNonces(2000);
  const seen = new Set<string>();
  const order = { marketId: MARKET, outcomeIndex: 1 as const, side: 0 as const, price: 500_000, size: 1_000_000 };
  for (let i = 0; i < 2000; i++) seen.add(s.signOrder({ ...order, nonce: `0x${i.toString(16).padStart(64, '0')}` as Bytes32 }, NOW).signature.slice(0, 66));
  assert.equal(seen.size, 2000);
  assert.equal(s.precomputedNonces, 0);
  // the same message twice: different signatures while the pool lasts, RFC 6979's bytes once it is empty
  const fixed = { ...order, nonce: `0x${'5'.repeat(64)}` as Bytes32 };
  s.precomputeNonces(2);
  const a = s.signOrder(fixed, NOW).signature;
  const b = s.signOrder(fixed, NOW).signature;
  assert.notEqual(a, b);
  assert.equal(s.signOrder(fixed, NOW).signature, plain.signOrder(fixed, NOW).signature);
});

test('precomputeNonces tops up to the target, at most max per call; other messages never take one', () => {
  const s = createSigner({ privateKey: TEST_KEYS[1], chain: TESTNET });
  const plain = createSigner({ privateKey: TEST_KEYS[1], chain: TESTNET });
  assert.equal(s.precomputedNonces, 0);
  assert.equal(s.precomputeNonces(10, 4), 4);
  assert.equal(s.precomputeNonces(10, 4), 8);
  assert.equal(s.precomputeNonces(10, 4), 10);
  assert.equal(s.precomputeNonces(5), 10, 'never drops nonces above the target');
  const nonce = `0x${'ab'.repeat(32)}` as Bytes32;
  assert.deepEqual(s.signCancel(nonce), plain.signCancel(nonce));
  assert.equal(s.signMessage('hello'), plain.signMessage('hello'));
  assert.equal(s.precomputedNonces, 10);
  // the pool is internal: nothing of it shows in JSON or inspect output
  assert.doesNotMatch(JSON.stringify(s) + inspect(s, { showHidden: true, depth: 5 }), /kinv|[0-9a-f]{64}/i);
});

test('invertModN gives a⁻¹ mod n: the textbook extended Euclid agrees on 1,000 random scalars and the edges', () => {
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const euclid = (a: bigint): bigint => {
    let r0 = N;
    let r1 = a;
    let t0 = 0n;
    let t1 = 1n;
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1] = [r1, r0 - q * r1];
      [t0, t1] = [t1, t0 - q * t1];
    }
    return t0 < 0n ? t0 + N : t0;
  };
  const r = rng(11);
  const word = (): bigint => {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(Math.floor(r() * 2 ** 32));
    return v;
  };
  const cases = [1n, 2n, 3n, N - 1n, N - 2n, N >> 1n, (N >> 1n) + 1n, 1n << 255n, (1n << 128n) - 1n, 0xffffffffn, 1n << 32n];
  for (let i = 0; i < 1000; i++) cases.push((word() % (N - 1n)) + 1n);
  for (const a of cases) {
    const inv = invertModN(a);
    assert.equal(inv, euclid(a), `a = ${a.toString(16)}`);
    assert.equal((a * inv) % N, 1n);
  }
  assert.throws(() => invertModN(0n), RangeError);
  assert.throws(() => invertModN(N), RangeError);
});

test("each nonce kept ahead owns its r bytes: no 32-byte view of Node's 8 KB buffer pool pins a slab while it waits", () => {
  const key = Buffer.from(TEST_KEYS[0].slice(2), 'hex');
  for (const ecdsa of [pureEcdsa, ...(nativeEcdsa ? [nativeEcdsa] : [])]) {
    const pool = createAheadNonces(ecdsa, key);
    assert.equal(pool.fill(8), 8);
    // sign copies each nonce's r bytes into `out`: the buffer it copies from is the one the pool kept
    const kept: Buffer[] = [];
    const copy = Buffer.prototype.copy;
    const out = Buffer.alloc(64);
    Buffer.prototype.copy = function (this: Buffer, target: Uint8Array, ...rest: number[]) {
      if (target === out) kept.push(this);
      return copy.call(this, target, ...rest);
    } as typeof copy;
    try {
      for (let i = 0; i < 8; i++) assert.ok(pool.sign(Buffer.alloc(32, i + 1), out) >= 0);
    } finally {
      Buffer.prototype.copy = copy;
    }
    assert.equal(kept.length, 8);
    for (const b of kept) {
      assert.equal(b.length, 32);
      // on the old code: Buffer.from(R.subarray(0, 32)), a slice of an 8,192-byte pool slab
      assert.equal(b.buffer.byteLength, 32, 'its own 32 bytes, not a slice of a shared slab');
    }
  }
});
