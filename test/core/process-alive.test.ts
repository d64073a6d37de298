/**
 * processAlive (src/core/process-alive.ts), which the admin state and the test cache's lock read a recorded pid
 * with: this process and pid 1 (there in every pid namespace; another user's when the tests do not run as root,
 * EPERM) are alive, a child that has exited is not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { processAlive } from '../../src/core/process-alive.ts';

test('processAlive: this process and pid 1 are alive, an exited child is not', () => {
  assert.equal(processAlive(process.pid), true);
  assert.equal(processAlive(1), true, 'pid 1 (EPERM when not root counts as alive)');
  const gone = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  assert.ok(Number.isSafeInteger(gone) && gone > 1, `the child's pid (${gone})`);
  assert.equal(processAlive(gone), false, 'the exited child');
});
