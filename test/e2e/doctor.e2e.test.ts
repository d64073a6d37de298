/**
 * `bookmaker doctor` end to end: real processes (`bookmaker sim` and `bookmaker doctor`) over real
 * HTTP. All ok with the right keys; each failure named with its fix (wrong key for the wallet, key
 * without trade permission, venue unreachable, a ledger path that cannot be written, an admin port
 * in use, limits larger than the collateral); the exit codes; no key material in any output.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { runDoctor } from '../../src/doctor/run-doctor.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { freePort, startSimProcess } from './sim-process.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';

interface Check {
  name: string;
  result: 'ok' | 'warn' | 'fail';
  detail: string;
  fix: string;
}

const account = () => {
  const privateKey = `0x${randomBytes(32).toString('hex')}`;
  return { privateKey, wallet: createSigner({ privateKey, chain: TESTNET }).address };
};
const me = account();
const stranger = account();
const revoker = account();
const KEYS = {
  good: `doctor-good-${randomBytes(6).toString('hex')}`,
  readOnly: `doctor-ro-${randomBytes(6).toString('hex')}`,
  other: `doctor-other-${randomBytes(6).toString('hex')}`,
  revoker: `doctor-revoker-${randomBytes(6).toString('hex')}`,
};

let sim: Child;
let baseUrl: string;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-doctor-'));
  sim = cli([
    'sim',
    '--port',
    '0',
    '--seed',
    '11',
    '--markets',
    '2',
    '--chain',
    'testnet',
    '--no-agents',
    '--api-key',
    `${KEYS.good}:${me.wallet}:read,trade`,
    '--api-key',
    `${KEYS.readOnly}:${me.wallet}:read`,
    '--api-key',
    `${KEYS.other}:${stranger.wallet}:read,trade`,
    '--api-key',
    `${KEYS.revoker}:${revoker.wallet}:read,trade`,
  ]);
  await waitFor('bookmaker sim prints its URL', () => /listening (\S+)/.test(sim.out()), 30_000);
  baseUrl = /listening (\S+)/.exec(sim.out())![1]!;
});
after(async () => {
  sim?.proc.kill('SIGTERM');
  let t: NodeJS.Timeout | undefined;
  await Promise.race([sim?.exit, new Promise((r) => (t = setTimeout(r, 5_000)))]);
  clearTimeout(t); // a live timer would keep this file's process up 5 s after its last test
  sim?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A config for the sim: every market, limits well inside the 10 000 USDC the sim credits. */
function config(name: string, o: { maxNotional?: number; ledger?: string; adminPort?: number; metricsPort: number }): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `${venueYaml(baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }])}  risk:
    maxPosition: 200
    maxNotional: ${o.maxNotional ?? 100}
    maxOrderSize: 50
account:
  maxDrawdown: 250
markets:
  - all: true
metrics:
  port: ${o.metricsPort}
admin:
  port: ${o.adminPort ?? 0}
${o.ledger ? `ledger:\n  path: ${o.ledger}\n` : ''}`,
  );
  return file;
}

async function doctor(
  file: string,
  apiKey: string,
  privateKey: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; checks: Map<string, Check> }> {
  const c = cli(['doctor', '-c', file, '--json', ...extra], {
    BOOKMAKER_API_KEY: apiKey,
    BOOKMAKER_PRIVATE_KEY: privateKey,
    BOOKMAKER_ADMIN_TOKEN: '',
    ...env,
  });
  try {
    const code = await withTimeout(c.exit, 60_000, 'doctor did not finish');
    const out = c.out();
    const json = JSON.parse(out.slice(out.indexOf('{'))) as { checks: Check[] };
    return { code, out, checks: new Map(json.checks.map((x) => [x.name, x])) };
  } finally {
    c.proc.kill('SIGKILL');
  }
}

