import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NonceSource } from '../../src/orders/nonces.ts';
import { InvariantError } from '../../src/model/errors.ts';

test('the default source hands out distinct 32-byte nonces across pool refills', () => {
  const src = new NonceSource();
  const seen = new Set<string>();
  // 128 nonces per pool: 1,000 cross several refills
  for (let i = 0; i < 1_000; i++) {
    const n = src.next();
    assert.match(n, /^0x[0-9a-f]{64}$/);
    seen.add(n);
  }
  assert.equal(seen.size, 1_000);
});

test('an injected source is used as is (backtests replay seeded nonces)', () => {
  let k = 0;
  const src = new NonceSource(10, (n) => new Uint8Array(n).fill(++k));
  assert.equal(src.next(), '0x' + '01'.repeat(32));
  assert.equal(src.next(), '0x' + '02'.repeat(32));
});

test('an injected source may hand out views into one scratch array: each nonce is read from the view at once', () => {
  const scratch = new Uint8Array(64);
  let k = 0;
  const src = new NonceSource(10, (n) => {
    scratch.fill(0xee);
    return scratch.subarray(16, 16 + n).fill(++k);
  });
  assert.equal(src.next(), '0x' + '01'.repeat(32));
  assert.equal(src.next(), '0x' + '02'.repeat(32));
});

test('a source repeating itself is an invariant error, not a reused nonce', () => {
  const src = new NonceSource(10, (n) => new Uint8Array(n).fill(7));
  src.next();
  assert.throws(() => src.next(), InvariantError);
});

test('with a ledger tag every nonce begins with it and keeps 24 fresh bytes; a malformed tag is refused', () => {
  const tag = '0123456789abcdef';
  const src = new NonceSource(undefined, undefined, tag);
  const seen = new Set<string>();
  for (let i = 0; i < 300; i++) {
    const n = src.next();
    assert.match(n, /^0x0123456789abcdef[0-9a-f]{48}$/);
    seen.add(n.slice(18));
  }
  assert.equal(seen.size, 300, 'the random part differs nonce to nonce');
  assert.throws(() => new NonceSource(undefined, undefined, '0123'), InvariantError);
  assert.throws(() => new NonceSource(undefined, undefined, '0123456789ABCDEF'), InvariantError);
});
