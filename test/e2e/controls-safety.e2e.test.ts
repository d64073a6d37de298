/**
 * Controls that reach the right bot or nothing, and halts that survive restarts: real
 * processes, as an operator runs them (`bookmaker run` against `bookmaker sim`, `bookmaker ctl`).
 *   - a second bot on the same admin port does not start (exit 2, naming the port and the holder);
 *   - `ctl -c B.yaml` reaching bot A is refused (exit 2, naming A) and changes nothing;
 *   - `ctl halt` works while the config has an error elsewhere;
 *   - a halt survives kill -9: the restarted bot places nothing and says so in its log, /readyz
 *     (503 with the reason), /metrics and `ctl status`, until `ctl resume`;
 *   - `ctl clear-kill` without the bot's token no longer edits the ledger under it, and `--offline`
 *     beside a running bot is refused naming the holder;
 *   - a reload keeps reporting a changed admin.port, and `ctl -c` still reaches the bot on its bound port.
 * Every step fails on the code before the fail-closed controls (see the commit message for how each was checked).
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

const TOKEN = 'e2e-controls-token-0123456789';
let sim: SimProcess;
let dir: string;

simForFile(11, [], (s, d) => ((sim = s), (dir = d)));

/** The bot: ledgerBotYaml's, its reconcile every 2 s and its feeds polled fast; `broken`: a band of -5 shares (an error elsewhere in the config). */
const configText = ({ broken, ...o }: { metricsPort: number; adminPort: number; ledger: string; broken?: boolean }): string =>
  ledgerBotYaml(sim.baseUrl, {
    ...o,
    size: broken ? -5 : 10,
    reconcileSeconds: 2,
    more: 'feeds:\n  balancePollSeconds: 0.5\n  activityPollSeconds: 1\n',
  });

const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  BOOKMAKER_PRIVATE_KEY: sim.privateKey,
  BOOKMAKER_API_KEY: sim.key,
  BOOKMAKER_ADMIN_TOKEN: TOKEN,
  ...more,
});
const run = (file: string): Child => cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], env());
async function ctl(args: string[], more: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const c = cli(['ctl', ...args], env(more));
  const code = await withTimeout(c.exit, 60_000, `ctl ${args.join(' ')} did not exit`);
  return { code, out: c.out() };
}
async function readyz(port: number): Promise<{ status: number; body: { ready: boolean; reasons: string[] } }> {
  const r = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: r.status, body: (await r.json()) as { ready: boolean; reasons: string[] } };
}
async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line ? Number(line.slice(name.length + 1)) : NaN;
}
const stop = async (c: Child): Promise<number | null> => {
  if (c.proc.exitCode !== null) return c.proc.exitCode;
  c.proc.kill('SIGTERM');
  return withTimeout(c.exit, 30_000, `no exit after SIGTERM:\n${c.out().slice(-2000)}`);
};

