/**
 * A bot halted by its wallet watch, restarted, as an operator meets it: real `bookmaker run` against
 * `bookmaker sim`, `bookmaker ctl`. Another writer places an order while the bot quotes: it halts
 * (source `wallet`). The operator stops it, cancels the other writer's order and starts it again: the
 * start-up line, the restore line, /readyz and `ctl status` each say the bot halted itself for another
 * trader on its wallet and that `ctl resume` (after stopping that trader) lifts it, none says "by the
 * operator"; `ctl resume` lets it quote. On the code before, the start-up line said "halted by the
 * operator: not quoting until bookmaker ctl resume" and /readyz during start-up "halted by the operator".
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

const TOKEN = 'e2e-wallet-halt-token-0123456789';
let sim: SimProcess;
let dir: string;
simForFile(15, [], (s, d) => ((sim = s), (dir = d)));

const env = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key, BOOKMAKER_ADMIN_TOKEN: TOKEN });
const run = (file: string): Child => cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], env());
async function ctl(args: string[]): Promise<{ code: number | null; out: string }> {
  const c = cli(['ctl', ...args], env());
  const code = await withTimeout(c.exit, 60_000, `ctl ${args.join(' ')} did not exit`);
  return { code, out: c.out() };
}
const stop = async (c: Child): Promise<number | null> => {
  if (c.proc.exitCode !== null) return c.proc.exitCode;
  c.proc.kill('SIGTERM');
  return withTimeout(c.exit, 30_000, `no exit after SIGTERM:\n${c.out().slice(-2000)}`);
};

test('restarted after a wallet halt: the start-up line, /readyz and ctl status name the wallet watch, not the operator', async () => {
  const [adminPort, metricsPort] = [await freePort(), await freePort()];
  const file = join(dir, 'bot.yaml');
  writeFileSync(file, ledgerBotYaml(sim.baseUrl, { metricsPort, adminPort, ledger: join(dir, 'bot.sqlite') }));
  let a = run(file);
  try {
    await waitFor('the bot quotes', async () => (await sim.openOrders()).length >= 2, 60_000);
    const signer = createSigner({ privateKey: sim.privateKey, chain: TESTNET });
    const marketId = (await sim.openOrders())[0]!.marketId;
    const theirs = (await sim.client.orders.create(signer.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 10_000, size: 5_000_000 }))).order!;
    await waitFor('the bot halts', () => /another trader is placing orders on this wallet/.test(a.out()), 30_000);
    assert.equal(await stop(a), 0, a.out().slice(-3000));
    // the other writer is stopped: its order goes, so the next start is not refused (exit 7)
    await sim.client.orders.cancel(signer.signCancel(theirs.nonce));
    assert.equal((await sim.openOrders()).length, 0);

    a = run(file);
    const readyDuringStart: string[] = [];
    await waitFor(
      'the start-up line',
      async () => {
        const r = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => null);
        if (r?.status === 503) readyDuringStart.push(...(((await r.json()) as { reasons?: string[] }).reasons ?? []));
        return /"metrics":"[^"]*","trader":"[^"]*"/.test(a.out()); // the start-up line's fields
      },
      60_000,
    );
    const out = a.out();
    const line = /"metrics":"[^"]*","trader":[^\n]*/.exec(out)![0];
    assert.doesNotMatch(out, /halted by (the|an) operator/, `no place calls the wallet halt the operator: ${line}`);
    assert.match(
      out,
      /"msg":"not quoting: halted by the bot since [^"]*: another trader on this wallet: 1 order with nonce tag [0-9a-f]{16}[^"]*; stop the other trader on this wallet, then bookmaker ctl resume lifts it"/,
    );
    assert.match(out, /"source":"wallet"[^\n]*"msg":"held from an earlier run: halted by the bot since /);
    for (const x of readyDuringStart) assert.doesNotMatch(x, /by the operator/, x);
    const r = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
    assert.equal(r.status, 503);
    const reasons = ((await r.json()) as { reasons: string[] }).reasons;
    assert.ok(
      reasons.some((x) => /^halted by the bot since .*: another trader on this wallet: .*then bookmaker ctl resume lifts it$/.test(x)),
      JSON.stringify(reasons),
    );
    const status = await ctl(['status', '-c', file]);
    assert.equal(status.code, 0, status.out);
    assert.match(
      status.out,
      /^state {7}HALTED by the bot since .*: another trader on this wallet: .*stop the other trader on this wallet, then bookmaker ctl resume lifts it$/m,
    );
    assert.equal((await sim.openOrders()).length, 0, 'the halted bot places nothing');

    const resume = await ctl(['resume', '-c', file, '--reason', 'the other writer is stopped']);
    assert.equal(resume.code, 0, resume.out);
    await waitFor('quotes again after resume', async () => (await sim.openOrders()).length >= 2, 30_000);
    assert.equal(await stop(a), 0, a.out().slice(-3000));
  } finally {
    if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
  }
});
