/**
 * The one-run backtest's V8 tiering flag (src/cli/one-run-tiering.ts): set unless node was given an
 * interrupt budget of its own, on its command line or in NODE_OPTIONS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ONE_RUN_INTERRUPT_BUDGET, oneRunTieringFlag } from '../../src/cli/one-run-tiering.ts';

test('a one-run backtest raises the interrupt budget to 8 x V8 default', () => {
  assert.equal(ONE_RUN_INTERRUPT_BUDGET, 540_672);
  assert.equal(oneRunTieringFlag({}, []), '--interrupt-budget=540672');
  assert.equal(oneRunTieringFlag({ NODE_OPTIONS: '--max-old-space-size=2048' }, ['--import', 'tsx']), '--interrupt-budget=540672');
  // names that merely start the same way are not a budget
  assert.equal(oneRunTieringFlag({ NODE_OPTIONS: '--interrupt-budget-factor-for-feedback-allocation=8' }, []), '--interrupt-budget=540672');
});

test("node's own interrupt budget wins, from its command line or NODE_OPTIONS", () => {
  assert.equal(oneRunTieringFlag({}, ['--interrupt-budget=67584']), null);
  assert.equal(oneRunTieringFlag({}, ['--interrupt_budget', '1000']), null);
  assert.equal(oneRunTieringFlag({ NODE_OPTIONS: '--max-old-space-size=512 --interrupt-budget=67584' }, []), null);
});