test('controls reach the right bot or nothing; a halt survives kill -9 until resume', async () => {
  const adminPort = await freePort();
  const [mA, mB] = [await freePort(), await freePort()];
  const fileA = join(dir, 'a.yaml');
  const fileB = join(dir, 'b.yaml');
  const ledgerA = join(dir, 'a.sqlite');
  writeFileSync(fileA, configText({ metricsPort: mA, adminPort, ledger: ledgerA }));
  writeFileSync(fileB, configText({ metricsPort: mB, adminPort, ledger: join(dir, 'b.sqlite') }));
  let a = run(fileA);
  let b: Child | null = null;
  try {
    await waitFor('bot A quotes', async () => (await sim.openOrders()).length >= 2, 60_000);

    // 1. a second bot on the same admin port does not start; the message names the port and bot A
    b = run(fileB);
    assert.equal(await withTimeout(b.exit, 60_000, `bot B runs on with a foreign admin port:\n${b.out().slice(-2000)}`), 2, b.out());
    assert.match(b.out(), new RegExp(`admin port ${adminPort} on 127\\.0\\.0\\.1 cannot be bound \\(EADDRINUSE; held by pid ${a.proc.pid}`));
    assert.ok(!b.out().includes(TOKEN), 'the token is never printed');
    assert.doesNotMatch(b.out(), /markets selected|ledger open/, 'the port is bound first: bot B stopped before any feed, ledger or order');

    // 2. ctl of bot B's config reaches bot A: refused, naming A; nothing done
    const wrong = await ctl(['halt', '-c', fileB, '--reason', 'meant for B']);
    assert.equal(wrong.code, 2, wrong.out);
    assert.match(wrong.out, new RegExp(`refused: the bot answering is not the bot of .*b\\.yaml.*it is pid ${a.proc.pid}, .*a\\.yaml`));
    assert.ok((await sim.openOrders()).length >= 2, 'bot A still quotes');

    // 3. clear-kill without the token no longer edits the ledger under the running bot; --offline is refused naming it
    const noToken = await ctl(['clear-kill', '-c', fileA, '--reason', 'no token'], { BOOKMAKER_ADMIN_TOKEN: '' });
    assert.equal(noToken.code, 2, noToken.out);
    assert.doesNotMatch(noToken.out, /not running/);
    const offline = await ctl(['clear-kill', '--offline', '-c', fileA, '--reason', 'beside a running bot']);
    assert.equal(offline.code, 2, offline.out);
    assert.match(offline.out, new RegExp(`refused: ledger .*a\\.sqlite is in use by a running bookmaker \\(pid ${a.proc.pid} on `));

    // 4. an error elsewhere in the config does not block an emergency halt
    writeFileSync(fileA, configText({ metricsPort: mA, adminPort, ledger: ledgerA, broken: true }));
    const halt = await ctl(['halt', '-c', fileA, '--reason', 'incident 7']);
    assert.equal(halt.code, 0, halt.out);
    assert.match(halt.out, /"halted":true/);
    await waitFor('quotes pulled', async () => (await sim.openOrders()).length === 0, 30_000);
    writeFileSync(fileA, configText({ metricsPort: mA, adminPort, ledger: ledgerA }));

    // 5. kill -9, restart: still halted, and it says so everywhere
    a.proc.kill('SIGKILL');
    await withTimeout(a.exit, 20_000, 'no exit after SIGKILL');
    a = run(fileA);
    await waitFor('the restarted bot says it is halted', () => /held from an earlier run: halted by the operator/.test(a.out()), 60_000);
    await waitFor('the restarted bot serves /readyz', async () => (await readyz(mA).catch(() => null)) !== null, 30_000);
    await waitFor('reconciled', () => /"msg":"not quoting: halted by the operator since [^"]*; bookmaker ctl resume lifts it"/.test(a.out()), 30_000);
    const r = await readyz(mA);
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.ok(
      r.body.reasons.some((x) => /^halted by the operator since .*: incident 7/.test(x)),
      JSON.stringify(r.body.reasons),
    );
    assert.equal(await metric(mA, 'bookmaker_operator_halted'), 1);
    assert.equal(await metric(mA, 'bookmaker_ready'), 0);
    const status = await ctl(['status', '-c', fileA, '--json']);
    assert.equal(status.code, 0, status.out);
    const s = JSON.parse(status.out.split('\n').find((l) => l.startsWith('{'))!) as {
      halted: boolean;
      halt: { reason: string };
      identity: { pid: number; ledger: string };
    };
    assert.equal(s.halted, true);
    assert.equal(s.halt.reason, 'incident 7');
    assert.equal(s.identity.pid, a.proc.pid);
    // several reconcile rounds go by: nothing placed
    for (let i = 0; i < 8; i++) {
      assert.equal((await sim.openOrders()).length, 0, 'a halted bot places nothing after a restart');
      await new Promise((res) => setTimeout(res, 500));
    }

    // 6. a reload that changes admin.port: reported as ignored each time, and ctl -c still reaches the bot
    const moved = await freePort();
    writeFileSync(fileA, configText({ metricsPort: mA, adminPort: moved, ledger: ledgerA }));
    for (let i = 0; i < 2; i++) {
      const rl = await ctl(['reload', '-c', fileA, '--reason', `reload ${i}`]);
      assert.equal(rl.code, 0, rl.out);
      assert.match(rl.out, /"ignored":\["admin"\]/, `reload ${i} reports the pending restart-only change`);
      assert.match(rl.out, new RegExp(`bound to admin port ${adminPort}; admin\\.port ${moved} in the file applies at its next restart`));
    }

    // 7. resume: quoting again, ready
    const resume = await ctl(['resume', '-c', fileA, '--reason', 'incident over']);
    assert.equal(resume.code, 0, resume.out);
    await waitFor('quotes again after resume', async () => (await sim.openOrders()).length >= 2, 30_000);
    await waitFor('ready again', async () => (await readyz(mA)).status === 200, 30_000);
    assert.equal(await stop(a), 0, a.out().slice(-3000));
    assert.equal((await sim.openOrders()).length, 0);
    assert.ok(!a.out().includes(TOKEN), 'the token is never logged');
  } finally {
    if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
    if (b && b.proc.exitCode === null) b.proc.kill('SIGKILL');
  }
  // the ledger holds the operator's actions in order, and nothing meant for bot B
  const db = new Database(ledgerA, { readonly: true });
  try {
    const rows = db.prepare('SELECT action, reason FROM operator_actions ORDER BY id').all();
    assert.deepEqual(rows, [
      { action: 'halt', reason: 'incident 7' },
      { action: 'reload', reason: 'reload 0' },
      { action: 'reload', reason: 'reload 1' },
      { action: 'resume', reason: 'incident over' },
    ]);
  } finally {
    db.close();
  }
});

