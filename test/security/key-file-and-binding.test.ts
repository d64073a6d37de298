/**
 * Key files follow PostgreSQL's rule (owner-only 0600/0400, or group-readable 0640/0440 when root owns
 * them, as Kubernetes and Docker secrets mount them); anything wider is refused with a clear message (and
 * never echoed), through the loader and through `bookmaker run --key-file`; the metrics endpoint binds 127.0.0.1 unless a host is configured,
 * so it is not reachable on the machine's other addresses.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { keyFileModeProblem, loadPrivateKey } from '../../src/config/secrets.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { startMetricsEndpoint } from '../../src/metrics/metrics-server.ts';
import { freePort } from '../support/net.ts';
import { cliArgs } from '../support/cli.ts';

const KEY = '0x' + '7a'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'bm-keyfile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(mode: number): string {
  const p = join(dir, `key-${mode.toString(8)}`);
  writeFileSync(p, KEY + '\n');
  chmodSync(p, mode);
  return p;
}

test('port 0 turns the endpoint off', async () => {
  assert.equal(await startMetricsEndpoint({ registry: new Registry(), port: 0 }), null);
});

test('key-file rule: owner-only, or group-readable and owned by root; never world access, group write or execute', () => {
  const ROOT = 0;
  const USER = 1000;
  for (const uid of [ROOT, USER]) {
    assert.equal(keyFileModeProblem(0o600, uid), null);
    assert.equal(keyFileModeProblem(0o400, uid), null);
    assert.equal(keyFileModeProblem(0o200, uid), null);
    for (const mode of [0o644, 0o604, 0o444, 0o606, 0o777, 0o660, 0o620, 0o610, 0o650, 0o700, 0o500]) {
      assert.notEqual(keyFileModeProblem(mode, uid), null, `mode ${mode.toString(8)} owner ${uid}`);
    }
  }
  // Kubernetes (defaultMode 0440 + fsGroup) and Docker/Compose secrets (mode 0440/0640): root-owned, group-readable
  assert.equal(keyFileModeProblem(0o440, ROOT), null);
  assert.equal(keyFileModeProblem(0o640, ROOT), null);
  assert.match(keyFileModeProblem(0o440, USER)!, /not owned by root/);
  assert.match(keyFileModeProblem(0o640, USER)!, /not owned by root/);
  assert.match(keyFileModeProblem(0o444, ROOT)!, /others/); // Docker swarm's default secret mode: refused
  assert.match(keyFileModeProblem(0o644, ROOT)!, /others/); // Kubernetes' default 0644: refused (set defaultMode)
  assert.match(keyFileModeProblem(0o660, ROOT)!, /group can write/);
  assert.equal(keyFileModeProblem(0o100600, USER), null, 'the file-type bits of st_mode are ignored');
});

test('key files: 0600 and 0400 load; world- or group-writable files are refused, naming the fix', { skip: process.platform === 'win32' }, () => {
  assert.equal(loadPrivateKey({ keyFile: keyFile(0o600), env: {} }), KEY);
  assert.equal(loadPrivateKey({ keyFile: keyFile(0o400), env: {} }), KEY);
  for (const mode of [0o644, 0o604, 0o444, 0o660, 0o606, 0o700, 0o610, 0o777]) {
    const p = keyFile(mode);
    assert.throws(
      () => loadPrivateKey({ keyFile: p, env: {} }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.includes(mode.toString(8)) &&
        /too open/.test(e.message) &&
        e.message.includes(`chmod 600 ${p}`) &&
        /0640\/0440/.test(e.message) &&
        !e.message.includes(KEY.slice(2)),
      `mode ${mode.toString(8)}`,
    );
  }
});

test('key files: group-readable 0440/0640 load when root owns them, and are refused when another user does', { skip: process.platform === 'win32' }, () => {
  for (const mode of [0o440, 0o640]) {
    const p = keyFile(mode);
    if (process.getuid?.() === 0) {
      // only root can give a file away: running as root (CI, a container), the test plays both owners
      chownSync(p, 0, 0);
      assert.equal(loadPrivateKey({ keyFile: p, env: {} }), KEY, `root-owned ${mode.toString(8)}`);
      chownSync(p, 4321, 4321);
    }
    // the file is now another user's than root's: ours (not root), or 4321's
    assert.throws(() => loadPrivateKey({ keyFile: p, env: {} }), /too open \(it is group-readable but not owned by root\)/, `user-owned ${mode.toString(8)}`);
  }
});

test('bookmaker run --key-file with mode 0644: exit 2, a clear message, no key material', { skip: process.platform === 'win32' }, () => {
  const p = keyFile(0o644);
  const cfg = join(dir, 'bot.yaml');
  writeFileSync(cfg, 'venue: testnet\nmarkets:\n  - all: true\n');
  const r = spawnSync(process.execPath, cliArgs(['run', '-c', cfg, '--key-file', p, '--api-key', 'k-123456789', '--duration', '1', '--metrics-port', '0']), {
    encoding: 'utf8',
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' },
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /permissions 0644 are too open/);
  assert.ok(!(r.stdout + r.stderr).toLowerCase().includes(KEY.slice(2)), 'no key bytes in the output');
});

test('the metrics endpoint binds 127.0.0.1 by default and is not reachable on other addresses', async () => {
  // port 0 means "off" for the endpoint (docs/architecture.md#stable-interfaces), so take a free port
  const ep = await startMetricsEndpoint({ registry: new Registry(), port: await freePort() });
  assert.ok(ep);
  try {
    const url = new URL(ep.url);
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal((await fetch(`${ep.url}/healthz`)).status, 200);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);
    for (const addr of others) {
      await assert.rejects(fetch(`http://${addr}:${url.port}/healthz`, { signal: AbortSignal.timeout(2_000) }), `reachable on ${addr}`);
    }
  } finally {
    await ep.close();
  }
});

test('a configured host is honoured (the operator opts in explicitly)', async () => {
  const ep = await startMetricsEndpoint({ registry: new Registry(), port: await freePort(), host: '0.0.0.0' });
  assert.ok(ep);
  try {
    assert.equal((await fetch(`http://127.0.0.1:${new URL(ep.url).port}/healthz`)).status, 200);
  } finally {
    await ep.close();
  }
});
