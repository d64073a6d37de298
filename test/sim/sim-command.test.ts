/** `bookmaker sim` as a process: prints `listening <base-url>` once ready, serves, saves state on SIGTERM. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiKeyFlag } from '../../src/cli/commands/sim.ts';

test('--api-key KEY[:WALLET[:PERMS]] parsing', () => {
  assert.deepEqual(parseApiKeyFlag('k1'), { key: 'k1' });
  const w = '0x' + 'ab'.repeat(20);
  assert.deepEqual(parseApiKeyFlag(`k2:${w}:read,trade`), { key: 'k2', wallet: w, perms: ['read', 'trade'] });
  assert.deepEqual(parseApiKeyFlag(`k3::read+can_create_markets`), { key: 'k3', perms: ['read', 'can_create_markets'] });
  assert.throws(() => parseApiKeyFlag('k:0x12'), /WALLET/);
  assert.throws(() => parseApiKeyFlag(`k:${w}:fly`), /PERMS/);
});

test('sim prints the listening line, answers, and saves its state file on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
  const state = join(dir, 'state.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sim', '--port', '0', '--seed', '3', '--no-agents', '--api-key', 'cli-key', '--state', state, '--faults', 'off'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  try {
    let out = '';
    const base = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no listening line; stdout: ${out}`)), 15_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^listening (http:\/\/127\.0\.0\.1:\d+\/v2)$/m.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    assert.doesNotMatch(out, /demo-key/, 'no demo keys when keys are given');
    const r = await fetch(`${base}/orders`, { headers: { authorization: 'Bearer cli-key' } });
    assert.equal(r.status, 200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(existsSync(state), 'state saved on SIGTERM');
    // the old profile name still works, and says which name replaces it
    assert.match(err, /sim: warning: --faults fault profile 'off' is deprecated: use 'none'/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sim --faults: an unknown or retired profile exits 2 naming the profiles', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sim', '--port', '0', '--faults', 'light'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 2);
  assert.match(err, /--faults: expected one of none, latency, slow, flaky, streams, mixed, heavy \('light' is not a profile/);
});
