import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApiKey, loadPrivateKey } from '../../src/config/secrets.ts';
import { scrubSecrets } from '../../src/core/logger.ts';
import { BookmakerError, ConfigError } from '../../src/model/errors.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { cliArgs } from '../support/cli.ts';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const dir = mkdtempSync(join(tmpdir(), 'bookmaker-secrets-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, content: string, mode: number): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  chmodSync(p, mode);
  return p;
}

const noKeyIn = (k: string) => (e: unknown) => e instanceof BookmakerError && e.code === 'CONFIG' && !e.message.includes(k.replace(/^0x/, '').slice(0, 16));

test('from BOOKMAKER_PRIVATE_KEY, with or without 0x, normalised to 0x + lowercase', () => {
  assert.equal(loadPrivateKey({ env: { BOOKMAKER_PRIVATE_KEY: KEY } }), KEY);
  assert.equal(loadPrivateKey({ env: { BOOKMAKER_PRIVATE_KEY: ` ${KEY.slice(2).toUpperCase()}\n` } }), KEY);
});

test('from a 0600 key file, which wins over the env', () => {
  const p = keyFile('ok.key', KEY + '\n', 0o600);
  assert.equal(loadPrivateKey({ keyFile: p, env: { BOOKMAKER_PRIVATE_KEY: '0x' + '11'.repeat(32) } }), KEY);
  assert.equal(loadPrivateKey({ keyFile: keyFile('ro.key', KEY, 0o400), env: {} }), KEY);
});

test('a key file readable by others, or writable by its group, is refused with a clear message and no key', () => {
  // (group-readable 0640 is refused unless root owns it: test/security/key-file-and-binding.test.ts)
  for (const mode of [0o644, 0o604, 0o660, 0o666, 0o700]) {
    const p = keyFile(`open-${mode.toString(8)}.key`, KEY, mode);
    assert.throws(
      () => loadPrivateKey({ keyFile: p, env: {} }),
      (e: unknown) => noKeyIn(KEY)(e) && /too open/.test((e as Error).message) && /chmod 600/.test((e as Error).message),
      mode.toString(8),
    );
  }
});

test('missing key, missing file, malformed key: ConfigErrors that never contain the key', () => {
  assert.throws(() => loadPrivateKey({ env: {} }), /BOOKMAKER_PRIVATE_KEY or pass --key-file/);
  assert.throws(() => loadPrivateKey({ keyFile: join(dir, 'nope.key'), env: {} }), /cannot be read \(ENOENT\)/);
  const bad = KEY.slice(0, 60) + 'zz';
  assert.throws(() => loadPrivateKey({ env: { BOOKMAKER_PRIVATE_KEY: bad } }), noKeyIn(bad));
  assert.throws(() => loadPrivateKey({ keyFile: keyFile('bad.key', bad + 'extra', 0o600), env: {} }), noKeyIn(bad));
  assert.throws(() => loadPrivateKey({ keyFile: dir, env: {} }), /not a regular file/);
});

test('loaded keys are registered for redaction', () => {
  const k = '0x' + '5a'.repeat(32);
  loadPrivateKey({ env: { BOOKMAKER_PRIVATE_KEY: k } });
  assert.equal(scrubSecrets(`key=${k} and bare ${k.slice(2)}`), 'key=[REDACTED] and bare [REDACTED]');
});

test('API key: flag wins over env; absent is undefined; registered for redaction; bad ones refused without echo', () => {
  assert.equal(loadApiKey({ apiKey: 'ctx_pk_flag_123456', env: { BOOKMAKER_API_KEY: 'ctx_pk_env_123456' } }), 'ctx_pk_flag_123456');
  assert.equal(loadApiKey({ env: { BOOKMAKER_API_KEY: 'ctx_pk_env_123456' } }), 'ctx_pk_env_123456');
  assert.equal(loadApiKey({ env: {} }), undefined);
  assert.equal(scrubSecrets('Bearer ctx_pk_env_123456'), 'Bearer [REDACTED]');
  const bad = 'ctx_pk_with space';
  assert.throws(
    () => loadApiKey({ apiKey: bad, env: {} }),
    (e: unknown) => e instanceof BookmakerError && /--api-key/.test(e.message) && !e.message.includes(bad),
  );
  assert.throws(() => loadApiKey({ env: { BOOKMAKER_API_KEY: 'abc\ndef_123' } }), /BOOKMAKER_API_KEY/);
});

