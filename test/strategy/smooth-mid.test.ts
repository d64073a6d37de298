/** src/strategy/smooth-mid.ts: the EWMA over ticks, its restarts (a jump, the clock going back, a stale market). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STALE_MS, type SmoothMidMemory, smoothMid } from '../../src/strategy/smooth-mid.ts';

test('smoothMid moves 1 − e^(−dt/τ) of the way to the mid, restarts at a jump, a clock gone back or a stale market', () => {
  const m = new Map<string, SmoothMidMemory>();
  assert.equal(smoothMid(m, 'a', 1_000, 75_000, 1, 15_000), 75_000, 'the first tick starts at the mid');
  const one = smoothMid(m, 'a', 2_000, 80_000, 1, 15_000);
  assert.ok(Math.abs(one - (75_000 + (1 - Math.exp(-1)) * 5_000)) < 1e-6);
  assert.equal(smoothMid(m, 'a', 2_000, 80_000, 1, 15_000), one, 'the same instant again: unchanged');
  assert.equal(smoothMid(m, 'b', 2_000, 500_000, 1, 15_000), 500_000, 'each market its own');
  assert.equal(smoothMid(m, 'a', 2_500, 100_000, 1, 15_000), 100_000, 'a move beyond the jump restarts');
  assert.equal(smoothMid(m, 'a', 1_000, 90_000, 1, 15_000), 90_000, 'the clock gone back (a new run) restarts');
  assert.equal(smoothMid(m, 'a', 1_000 + STALE_MS + 1, 95_000, 1, 15_000), 95_000, 'a stale market restarts');
  assert.equal(smoothMid(m, 'a', 40_000, 96_000, 0, 15_000), 96_000, 'τ 0: the mid itself');
});
