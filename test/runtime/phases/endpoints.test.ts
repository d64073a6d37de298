import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readyChecks } from '../../../src/runtime/phases/endpoints.ts';

const ok = { reconciled: true, notHalted: true };
const running = { process: 'running', reasons: [] as string[] };
const free = { halted: false, paused: 0 };

test('/readyz is ready only when every check passes', () => {
  const c = readyChecks(ok, running, free, null);
  assert.ok(Object.values(c).every(Boolean), JSON.stringify(c));
  assert.deepEqual(Object.keys(c), ['reconciled', 'notHalted', 'running', 'marketsQuoting', 'notPaused', 'booksAgree', 'ledgerWritable']);
});

test('each cause of not ready fails its own check, and only it', () => {
  const failing = (c: Record<string, boolean>): string[] => Object.keys(c).filter((k) => !c[k]);
  assert.deepEqual(failing(readyChecks({ ...ok, reconciled: false }, running, free, null)), ['reconciled']);
  assert.deepEqual(failing(readyChecks(ok, running, { halted: true, paused: 0 }, null)), ['notHalted'], "an operator's halt");
  assert.deepEqual(failing(readyChecks(ok, running, { halted: false, paused: 2 }, null)), ['notPaused']);
  assert.deepEqual(failing(readyChecks(ok, { process: 'halted', reasons: [] }, free, null)), ['notHalted'], 'halted is a running state, not ready');
  assert.deepEqual(failing(readyChecks(ok, { process: 'starting', reasons: [] }, free, null)), ['running']);
  assert.deepEqual(failing(readyChecks(ok, { process: 'running', reasons: ['market M1: not quoting for 40 s: stale-book (x)'] }, free, null)), [
    'marketsQuoting',
  ]);
  assert.deepEqual(failing(readyChecks(ok, { process: 'running', reasons: ['books-drift for 90 s: yes 3'] }, free, null)), ['booksAgree']);
  assert.deepEqual(failing(readyChecks(ok, running, free, 'disk full')), ['ledgerWritable']);
  // a latch of an earlier run is its own named check, as docs/books-limits-control.md says
  assert.deepEqual(failing(readyChecks({ ...ok, killSwitchClear: false }, running, free, null)), ['killSwitchClear']);
  assert.equal(readyChecks({ ...ok, killSwitchClear: true }, running, free, null).killSwitchClear, true);
});