test('wallet.apiKeyFile is held to the key-file rule when the config loads: 0600/0400 pass, wider modes are refused naming the fix, never the key', {
  skip: process.platform === 'win32',
}, async () => {
  const API = 'ak-live-1a2b3c4d5e6f7a8b9c0d';
  const sub = mkdtempSync(join(dir, 'api-'));
  const cfg = join(sub, 'bot.yaml');
  writeFileSync(cfg, 'venue: testnet\nwallet: { apiKeyFile: secrets/api.key }\nmarkets:\n  - all: true\n');
  mkdirSync(join(sub, 'secrets'));
  const file = join(sub, 'secrets', 'api.key'); // relative to the config's folder, as the bot reads it
  writeFileSync(file, API + '\n');
  for (const mode of [0o600, 0o400]) {
    chmodSync(file, mode);
    assert.equal((await loadConfig(cfg, { env: {} })).wallet.apiKeyFile, 'secrets/api.key');
  }
  for (const mode of [0o644, 0o604, 0o444, 0o660, 0o606, 0o700, 0o777]) {
    chmodSync(file, mode);
    await assert.rejects(
      loadConfig(cfg, { env: {} }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.startsWith(`wallet.apiKeyFile ${file}: permissions ${mode.toString(8).padStart(4, '0')} are too open (`) &&
        e.message.includes(`chmod 600 ${file}`) &&
        !e.message.includes(API),
      mode.toString(8),
    );
  }
  // not there: left to the bot's read (it needs the file only without --api-key / BOOKMAKER_API_KEY)
  rmSync(file);
  assert.equal((await loadConfig(cfg, { env: {} })).wallet.apiKeyFile, 'secrets/api.key');
  mkdirSync(file);
  await assert.rejects(loadConfig(cfg, { env: {} }), /wallet\.apiKeyFile .*: not a regular file/);
});

test('wallet.apiKeyFile group-readable 0440/0640: loads when root owns it, refused when another user does (both owners, as the key file)', {
  skip: process.platform === 'win32',
}, async () => {
  const sub = mkdtempSync(join(dir, 'api-owner-'));
  const file = join(sub, 'api.key');
  const cfg = join(sub, 'bot.yaml');
  writeFileSync(cfg, `venue: testnet\nwallet: { apiKeyFile: ${file} }\nmarkets:\n  - all: true\n`);
  for (const mode of [0o440, 0o640]) {
    rmSync(file, { force: true });
    writeFileSync(file, 'ak-123456789\n');
    chmodSync(file, mode);
    if (process.getuid?.() === 0) {
      // only root can give a file away: running as root (CI, a container), the test plays both owners
      chownSync(file, 0, 0);
      assert.equal((await loadConfig(cfg, { env: {} })).wallet.apiKeyFile, file, `root-owned ${mode.toString(8)}`);
      chownSync(file, 4321, 4321);
    }
    // the file is now another user's than root's: ours (not root), or 4321's
    await assert.rejects(
      loadConfig(cfg, { env: {} }),
      /wallet\.apiKeyFile .*too open \(it is group-readable but not owned by root\)/,
      `user-owned ${mode.toString(8)}`,
    );
  }
});

test('bookmaker run with a world-readable wallet.apiKeyFile: exit 2, the message and the chmod fix, no key', { skip: process.platform === 'win32' }, () => {
  const API = 'ak-run-9f8e7d6c5b4a39281706';
  const sub = mkdtempSync(join(dir, 'api-run-'));
  const file = join(sub, 'api.key');
  writeFileSync(file, API);
  chmodSync(file, 0o644);
  const cfg = join(sub, 'bot.yaml');
  writeFileSync(cfg, 'venue: testnet\nwallet: { apiKeyFile: api.key }\nmarkets:\n  - all: true\n');
  const r = spawnSync(process.execPath, cliArgs(['run', '-c', cfg, '--duration', '1', '--metrics-port', '0']), {
    encoding: 'utf8',
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '', BOOKMAKER_API_KEY: '' },
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /wallet\.apiKeyFile .*api\.key: permissions 0644 are too open \(others can access it\)/);
  assert.ok(r.stderr.includes(`chmod 600 ${file}`), r.stderr);
  assert.ok(!(r.stdout + r.stderr).includes(API), 'no key in the output');
});