/** The same checks in this process (real HTTP to the sim process): for the cases that need no process of their own. */
async function doctorHere(
  file: string,
  apiKey: string,
  privateKey: string,
  metricsPort: number,
): Promise<{ code: number; out: string; checks: Map<string, Check> }> {
  const r = await runDoctor({
    config: await loadConfig(file, { env: {} }),
    env: { BOOKMAKER_API_KEY: apiKey, BOOKMAKER_PRIVATE_KEY: privateKey },
    metricsPort,
  });
  return { code: r.exitCode, out: JSON.stringify(r.checks), checks: new Map(r.checks.map((x) => [x.name, x])) };
}

function noSecrets(out: string, ...secrets: string[]): void {
  for (const s of secrets) {
    assert.ok(!out.includes(s), 'no key material in the output');
    if (s.startsWith('0x')) assert.ok(!out.includes(s.slice(2)), 'no key material in the output (without 0x)');
  }
}

function failed(r: { checks: Map<string, Check> }): string[] {
  return [...r.checks.values()].filter((c) => c.result === 'fail').map((c) => c.name);
}

test('the right keys: every check ok, exit 0; the human report says ready', { timeout: 120_000 }, async () => {
  const file = config('good', { metricsPort: await freePort(), ledger: join(dir, 'good', 'ledger.sqlite') });
  const r = await doctor(file, KEYS.good, me.privateKey);
  assert.equal(r.code, 0, r.out);
  for (const c of r.checks.values()) assert.equal(c.result, 'ok', `${c.name}: ${c.detail}`);
  assert.match(r.checks.get('wallet')!.detail, new RegExp(me.wallet));
  assert.match(r.checks.get('markets')!.detail, /^2 selected: 2 active and quotable, 0 inside the deadline guard/);
  assert.match(r.checks.get('collateral')!.detail, /^10000\.00 USDC free; .* can use 200\.00 USDC/);
  noSecrets(r.out, me.privateKey, KEYS.good);
  // nothing was placed: the wallet has no order at all at the venue
  const client = createVenueClient({ baseUrl, chain: TESTNET, apiKey: KEYS.good });
  try {
    assert.deepEqual((await client.orders.list({ trader: me.wallet as `0x${string}` })).orders, []);
  } finally {
    await client.close();
  }
  // the same run for a person: one line per check and the verdict
  const c = cli(['doctor', '-c', file], { BOOKMAKER_API_KEY: KEYS.good, BOOKMAKER_PRIVATE_KEY: me.privateKey, BOOKMAKER_ADMIN_TOKEN: '' });
  assert.equal(await withTimeout(c.exit, 60_000, 'doctor did not finish'), 0, c.out());
  assert.match(c.out(), /^ok {4}permissions +trade permission/m);
  assert.match(c.out(), /doctor: 15 ok, 0 warn, 0 fail: ready \(exit 0\)/);
  noSecrets(c.out(), me.privateKey, KEYS.good);
});

test('wrong key for the wallet: wallet fails naming both wallets and the fix; permissions not checked', { timeout: 120_000 }, async () => {
  const r = await doctor(config('other', { metricsPort: await freePort() }), KEYS.other, me.privateKey);
  assert.equal(r.code, 1, r.out);
  const w = r.checks.get('wallet')!;
  assert.equal(w.result, 'fail');
  assert.match(w.detail, /wrong key for the wallet/);
  assert.ok(w.detail.includes(me.wallet) && w.detail.includes(stranger.wallet), w.detail);
  assert.match(w.fix, new RegExp(`use the private key of ${stranger.wallet}`));
  assert.match(r.checks.get('permissions')!.detail, /^not checked/);
  noSecrets(r.out, me.privateKey, KEYS.other);
});

test('a key without trade permission: permissions fails with the fix; nothing placed', { timeout: 120_000 }, async () => {
  const r = await doctor(config('ro', { metricsPort: await freePort() }), KEYS.readOnly, me.privateKey);
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(failed(r), ['permissions']);
  const p = r.checks.get('permissions')!;
  assert.match(p.detail, /lacks the trade permission/);
  assert.match(p.fix, /issue an API key with the trade permission/);
  noSecrets(r.out, me.privateKey, KEYS.readOnly);
});

