/**
 * Key files wider than 0600 are refused with a clear message (and never echoed), through the loader and
 * through `bookmaker run --key-file`; the metrics endpoint binds 127.0.0.1 unless a host is configured,
 * so it is not reachable on the machine's other addresses.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { loadPrivateKey } from '../../src/config/secrets.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { startMetricsEndpoint } from '../../src/metrics/metrics-server.ts';

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

test('key files: 0600 and 0400 load; anything group- or world-accessible is refused, naming the fix', { skip: process.platform === 'win32' }, () => {
  assert.equal(loadPrivateKey({ keyFile: keyFile(0o600), env: {} }), KEY);
  assert.equal(loadPrivateKey({ keyFile: keyFile(0o400), env: {} }), KEY);
  for (const mode of [0o644, 0o640, 0o604, 0o660, 0o606, 0o700, 0o610, 0o777]) {
    const p = keyFile(mode);
    assert.throws(
      () => loadPrivateKey({ keyFile: p, env: {} }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(mode.toString(8)) && /too open/.test(e.message) && e.message.includes(`chmod 600 ${p}`) && !e.message.includes(KEY.slice(2)),
      `mode ${mode.toString(8)}`,
    );
  }
});

test('bookmaker run --key-file with mode 0644: exit 2, a clear message, no key material', { skip: process.platform === 'win32' }, () => {
  const p = keyFile(0o644);
  const cfg = join(dir, 'bot.yaml');
  writeFileSync(cfg, 'venue: testnet\nmarkets:\n  - all: true\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '-c', cfg, '--key-file', p, '--api-key', 'k-123456789', '--duration', '1', '--metrics-port', '0'], {
    encoding: 'utf8',
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' },
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /permissions 0644 are too open/);
  assert.ok(!(r.stdout + r.stderr).toLowerCase().includes(KEY.slice(2)), 'no key bytes in the output');
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

test('the metrics endpoint binds 127.0.0.1 by default and is not reachable on other addresses', async () => {
  // port 0 means "off" for the endpoint (design.md §8), so take a free port
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
