/**
 * which bot answers. ctl acts only on the bot of its config (same config file or same
 * ledger file, compared as canonical paths), and reads only admin.port and ledger.path from the
 * config, so an error elsewhere in the file never blocks an emergency halt.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { identityMismatch, parseIdentity, type BotIdentity } from '../../src/control/identity.ts';
import { readCtlTarget } from '../../src/control/ctl-target.ts';
import { loadConfig } from '../../src/config/load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'bookmaker-identity-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const bot = (o: Partial<BotIdentity> = {}): BotIdentity => ({
  pid: 4242,
  account: '0x' + 'ab'.repeat(20),
  chain: 'testnet',
  configFile: join(dir, 'a.yaml'),
  configHash: '0123456789abcdef',
  ledger: join(dir, 'a.sqlite'),
  adminPort: 9465,
  startedAt: '2026-11-28T00:00:00.000Z',
  ...o,
});

test('the bot of a config: same config file (through a symlink too) or same ledger file; anything else is named', () => {
  writeFileSync(join(dir, 'a.yaml'), 'x: 1\n');
  mkdirSync(join(dir, 'link'), { recursive: true });
  symlinkSync(join(dir, 'a.yaml'), join(dir, 'link', 'a.yaml'));
  assert.equal(identityMismatch(bot(), { configFile: join(dir, 'a.yaml'), ledger: null }), null);
  assert.equal(identityMismatch(bot(), { configFile: join(dir, 'link', 'a.yaml'), ledger: null }), null, 'a symlink to the same file');
  assert.equal(identityMismatch(bot(), { configFile: join(dir, 'copy.yaml'), ledger: join(dir, 'a.sqlite') }), null, 'a copy with the same ledger');
  const wrong = identityMismatch(bot(), { configFile: join(dir, 'b.yaml'), ledger: join(dir, 'b.sqlite') });
  assert.ok(wrong);
  assert.match(wrong, /not the bot of .*b\.yaml \(ledger .*b\.sqlite\): it is pid 4242, account 0xabab.* on testnet, config .*a\.yaml, ledger .*a\.sqlite/);
  // two in-memory ledgers are not the same books
  assert.ok(identityMismatch(bot({ ledger: ':memory:' }), { configFile: join(dir, 'b.yaml'), ledger: ':memory:' }));
  assert.equal(parseIdentity({ pid: 'x' }), null, 'an answer without an identity is not a bot');
  assert.equal(parseIdentity(null), null);
  assert.equal(parseIdentity(bot())?.pid, 4242);
});

test('ctl reads only admin.port and ledger.path: an error elsewhere does not block it; its own sections are checked', async () => {
  const file = join(dir, 'broken.yaml');
  writeFileSync(
    file,
    'venue:\n  chain: testnet\n  baseUrl: http://127.0.0.1:1/v2\ndefaults:\n  strategy: { name: nope }\n  risk: { maxPosition: -1 }\nmarkets: allx\nadmin:\n  port: 9999\nledger:\n  path: books.sqlite\n',
  );
  await assert.rejects(loadConfig(file, { env: {} }), 'the bot refuses this file');
  assert.deepEqual(await readCtlTarget(file, {}), { file, adminPort: 9999, ledger: join(dir, 'books.sqlite') });
  assert.equal((await readCtlTarget(file, { BOOKMAKER_ADMIN_PORT: '9470' })).adminPort, 9470, 'the environment overrides apply as for run');
  const local = join(dir, 'local.yaml');
  writeFileSync(local, 'venue: local\n');
  assert.deepEqual(await readCtlTarget(local, {}), { file: local, adminPort: 9465, ledger: ':memory:' }, 'a local venue keeps its books in memory');
  const bad = join(dir, 'bad-admin.yaml');
  writeFileSync(bad, 'admin:\n  port: 70000\n');
  await assert.rejects(readCtlTarget(bad, {}), /admin\.port/);
  const yamlError = join(dir, 'yaml-error.yaml');
  writeFileSync(yamlError, 'admin: [\n');
  await assert.rejects(readCtlTarget(yamlError, {}), /invalid YAML, so the admin port cannot be read \(pass --port\)/);
});