test('venue unreachable: venue fails with the fix, the venue checks say not checked, the local ones still run', { timeout: 120_000 }, async () => {
  const dead = await freePort();
  const r = await doctor(config('dead', { metricsPort: await freePort() }), KEYS.good, me.privateKey, ['--base-url', `http://127.0.0.1:${dead}/v2`]);
  assert.equal(r.code, 1, r.out);
  const v = r.checks.get('venue')!;
  assert.equal(v.result, 'fail');
  assert.match(v.detail, /cannot connect \(ECONNREFUSED\)/);
  assert.match(v.fix, /check the base URL/);
  for (const n of ['clock', 'api-key', 'wallet', 'permissions', 'migration', 'markets', 'collateral'])
    assert.match(r.checks.get(n)!.detail, /^not checked: the venue check failed/, n);
  for (const n of ['keys', 'limits', 'ledger', 'admin', 'metrics']) assert.notEqual(r.checks.get(n)!.result, 'fail', n);
});

test('a ledger that cannot be written, an admin port in use, limits over the collateral: each fails with its fix', { timeout: 120_000 }, async () => {
  const blocker = join(dir, 'a-file');
  writeFileSync(blocker, '');
  const busy: Server = createServer();
  const adminPort = await freePort();
  await new Promise<void>((r) => busy.listen(adminPort, '127.0.0.1', r));
  try {
    const file = config('bad', { metricsPort: await freePort(), maxNotional: 6000, ledger: join(blocker, 'ledger.sqlite'), adminPort });
    const r = await doctor(file, KEYS.good, me.privateKey, [], { BOOKMAKER_ADMIN_TOKEN: 'a-long-enough-admin-token-0123' });
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(failed(r).sort(), ['admin', 'collateral', 'ledger']);
    const l = r.checks.get('ledger')!;
    assert.match(l.detail, /cannot be created: .*a-file is not a folder/);
    assert.match(l.fix, /set ledger.path/);
    const a = r.checks.get('admin')!;
    assert.match(a.detail, new RegExp(`admin port 127.0.0.1:${adminPort} already in use`));
    assert.match(a.fix, /set admin.port to a free port/);
    const c = r.checks.get('collateral')!;
    assert.match(c.detail, /limits larger than the collateral: 10000\.00 USDC free; .* can use 12000\.00 USDC/);
    assert.match(c.fix, /deposit 2000\.00 USDC more, or lower risk.maxNotional/);
    noSecrets(r.out, me.privateKey, KEYS.good, 'a-long-enough-admin-token-0123');
  } finally {
    busy.close();
  }
});

