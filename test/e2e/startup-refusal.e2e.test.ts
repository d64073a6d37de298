/**
 * An API key the venue refuses (401) at start-up is the same halt as a refusal of every create
 *: exit 4 with the cause and the fix, and the key never appears in the output. (Before:
 * exit 1, "unexpected error".)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cli, withTimeout } from './harness.ts';
import { startSimProcess, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
before(async () => {
  sim = await startSimProcess(6);
});
after(async () => {
  await sim?.close();
});

test('a 401 at start-up: exit 4, cause and fix, no key in the output', { timeout: 90_000 }, async () => {
  const badKey = 'not-a-key-of-this-venue-5f2c';
  const c = cli(['run', '-c', 'config/local.yaml', '--base-url', sim.baseUrl, '--api-key', badKey, '--metrics-port', '0', '--summary-seconds', '0'], {
    BOOKMAKER_PRIVATE_KEY: sim.privateKey,
  });
  try {
    const code = await withTimeout(c.exit, 60_000, 'the bot did not halt by itself');
    const out = c.out();
    assert.equal(code, 4, out);
    assert.match(out, /401/);
    assert.match(out, /halted at start-up: the venue refuses this API key\. Fix: pass the API key/);
    assert.ok(!out.includes(badKey), 'the refused key is not echoed');
    assert.ok(!out.includes(sim.privateKey.slice(2)), 'nor the private key');
  } finally {
    c.proc.kill('SIGKILL');
  }
});
