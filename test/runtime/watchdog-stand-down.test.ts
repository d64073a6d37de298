/**
 * The watchdog stands down once a stop has cancelled every order (src/runtime/phases/shutdown.ts calls
 * standDown): a loop blocked past the limit after that (the ledger's last writes, the report, a long garbage
 * collection on a starved machine) ends the process as it would have ended, not with exit 5. A child process
 * blocks its loop for 3 s against a 200 ms limit: without the stand-down the watchdog ends it with 5 (the rig
 * trips it), with it the child ends by itself with 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const CHILD = new URL('../support/watchdog-block-child.ts', import.meta.url).pathname;

function runChild(standDown: boolean): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, STAND_DOWN: standDown ? '1' : '0', BLOCK_LIMIT_MS: '200', BLOCK_MS: '3000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (b: Buffer) => (out += b.toString()));
  p.stderr.on('data', (b: Buffer) => (out += b.toString()));
  // a bound for a hang only
  const guard = setTimeout(() => p.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    p.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, out });
    }),
  );
}

test('a watchdog stood down does not end a blocked process with exit 5; one armed does', async () => {
  const armed = await runChild(false);
  assert.equal(armed.code, 5, `the rig trips an armed watchdog:\n${armed.out}`);
  const stood = await runChild(true);
  assert.equal(stood.code, 0, stood.out);
  assert.match(stood.out, /ended by itself/);
});
