/**
 * How `bookmaker run` stops, as a supervisor sees it (the CLI in child processes, the exchange in this one).
 *
 * The launcher (bin/bookmaker.js re-executing Node with a heap limit, BOOKMAKER_HEAP_LIMITS, as the Docker
 * image does) and the bot it starts, as a supervisor sees them. Killed with SIGKILL (kill -9, the OOM killer, a
 * runtime's timeout), the launcher cannot forward anything: the bot notices its IPC channel close and stops as on
 * SIGTERM (every order cancelled, a log line saying why) instead of quoting on unsupervised. On the code before,
 * the bot quoted on after its launcher died. A SIGTERM to the launcher reaches the bot, and the launcher exits
 * with the bot's code.
 *
 * Stop signals while the bot is stopping, the stop held up by a venue that stalls (a proxy in front of the
 * exchange stops answering new requests, streams open stay open): the first SIGTERM starts the stop; the second
 * logs what the stop waits on and does not end it (the cancel is never skipped); the third ends the process at once
 * with exit 9 and an error line saying orders may rest. On the code before, the second and third were ignored and
 * the process went on waiting for the venue. (Last in this file: it leaves the bot's orders at the exchange.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rateLimitProxy } from '../support/rate-limit-proxy.ts';
import { BOT_KEY, cli, openOrders, exchangeForFile, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let file: string;

exchangeForFile({}, (x, dir) => {
  h = x;
  file = join(dir, 'bot.yaml');
  writeFileSync(file, yaml(h));
});

const botArgs = () => ['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'];
/** the launcher re-executes Node for `run` (an inherited BOOKMAKER_HEAP_APPLIED would stop it) */
const launcherEnv = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: h.bot.privateKey, BOOKMAKER_HEAP_LIMITS: 'run=256', BOOKMAKER_HEAP_APPLIED: '' });

/** A process that exists and is not a zombie (an orphan that exited waits for its reaper as one). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pids of `parent`'s children. */
function childrenOf(parent: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

test('the bot stops as on SIGTERM when its launcher is killed with SIGKILL: every order cancelled, the log says why', async () => {
  const c = cli(botArgs(), launcherEnv());
  let bot = 0;
  try {
    await waitFor('the bot quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 120_000);
    const kids = childrenOf(c.proc.pid!);
    assert.equal(kids.length, 1, `the launcher re-executed one child (BOOKMAKER_HEAP_LIMITS): ${JSON.stringify(kids)}\n${c.out()}`);
    bot = kids[0]!;
    c.proc.kill('SIGKILL');
    await withTimeout(c.exit, 20_000, 'the launcher did not die of SIGKILL');
    // bounds for a hang only (a loaded machine): the stop itself takes a second or two
    await waitFor('the orphaned bot exits', () => !alive(bot), 90_000).catch((e: Error) => {
      throw new Error(`${e.message}; open orders are still quoted by pid ${bot}\n${c.out().slice(-3000)}`);
    });
    assert.match(c.out(), /the launcher process \(bin\/bookmaker\.js, pid \d+\) is gone \(killed[^\n]*stopping as on SIGTERM/);
    assert.match(c.out(), /stopped \(launcher-gone\), exit 0/);
    assert.equal((await openOrders(h.bot)).length, 0, 'no order of the bot left open');
  } finally {
    c.proc.kill('SIGKILL');
    if (bot > 0 && alive(bot)) process.kill(bot, 'SIGKILL');
  }
});

test('a launcher killed during the start-up ends the start-up: the bot exits having left nothing open', async () => {
  const c = cli(botArgs(), launcherEnv());
  let bot = 0;
  try {
    await waitFor('the launcher re-executes', () => (bot = childrenOf(c.proc.pid!)[0] ?? 0) > 0, 60_000);
    c.proc.kill('SIGKILL');
    await withTimeout(c.exit, 20_000, 'the launcher did not die of SIGKILL');
    await waitFor('the orphaned bot exits', () => !alive(bot), 90_000).catch((e: Error) => {
      throw new Error(`${e.message}; pid ${bot} runs on\n${c.out().slice(-3000)}`);
    });
    // caught by the entry point before the command runs, or by the command during its start-up
    assert.match(c.out(), /the launcher process \((bin\/bookmaker\.js, )?pid \d+\) is gone/);
    assert.equal((await openOrders(h.bot)).length, 0, 'nothing of the bot left open');
  } finally {
    c.proc.kill('SIGKILL');
    if (bot > 0 && alive(bot)) process.kill(bot, 'SIGKILL');
  }
});

test('a SIGTERM to the launcher reaches the bot, which cancels every order; the launcher exits with its code', async () => {
  const c = cli(botArgs(), launcherEnv());
  let bot = 0;
  try {
    await waitFor('the bot quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 120_000);
    bot = childrenOf(c.proc.pid!)[0] ?? 0;
    assert.ok(bot > 0, `the launcher re-executed a child\n${c.out()}`);
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 60_000, 'the launcher did not exit after SIGTERM');
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped \(SIGTERM\), exit 0/);
    assert.equal((await openOrders(h.bot)).length, 0);
  } finally {
    c.proc.kill('SIGKILL');
    if (bot > 0 && alive(bot)) process.kill(bot, 'SIGKILL');
  }
});

test('a second SIGTERM while the stop waits on a stalled venue says what it waits on; a third ends the process with exit 9', async () => {
  let stalled = false;
  const proxy = await rateLimitProxy(h.baseUrl, () => false, 1, { hold: () => stalled });
  const args = ['run', '-c', file, '--base-url', proxy.baseUrl, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'info', '--summary-seconds', '0'];
  const c = cli(args, { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
  try {
    await waitFor('the bot quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 120_000);
    stalled = true;
    c.proc.kill('SIGTERM');
    await waitFor('the stop begins', () => /stopping: cancelling every order/.test(c.out()), 30_000);
    await waitFor('the stop waits on the venue', () => proxy.held > 0, 30_000);
    c.proc.kill('SIGTERM');
    await waitFor('the second SIGTERM is answered in the log', () => /SIGTERM again while stopping: still /.test(c.out()), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${c.out().slice(-3000)}`);
    });
    const second = c
      .out()
      .split('\n')
      .find((l) => l.includes('SIGTERM again while stopping'))!;
    assert.match(second, /still [a-z].*, for [\d.]+ s \(stopping for [\d.]+ s\)/, 'it names the step and how long');
    assert.match(second, /One more SIGTERM or SIGINT ends the process at once \(exit 9\)/);
    assert.match(second, /orders\.deadManExpirySeconds/);
    assert.equal(c.proc.exitCode, null, 'the second signal does not end the stop');
    assert.ok((await openOrders(h.bot)).length > 0, 'the stalled venue still holds the orders (the stop is really held up)');
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 30_000, `no exit after the third SIGTERM:\n${c.out().slice(-3000)}`);
    assert.equal(code, 9, c.out().slice(-3000));
    assert.match(c.out(), /SIGTERM a third time: stop cut short while [^\n]*exiting now \(exit 9\)\. Orders may rest at the venue/);
  } finally {
    c.proc.kill('SIGKILL');
    await proxy.close();
  }
});
