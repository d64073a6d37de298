/** `bookmaker sim` as a process: prints `listening <base-url>` once ready, serves, saves state on SIGTERM. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiKeyFlag, parseAutoClaimFlag } from '../../src/cli/commands/sim.ts';
import { runToExit, spawnListening } from '../support/sim-child.ts';
import { bookmaker, cliArgs } from '../support/cli.ts';
import { demoWallet } from '../../src/sim/local-exchange.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { MAINNET } from '../../src/exchange/chains.ts';
import type { Bytes32 } from '../../src/model/order.ts';

test('--api-key KEY[:WALLET[:PERMS]] parsing', () => {
  assert.deepEqual(parseApiKeyFlag('k1'), { key: 'k1' });
  const w = '0x' + 'ab'.repeat(20);
  assert.deepEqual(parseApiKeyFlag(`k2:${w}:read,trade`), { key: 'k2', wallet: w, perms: ['read', 'trade'] });
  assert.deepEqual(parseApiKeyFlag(`k3::read+can_create_markets`), { key: 'k3', perms: ['read', 'can_create_markets'] });
  assert.throws(() => parseApiKeyFlag('k:0x12'), /WALLET/);
  assert.throws(() => parseApiKeyFlag(`k:${w}:fly`), /PERMS/);
});

test('--auto-claim-after SECONDS: off when absent, a number of seconds from 0 to a year, listed by --help', async () => {
  assert.equal(parseAutoClaimFlag({}), null);
  assert.equal(parseAutoClaimFlag({ 'auto-claim-after': 0 }), 0);
  assert.equal(parseAutoClaimFlag({ 'auto-claim-after': 45 }), 45);
  for (const bad of [-1, Number.NaN, 400 * 86_400]) assert.throws(() => parseAutoClaimFlag({ 'auto-claim-after': bad }), /--auto-claim-after/);
  const help = await bookmaker(['sim', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--auto-claim-after SECONDS/);
  assert.match(help.stdout, /auto-claim/);
  const { code, stderr } = await runToExit(cliArgs(['sim', '--port', '0', '--auto-claim-after', '-5']));
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--auto-claim-after/);
});

test('sim --auto-claim-after: a resolved market is auto-claimed for every holder, the losing side shown autoclaimed', async () => {
  const sim = await spawnListening([
    ...cliArgs(['sim', '--port', '0', '--seed', '5', '--markets', '1', '--no-agents', '--auto-claim-after', '0.5']),
    ...['--api-key', 'ac-yes::read,trade,admin', '--api-key', 'ac-no'],
  ]);
  const { child, base } = sim;
  try {
    const wallets = ['ac-yes', 'ac-no'].map((k) => demoWallet(5, k));
    const post = async (key: string, path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const market = ((await (await fetch(`${base}/markets?limit=1`)).json()) as { markets: { id: string }[] }).markets[0]!.id;
    // a YES bid and a NO bid at 0.5 mint 3 sets: ac-yes holds 3 YES, ac-no 3 NO
    for (const [i, key] of ['ac-yes', 'ac-no'].entries()) {
      const signer = createSigner({ privateKey: wallets[i]!.privateKey, chain: MAINNET });
      const r = await post(
        key,
        '/orders',
        signer.signOrder({ marketId: market as Bytes32, outcomeIndex: (1 - i) as 0 | 1, side: 0, price: 500_000, size: 3_000_000 }),
      );
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    assert.equal((await post('ac-yes', `/markets/${market}/resolve`, { outcome: 'yes' })).status, 200);
    const rows = async (i: number) => {
      const r = await fetch(`${base}/portfolio/${wallets[i]!.wallet}?marketId=${market}`, { headers: { authorization: `Bearer ${i ? 'ac-no' : 'ac-yes'}` } });
      return ((await r.json()) as { portfolio: { balance: string; claimState: string | null; tokensRedeemed: string }[] }).portfolio;
    };
    // (no time assertion: a generous bound against hanging only)
    for (const giveUp = Date.now() + 60_000; Date.now() < giveUp; await new Promise((r) => setTimeout(r, 100)))
      if ((await rows(0))[0]?.claimState === 'autoclaimed' && (await rows(1))[0]?.claimState === 'autoclaimed') break;
    assert.deepEqual(
      (await rows(0)).map((x) => [x.balance, x.claimState, x.tokensRedeemed]),
      [['0', 'autoclaimed', '3000000']],
    );
    assert.deepEqual(
      (await rows(1)).map((x) => [x.balance, x.claimState, x.tokensRedeemed]),
      [['0', 'autoclaimed', '3000000']],
      'the losing side too',
    );
    // (written before the listening line, on stderr: read after the wait, as the churn test does)
    assert.match(sim.stderr(), /sim: resolved positions are auto-claimed 0\.5 s after the resolution/);
    child.kill('SIGTERM');
    assert.equal(await sim.exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('sim prints the listening line, answers, and saves its state file on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
  const state = join(dir, 'state.json');
  const sim = await spawnListening([
    ...cliArgs(['sim', '--port', '0', '--seed', '3', '--no-agents']),
    ...['--api-key', 'cli-key', '--state', state, '--faults', 'off'],
  ]);
  const { child, base } = sim;
  try {
    assert.doesNotMatch(sim.stdout(), /demo-key/, 'no demo keys when keys are given');
    const r = await fetch(`${base}/orders`, { headers: { authorization: 'Bearer cli-key' } });
    assert.equal(r.status, 200);
    child.kill('SIGTERM');
    assert.equal(await sim.exited, 0);
    assert.ok(existsSync(state), 'state saved on SIGTERM');
    // the old profile name still works, and says which name replaces it
    assert.match(sim.stderr(), /sim: warning: --faults fault profile 'off' is deprecated: use 'none'/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sim --faults: an unknown or retired profile exits 2 naming the profiles', async () => {
  const { code, stderr: err } = await runToExit(cliArgs(['sim', '--port', '0', '--faults', 'light']));
  assert.equal(code, 2);
  assert.match(err, /--faults: expected one of none, latency, slow, flaky, streams, mixed, heavy \('light' is not a profile/);
});

test('sim --new-market-every/--market-lifetime: markets are created, closed and resolved over HTTP; bad values exit 2', async () => {
  const sim = await spawnListening([
    ...cliArgs(['sim', '--port', '0', '--seed', '4', '--markets', '1', '--api-key', 'churn-key']),
    ...['--new-market-every', '0.3', '--market-lifetime', '1', '--resolution-delay', '0.5'],
  ]);
  const { child, base } = sim;
  try {
    // wait (no time assertion: only a generous bound against hanging) until a generated market has resolved
    type M = { id: string; status: string; createdAt: string; deadline: string; resolutionStatus: string; outcome: number | null };
    let resolved: M | undefined;
    const seen = new Map<string, M>();
    for (const giveUp = Date.now() + 120_000; !resolved && Date.now() < giveUp; ) {
      const r = await fetch(`${base}/markets?status=active,closed,resolved&sortBy=new&limit=50`);
      const body = (await r.json()) as { markets: M[] };
      for (const m of body.markets) seen.set(m.id, m);
      resolved = body.markets.find((m) => m.status === 'resolved');
      if (!resolved) await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(resolved, 'a generated market resolved');
    assert.match(sim.stderr(), /sim: a new market every 0\.3 s, trading 1 s, resolved 0\.5 s after its deadline/);
    assert.match(sim.stderr(), /sim: a market whose fair value comes within 0\.05 of 0 or 1 resolves at once/, 'the settle band, by default');
    assert.equal(Date.parse(resolved.deadline) - Date.parse(resolved.createdAt), 1000, 'deadline = creation + lifetime');
    assert.equal(resolved.resolutionStatus, 'resolved');
    assert.ok(resolved.outcome === 0 || resolved.outcome === 1);
    assert.ok(seen.size >= 3, 'the demo market and generated ones');
    child.kill('SIGTERM');
    assert.equal(await sim.exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  for (const bad of [
    ['--new-market-every', '-1'],
    ['--market-lifetime', '0'],
    ['--max-live-markets', '1.5'],
    ['--settle-outside', '0.5'],
    ['--settle-outside', '-0.1'],
  ]) {
    const { code, stderr: e } = await runToExit(cliArgs(['sim', '--port', '0', ...bad]));
    assert.equal(code, 2, `${bad.join(' ')}: ${e}`);
    assert.match(e, new RegExp(bad[0]!));
  }
});
