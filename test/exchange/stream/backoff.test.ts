import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from '../../../src/exchange/stream/backoff.ts';

const policy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 };

test('grows exponentially up to the cap', () => {
  const noJitter = { ...policy, jitter: 0 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 100, 10_000].map((n) => backoffDelay(n, noJitter)),
    [100, 200, 400, 800, 1000, 1000, 1000],
  );
});

test('jitter removes up to its fraction of the delay', () => {
  assert.equal(
    backoffDelay(3, policy, () => 0),
    400,
  );
  assert.equal(
    backoffDelay(3, policy, () => 0.999999),
    200,
  );
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(2, policy);
    assert.ok(d >= 100 && d <= 200, String(d));
  }
});

test('attempt below 1 is treated as the first', () => {
  assert.equal(backoffDelay(0, { ...policy, jitter: 0 }), 100);
});
