import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OperatorHold } from '../../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { applyHolds } from '../../../src/runtime/phases/holds.ts';
import { OperatorView } from '../../../src/runtime/phases/operator-view.ts';

const A = ('0x' + 'ab'.repeat(32)) as Bytes32;
const B = ('0x' + 'cd'.repeat(32)) as Bytes32;
const hold: OperatorHold = { reason: 'manual', at: 1, source: 'admin' };

test("the ledger's halt and pauses hold the kernel again", () => {
  const paused: (Bytes32 | null)[] = [];
  const kernel = { pause: (m: Bytes32 | null) => void paused.push(m) };
  applyHolds(
    kernel,
    {
      halt: hold,
      pauses: new Map([
        [A, hold],
        [('0x' + 'ee'.repeat(32)) as Bytes32, hold],
      ]),
    },
    [A, B],
  );
  assert.deepEqual(paused, [null, A], 'the halt, then the quoted market held paused (a market not quoted stays in the ledger only)');
  paused.length = 0;
  applyHolds(kernel, { halt: null, pauses: new Map() }, [A, B]);
  assert.deepEqual(paused, []);
});

test('the operator view answers nothing held, then the ledger holds, then the control', () => {
  const view = new OperatorView();
  const { heldPause, reasons } = view; // the kernel keeps the function it was built with
  assert.equal(heldPause(A), false);
  assert.deepEqual(reasons(), []);
  view.use({ isHeldPause: (id) => id === A, readinessReasons: () => ['halted by the operator'] });
  assert.equal(heldPause(A), true);
  assert.equal(heldPause(B), false);
  assert.deepEqual(reasons(), ['halted by the operator']);
  view.use({ isHeldPause: () => false, readinessReasons: () => [] });
  assert.equal(heldPause(A), false);
});
