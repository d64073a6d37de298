import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NONCE_MEMORY, NonceSource } from '../../src/orders/nonces.ts';
import { liveHeap } from '../support/retained-heap.ts';
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

test('a nonce remembered is refused for as long as the window holds it, and only forgotten past it', () => {
  const src = new NonceSource(100);
  const first = src.next();
  for (let i = 0; i < 99; i++) src.next();
  assert.throws(() => src.remember(first), /nonce reused/, 'the 100th nonce before still counts');
  src.next(); // the window moves on by one: the first is the one dropped
  assert.equal(src.has(first), false);
  src.remember(first);
  assert.equal(src.has(first), true);
  // adopted nonces of any form are remembered as they are written
  src.remember('0xABC' as never);
  assert.throws(() => src.remember('0xABC' as never), /nonce reused/);
});

test('the window of nonces is allocated at the start: issuing past it retains no more memory', () => {
  const src = new NonceSource(NONCE_MEMORY, undefined, '0123456789abcdef');
  for (let i = 0; i < 10; i++) src.next();
  const start = liveHeap();
  for (let i = 0; i < 3 * NONCE_MEMORY; i++) src.next();
  const grown = liveHeap() - start;
  assert.equal(src.has(src.next()), true);
  // a Set of the nonces' strings grew by ~1.3 MB until the window was full
  assert.ok(grown < 150_000, `retained ${grown} bytes more after ${3 * NONCE_MEMORY} nonces`);
});

test('every nonce issued is in the memory as its text reads (the words it was written from are its own): has() knows it, remember() refuses it', () => {
  // the memory takes a fresh nonce's words from the bytes it was written from (Bytes32Window.addWords),
  // not from its text: a word written wrong would leave has() and remember() blind to the nonce
  // a xorshift byte stream (every byte value, high bits included: words that read negative as int32)
  let x = 0x9e3779b9;
  const bytes = (n: number): Uint8Array =>
    Uint8Array.from({ length: n }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 24;
    });
  const sources = [
    new NonceSource(),
    new NonceSource(undefined, undefined, 'fedcba9876543210'),
    new NonceSource(1_000, bytes),
    new NonceSource(1_000, bytes, '8000000000000001'),
  ];
  for (const src of sources) {
    for (let i = 0; i < 300; i++) {
      const n = src.next();
      assert.equal(src.has(n), true, n);
      assert.throws(() => src.remember(n), /nonce reused/, n);
    }
  }
});