test('SIGHUP during start-up is logged and deferred (no exit 129); SIGTERM during start-up exits 0 with a log line', async () => {
  // a venue that is down: start-up retries market selection for minutes
  const dead = await freePort();
  const file = join(dir, 'down.yaml');
  writeFileSync(file, configText({ metricsPort: 0, adminPort: 0, ledger: join(dir, 'down.sqlite') }).replace(sim.baseUrl, `http://127.0.0.1:${dead}/v2`));
  const c = cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], env());
  try {
    await waitFor('a start-up retry', () => /start-up step failed transiently; retrying/.test(c.out()), 60_000);
    c.proc.kill('SIGHUP');
    await waitFor('the SIGHUP is logged', () => /SIGHUP during start-up: the reload is deferred until the bot runs/.test(c.out()), 20_000);
    assert.equal(c.proc.exitCode, null, `SIGHUP ended the process:\n${c.out().slice(-2000)}`);
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, 30_000, 'SIGTERM ignored during start-up'), 0, c.out().slice(-2000));
    assert.match(c.out(), /SIGTERM during start-up: stopping/);
    assert.match(c.out(), /stopped during start-up \(SIGTERM\), exit 0/);
  } finally {
    if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  }
});

test('a bot does not start with a short admin token, or with its admin port held by a foreign listener (exit 2, naming it)', async () => {
  const file = join(dir, 'refused.yaml');
  const adminPort = await freePort();
  writeFileSync(file, configText({ metricsPort: 0, adminPort, ledger: join(dir, 'refused.sqlite') }));
  const short = cli(['run', '-c', file, '--summary-seconds', '0'], env({ BOOKMAKER_ADMIN_TOKEN: 'guessable' }));
  assert.equal(await withTimeout(short.exit, 60_000, 'a short token is accepted'), 2, short.out());
  assert.match(short.out(), /BOOKMAKER_ADMIN_TOKEN is too short \(9 characters; at least 16\)/);
  assert.ok(!short.out().includes('guessable'), 'the token is never printed');
  // not a bookmaker: a plain listener in this test process
  const foreign = createServer((sock) => sock.end());
  await new Promise<void>((r) => foreign.listen(adminPort, '127.0.0.1', () => r()));
  try {
    const c = cli(['run', '-c', file, '--summary-seconds', '0'], env());
    assert.equal(await withTimeout(c.exit, 60_000, `the bot runs on beside a foreign admin listener:\n${c.out().slice(-2000)}`), 2, c.out());
    assert.match(c.out(), new RegExp(`admin port ${adminPort} on 127\\.0\\.0\\.1 cannot be bound \\(EADDRINUSE; held by pid ${process.pid} \\(`));
  } finally {
    await new Promise<void>((r) => foreign.close(() => r()));
  }
});
