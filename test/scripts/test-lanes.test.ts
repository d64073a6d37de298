/**
 * The test runner's choice of the next file (scripts/test-lanes.mjs): a CPU budget, not a file count. Two busy
 * files run alone as before; a file that mostly waits starts beside them; the longest that fits goes first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: a plain JavaScript module of the test runner (no declarations)
import { nextToStart } from '../../scripts/test-lanes.mjs';

const shares: Record<string, number> = { soak: 0.25, churn: 0.15, readme: 0.75, busy: 1, image: 1.5, small: 0.9 };
const share = (f: string): number => shares[f]!;
const next = (queue: string[], running: number[], budget = 2, maxFiles = 4): string | null => {
  const i = nextToStart(queue, running, share, budget, maxFiles) as number;
  return i < 0 ? null : queue[i]!;
};

test('while fewer files than the budget run, the next in line starts, whatever it costs', () => {
  assert.equal(next(['image', 'soak'], []), 'image');
  assert.equal(next(['image', 'soak'], [1.5]), 'image');
  assert.equal(next(['busy'], [1], 1), null, 'a budget of one core: one busy file at a time');
  assert.equal(next([], []), null, 'nothing left');
});

test('two busy files run alone: the next waits, even a small one that would overflow the budget', () => {
  assert.equal(next(['busy', 'small'], [1, 1]), null);
  assert.equal(next(['small'], [1, 0.9]), null);
});

test('a waiting file starts beside busy ones when the shares fit; the longest that fits goes first', () => {
  assert.equal(next(['busy', 'soak', 'churn'], [1, 0.75]), 'soak', 'busy does not fit beside 1.75; soak does');
  assert.equal(next(['readme', 'soak'], [0.15, 1]), 'readme', '0.15 + 1 + 0.75 = 1.9 fits');
  assert.equal(next(['soak'], [0.9, 0.9]), null, '0.9 + 0.9 + 0.25 is past 2');
});

test('never more files than maxFiles, however little they cost', () => {
  assert.equal(next(['churn'], [0.15, 0.15, 0.15, 0.15]), null);
  assert.equal(next(['churn'], [0.15, 0.15, 0.15]), 'churn');
  assert.equal(next(['churn'], [0.15, 0.15], 2, 2), null, 'BOOKMAKER_TEST_MAX_FILES=2: two at once, as before');
});
