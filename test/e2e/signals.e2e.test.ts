/**
 * The CLI as operators run it, in a child process: SIGTERM and --duration both cancel every order
 * and exit 0 with nothing of the bot left open at the venue; `run -c config/local.yaml` (the npm
 * start demo) stops by itself and exits 0.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BOT_KEY, cli, openOrders, exchangeForFile, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let dir: string;
let file: string;

exchangeForFile({}, (x, d) => {
  h = x;
  dir = d;
  file = join(dir, 'bot.yaml');
  writeFileSync(file, yaml(h));
});

const botArgs = () => ['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'];

test('SIGTERM cancels every order and exits 0', async () => {
  const c = cli(botArgs(), { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
  try {
    // a child process: its start-up alone takes 10 s and more on a loaded machine
    await waitFor('the child quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 120_000);
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 20_000, 'child did not exit after SIGTERM');
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped \(SIGTERM\), exit 0/);
    assert.equal((await openOrders(h.bot)).length, 0, 'no order left open');
  } finally {
    c.proc.kill('SIGKILL');
  }
});

/**
 * A run with `--duration`, which counts from the first millisecond: on a loaded machine the start-up
 * alone can outlast a short one (the run then stops during start-up, exit 0, before it quotes). Such a
 * run is checked for its exit and tried again with twice the duration, so what follows is checked on
 * a run that started, whatever the machine's speed (not a timing assertion).
 */
async function runForDuration(args: string[], env: NodeJS.ProcessEnv, first = 4): Promise<{ code: number | null; out: string }> {
  for (let secs = first; ; secs *= 2) {
    const c = cli([...args, '--duration', String(secs)], env);
    try {
      const code = await withTimeout(c.exit, 60_000 + secs * 1000, `the run did not stop after --duration ${secs}`);
      if (/stopped during start-up \(duration\), exit 0/.test(c.out()) && secs < 64) {
        assert.equal(code, 0, c.out());
        continue;
      }
      return { code, out: c.out() };
    } finally {
      c.proc.kill('SIGKILL');
    }
  }
}

test('--duration stops by itself exactly as SIGTERM does', async () => {
  const r = await runForDuration(botArgs(), { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey }, 3);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /stopped \(duration\), exit 0/);
  assert.equal((await openOrders(h.bot)).length, 0);
});

test('the npm start demo (embedded local exchange, no keys) stops by itself with exit 0', async () => {
  const r = await runForDuration(['run', '-c', 'config/local.yaml', '--metrics-port', '0', '--summary-seconds', '1'], {}, 4);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /embedded local exchange/);
  assert.match(r.out, /orders \d+ fills \d+ pnl [+-]\d+\.\d\d USDC/);
});
