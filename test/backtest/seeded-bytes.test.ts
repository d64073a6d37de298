import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededBytes } from '../../src/backtest/run-backtest.ts';
import { createRng } from '../../src/sim/rng.ts';

test("the backtest's nonce bytes are the seeded generator's, floor(next() * 256) each, whatever the seed", () => {
  for (const seed of [0, 1, 7, 0x5eed, -3, 2 ** 31 + 5]) {
    const rng = createRng(seed ^ 0x5eed);
    const bytes = seededBytes(seed);
    for (let k = 0; k < 200; k++) {
      const b = bytes(32);
      assert.equal(b.length, 32);
      for (let i = 0; i < 32; i++) assert.equal(b[i], Math.floor(rng.next() * 256), `seed ${seed}, nonce ${k}, byte ${i}`);
    }
  }
});

test('a request for another length gets that many bytes, from the same stream', () => {
  const rng = createRng(9 ^ 0x5eed);
  const bytes = seededBytes(9);
  for (const n of [32, 5, 40, 32]) {
    const b = bytes(n);
    assert.equal(b.length, n);
    for (let i = 0; i < n; i++) assert.equal(b[i], Math.floor(rng.next() * 256));
  }
});
