/**
 * An operator halt outlives the ledger: real processes, as an operator runs them (`bookmaker run`
 * against `bookmaker sim`, `bookmaker ctl`). Halt, stop, delete the ledger, start with `--new-ledger`:
 * the bot places nothing, its log names the latch file as the record of the halt, /readyz and
 * `ctl status` say halted and why; `ctl resume` lets it quote. On the code before the latch file held
 * the halt, the new ledger held nothing and the bot quoted.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

const TOKEN = 'e2e-halt-latch-token-0123456789';
let sim: SimProcess;
let dir: string;

simForFile(12, [], (s, d) => ((sim = s), (dir = d)));

const configText = (o: { metricsPort: number; adminPort: number; ledger: string }): string => ledgerBotYaml(sim.baseUrl, o);

const envOf = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key, BOOKMAKER_ADMIN_TOKEN: TOKEN });
const run = (file: string, more: string[] = []): Child => cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info', ...more], envOf());
async function ctl(args: string[]): Promise<{ code: number | null; out: string }> {
  const c = cli(['ctl', ...args], envOf());
  const code = await withTimeout(c.exit, 60_000, `ctl ${args.join(' ')} did not exit`);
  return { code, out: c.out() };
}
async function readyz(port: number): Promise<{ status: number; reasons: string[] }> {
  const r = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: r.status, reasons: ((await r.json()) as { reasons: string[] }).reasons };
}
const stop = async (c: Child): Promise<number | null> => {
  if (c.proc.exitCode !== null) return c.proc.exitCode;
  c.proc.kill('SIGTERM');
  return withTimeout(c.exit, 30_000, `no exit after SIGTERM:\n${c.out().slice(-2000)}`);
};

test('a halt survives the loss of the ledger: a start with --new-ledger stays halted until resume', async () => {
  const [adminPort, metricsPort] = [await freePort(), await freePort()];
  const file = join(dir, 'bot.yaml');
  const ledger = join(dir, 'bot.sqlite');
  writeFileSync(file, configText({ metricsPort, adminPort, ledger }));
  let a = run(file);
  try {
    await waitFor('the bot quotes', async () => (await sim.openOrders()).length >= 2, 60_000);
    const halt = await ctl(['halt', '-c', file, '--reason', 'incident 9']);
    assert.equal(halt.code, 0, halt.out);
    assert.equal(await stop(a), 0, a.out().slice(-3000));
    assert.equal((await sim.openOrders()).length, 0);

    // the ledger is lost; the latch file beside it is not
    for (const f of [ledger, `${ledger}-wal`, `${ledger}-shm`]) rmSync(f, { force: true });
    a = run(file, ['--new-ledger']);
    await waitFor('the restarted bot says it is halted', () => /held from an earlier run: halted by the operator/.test(a.out()), 60_000);
    assert.match(
      a.out(),
      /"from":"latch file"[^\n]*held from an earlier run: halted by the operator since [^"]*: incident 9, in the latch file only/,
      'the log names the record the halt came from',
    );
    await waitFor('/readyz says halted', async () => (await readyz(metricsPort).catch(() => null))?.status === 503, 30_000);
    const r = await readyz(metricsPort);
    assert.ok(
      r.reasons.some((x) => /^halted by the operator since .*: incident 9/.test(x)),
      JSON.stringify(r.reasons),
    );
    const status = await ctl(['status', '-c', file, '--json']);
    assert.equal(status.code, 0, status.out);
    const s = JSON.parse(status.out.split('\n').find((l) => l.startsWith('{'))!) as { halted: boolean; halt: { reason: string; from: string } };
    assert.equal(s.halted, true);
    assert.equal(s.halt.reason, 'incident 9');
    assert.equal(s.halt.from, 'latch file', 'status names the record the halt came from');
    await waitFor('reconciled', () => /"msg":"not quoting: halted by the operator since [^"]*; bookmaker ctl resume lifts it"/.test(a.out()), 30_000);
    assert.equal((await sim.openOrders()).length, 0, 'a halted bot places nothing on a new ledger');

    const resume = await ctl(['resume', '-c', file, '--reason', 'incident over']);
    assert.equal(resume.code, 0, resume.out);
    await waitFor('quotes again after resume', async () => (await sim.openOrders()).length >= 2, 30_000);
    assert.equal(await stop(a), 0, a.out().slice(-3000));
    assert.ok(!a.out().includes(TOKEN), 'the token is never logged');
  } finally {
    if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
  }
});
