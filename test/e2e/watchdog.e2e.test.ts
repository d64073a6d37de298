/**
 * Observation 3: a strategy that never returns (a synchronous endless loop). The venue is
 * `bookmaker sim` in its own process, so it keeps answering while the bot is blocked. Expected: the
 * watchdog thread makes /healthz fail, cancels the bot's orders at the venue with its own client and
 * signer, logs fatal and ends the process with exit code 5. (Before: /healthz stopped answering,
 * SIGTERM was ignored and the orders stayed at the venue.) The exit shows the watchdog's own lines
 * only: no "Waiting for the debugger to disconnect..." from the inspector session it exits through.
 */
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'node:test';
import { cliArgs } from '../support/cli.ts';
import { cli, waitFor, withTimeout } from './harness.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
let dir: string;

simForFile(5, [], (s, d) => ((sim = s), (dir = d)));

const STRATEGY = new URL('./fixtures/blocking-strategy.ts', import.meta.url).pathname;

/** The bot's config against the sim process: the blocking strategy on bands, its metrics and watchdog sections as given (YAML flow maps). */
function simBotYaml(metrics: string, watchdog: string): string {
  return `venue:
  chain: testnet
  baseUrl: ${sim.baseUrl}
defaults:
  strategy:
    name: ${STRATEGY}
    params: { fair: mid, bands: [{ minMargin: 0.01, targetMargin: 0.03, maxMargin: 0.05, size: 5 }] }
  risk: { maxPosition: 100, maxNotional: 100, maxOrderSize: 50 }
markets: all
orders: { requoteIntervalSeconds: 0.25, deadManExpirySeconds: 120 }
metrics: ${metrics}
watchdog: ${watchdog}
`;
}

/** Resolves once the child's stdout and stderr are closed (all its output read). */
function outputClosed(proc: ChildProcess): Promise<void> {
  return new Promise((r) => proc.once('close', () => r()));
}

/**
 * The watchdog's exit shows the watchdog's own fatal line, and no line of Node's inspector: the
 * watchdog ends the process through an inspector session, and Node prints "Waiting for the debugger
 * to disconnect..." at exit while such a session is connected (it did, before the fix).
 */
function assertOnlyWatchdogExit(out: string): void {
  assert.match(out, /event loop blocked: the watchdog cancels every open order and ends the process/);
  // the watchdog's last line says why, after its cancel-all's lines: how long, the limit, what the main thread did
  const last = out.trim().split('\n').at(-1)!;
  assert.match(
    last,
    /watchdog: exit 5: the event loop did not turn for [\d.]+ s \(limit \d+ s\); the main thread ran [\d.]+ s and waited [\d.]+ s for a CPU/,
    out,
  );
  assert.doesNotMatch(out, /Waiting for the debugger|Debugger (attached|listening)/, out);
}

async function healthz(port: number): Promise<number | 'down'> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await r.text();
    return r.status;
  } catch {
    return 'down';
  }
}

test('a blocked event loop: /healthz fails, the watchdog cancels every order at the venue, exit 5', async () => {
  const port = await freePort();
  const block = join(dir, 'block-now');
  const file = join(dir, 'bot.yaml');
  writeFileSync(file, simBotYaml(`{ port: ${port} }`, '{ blockedLimitSeconds: 5, healthzLimitSeconds: 1 }'));
  const c = cli(['run', '-c', file, '--api-key', sim.key, '--log-level', 'warn', '--summary-seconds', '0'], {
    BOOKMAKER_PRIVATE_KEY: sim.privateKey,
    BOOKMAKER_TEST_BLOCK_FILE: block,
  });
  const closed = outputClosed(c.proc);
  try {
    await waitFor('the bot quotes at the venue', async () => (await sim.openOrders()).length >= 2, 40_000);
    assert.equal(await healthz(port), 200, 'healthy while the loop runs');
    writeFileSync(block, '');
    // the next tick enters the endless loop: /healthz must turn 503 (answered by the watchdog thread)
    let seen: number | 'down' = 200;
    await waitFor(
      '/healthz fails while the loop is blocked',
      async () => {
        seen = await healthz(port);
        return seen === 503 || c.proc.exitCode !== null;
      },
      30_000,
    );
    assert.equal(seen, 503, `/healthz answered ${seen}; output:\n${c.out()}`);
    const code = await withTimeout(c.exit, 40_000, 'the blocked bot did not exit');
    assert.equal(code, 5, c.out());
    assert.match(c.out(), /event loop blocked/);
    assert.equal((await sim.openOrders()).length, 0, 'the watchdog cancelled every order of the bot at the venue');
    await withTimeout(closed, 10_000, 'the output of the bot did not close');
    assert.ok(!c.out().includes(sim.privateKey.slice(2)), 'the private key never appears in the output');
    assertOnlyWatchdogExit(c.out());
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('embedded local exchange: the watchdog says it cannot reach the blocked exchange and exits 5', async () => {
  const block = join(dir, 'block-embedded');
  writeFileSync(block, '');
  const file = join(dir, 'embedded.yaml');
  writeFileSync(
    file,
    `venue:
  local: { seed: 3, markets: 1 }
defaults:
  strategy:
    name: ${STRATEGY}
    params: { fair: mid, bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 5 }] }
  risk: { maxPosition: 100, maxNotional: 100 }
markets: all
metrics: { port: 0 }
watchdog: { blockedLimitSeconds: 2 }
`,
  );
  const c = cli(['run', '-c', file, '--log-level', 'warn', '--summary-seconds', '0'], { BOOKMAKER_TEST_BLOCK_FILE: block });
  const closed = outputClosed(c.proc);
  try {
    const code = await withTimeout(c.exit, 60_000, 'the blocked demo did not exit');
    assert.equal(code, 5, c.out());
    assert.match(c.out(), /embedded local exchange runs inside this blocked process/);
    await withTimeout(closed, 10_000, 'the output of the demo did not close');
    assertOnlyWatchdogExit(c.out());
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('stderr on a full disk: the watchdog still cancels every order at the venue and exits 5', {
  skip: !existsSync('/dev/full') && 'no /dev/full',
}, async (t) => {
  // /dev/full fails every write with ENOSPC, as a log file on a full disk does; before, the watchdog's first
  // log line threw out of its fire() and the cancel-all and the exit never ran: the orders stayed, the loop stayed blocked
  const block = join(dir, 'block-full');
  const file = join(dir, 'full.yaml');
  writeFileSync(file, simBotYaml('{ port: 0 }', '{ blockedLimitSeconds: 3 }'));
  const fd = openSync('/dev/full', 'w');
  const proc = spawn(process.execPath, cliArgs(['run', '-c', file, '--api-key', sim.key, '--log-level', 'info', '--summary-seconds', '0', '--new-ledger']), {
    cwd: new URL('../../', import.meta.url).pathname,
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_TEST_BLOCK_FILE: block },
    stdio: ['ignore', 'pipe', fd],
  });
  closeSync(fd);
  t.after(() => proc.kill('SIGKILL'));
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  await waitFor('the bot quotes at the venue', async () => proc.exitCode !== null || (await sim.openOrders()).length >= 2, 40_000);
  assert.equal(proc.exitCode, null, `the bot ended before quoting:\n${out}`);
  writeFileSync(block, '');
  assert.equal(await withTimeout(exit, 40_000, 'the blocked bot did not exit'), 5, out);
  assert.equal((await sim.openOrders()).length, 0, 'the watchdog cancelled every order of the bot at the venue');
});