test('a wallet still to migrate: doctor says what the start-up migration will do, run does it, doctor then finds nothing to do', {
  timeout: 150_000,
}, async () => {
  // `bookmaker sim` with its demo keys seeds a legacy wallet (legacy orders, funds in legacy Holdings)
  const legacySim = await startSimProcess(12);
  try {
    const m = /demo-key (sim-demo-12-legacy) wallet (0x[0-9a-fA-F]{40}) perms \S+ private-key (0x[0-9a-fA-F]{64})/.exec(legacySim.child.out());
    assert.ok(m, legacySim.child.out());
    const [, key, wallet, privateKey] = m;
    const file = join(dir, 'legacy.yaml');
    writeFileSync(
      file,
      readFileSync(config('legacy-base', { metricsPort: 0 }), 'utf8')
        .replace(baseUrl, legacySim.baseUrl)
        .replace('maxNotional: 100', 'maxNotional: 10'),
    );
    const before = await doctorHere(file, key!, privateKey!, await freePort());
    const mig = before.checks.get('migration')!;
    assert.equal(mig.result, 'warn', mig.detail);
    assert.match(
      mig.detail,
      /the start-up migration will: start \(retires 2 legacy open order\(s\), then restores them as V2 orders or dismisses them\); migrate funds \(\d+ chunk\(s\), sponsored\)/,
    );
    // the legacy funds count: the migration moves them before the bot quotes
    assert.match(before.checks.get('collateral')!.detail, /^0\.00 USDC free and [1-9][\d.]* USDC in legacy Holdings that the start-up migration moves first/);
    assert.equal(before.code, 0, before.out);
    // a new ledger on a wallet with venue history: run refuses it without --new-ledger, and doctor says so
    const led = before.checks.get('ledger')!;
    assert.equal(led.result, 'warn', led.detail);
    assert.match(
      led.detail,
      /is new but the wallet has .*legacy orders or tokens that the start-up migration brings over at the venue: `bookmaker run` refuses to start \(exit 2\)/,
    );
    assert.match(led.fix, /bookmaker run --new-ledger/);

    // a wallet with venue history on a new ledger: `--new-ledger` adopts its holdings as the baseline
    // stopped once it quotes (a --duration counts from the process start, and a loaded machine can spend it all in start-up)
    const run = cli(['run', '-c', file, '--new-ledger', '--metrics-port', '0', '--summary-seconds', '0', '--log-level', 'info'], {
      BOOKMAKER_API_KEY: key!,
      BOOKMAKER_PRIVATE_KEY: privateKey!,
      BOOKMAKER_ADMIN_TOKEN: '',
    });
    try {
      await waitFor('the run quotes', () => /quoting \d+ market/.test(run.out()) || run.proc.exitCode !== null, 90_000);
      run.proc.kill('SIGTERM');
      assert.equal(await withTimeout(run.exit, 90_000, 'run did not stop'), 0, run.out().slice(-3000));
    } finally {
      run.proc.kill('SIGKILL');
    }
    assert.match(run.out(), /"steps":\["status","start","migrate-funds","restore-orders","ready"\]/);

    const after = await doctorHere(file, key!, privateKey!, await freePort());
    assert.equal(after.checks.get('migration')!.result, 'ok', after.checks.get('migration')!.detail);
    assert.match(after.checks.get('migration')!.detail, /the start-up migration has nothing to do/);
    assert.equal(after.code, 0, after.out);
    assert.equal(after.checks.get('ledger')!.result, 'ok', 'the ledger now holds the books (the baseline)');
    assert.ok(after.checks.get('wallet')!.detail.includes(wallet!));
    noSecrets(before.out + after.out, privateKey!, key!);
  } finally {
    await legacySim.close();
  }
});

test('Settlement V2 not approved as operator: migration fails naming the void reason and the fix; approving again clears it', {
  timeout: 120_000,
}, async () => {
  const signer = createSigner({ privateKey: revoker.privateKey, chain: TESTNET });
  const client = createVenueClient({ baseUrl, chain: TESTNET, apiKey: KEYS.revoker });
  const setApproval = async (approved: boolean): Promise<void> => {
    const { newHoldingsOperatorNonce } = await client.migration.status();
    const body = signer.signOperatorApproval({ nonce: newHoldingsOperatorNonce ?? 0n, approved });
    await client.gasless.setOperator({
      user: body.user,
      settlementVersion: 2,
      approved,
      nonce: body.nonce,
      deadline: body.deadline,
      signature: body.signature,
    });
  };
  try {
    const file = config('revoker', { metricsPort: await freePort() });
    await setApproval(false);
    const r = await doctorHere(file, KEYS.revoker, revoker.privateKey, await freePort());
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(failed(r), ['migration']);
    const m = r.checks.get('migration')!;
    assert.match(m.detail, /Settlement V2 is not approved as operator of this wallet: the venue would void every order \(MISSING_OPERATOR_APPROVAL\)/);
    assert.match(m.fix, /approve Settlement V2 as operator/);
    await setApproval(true);
    const again = await doctorHere(file, KEYS.revoker, revoker.privateKey, await freePort());
    assert.equal(again.code, 0, again.out);
    assert.equal(again.checks.get('migration')!.result, 'ok');
  } finally {
    await client.close();
  }
});
