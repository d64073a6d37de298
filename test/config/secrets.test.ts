import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApiKey, loadPrivateKey } from '../../src/config/secrets.ts';
import { scrubSecrets } from '../../src/core/logger.ts';
import { BookmakerError } from '../../src/model/errors.ts';

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
  assert.throws(() => loadApiKey({ apiKey: bad, env: {} }), (e: unknown) => e instanceof BookmakerError && /--api-key/.test(e.message) && !e.message.includes(bad));
  assert.throws(() => loadApiKey({ env: { BOOKMAKER_API_KEY: 'abc\ndef_123' } }), /BOOKMAKER_API_KEY/);
});
