/**
 * The CLI as operators run it, in a child process: SIGTERM and --duration both cancel every order
 * and exit 0 with nothing of the bot left open at the venue; `run -c config/local.yaml` (the npm
 * start demo) stops by itself and exits 0.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BOT_KEY, cli, openOrders, setBook, startExchange, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let dir: string;
let file: string;

before(async () => {
  h = await startExchange({ markets: 2 });
  for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-e2e-'));
  file = join(dir, 'bot.yaml');
  writeFileSync(file, yaml(h));
});

after(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const botArgs = () => ['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'];

test('SIGTERM cancels every order and exits 0', async () => {
  const c = cli(botArgs(), { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
  try {
    await waitFor('the child quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 20_000);
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 20_000, 'child did not exit after SIGTERM');
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped \(SIGTERM\), exit 0/);
    assert.equal((await openOrders(h.bot)).length, 0, 'no order left open');
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('--duration stops by itself exactly as SIGTERM does', async () => {
  const c = cli([...botArgs(), '--duration', '3'], { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
  try {
    const code = await withTimeout(c.exit, 25_000, 'child did not stop after --duration');
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped \(duration\), exit 0/);
    assert.equal((await openOrders(h.bot)).length, 0);
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('the npm start demo (embedded local exchange, no keys) stops by itself with exit 0', async () => {
  const c = cli(['run', '-c', 'config/local.yaml', '--duration', '4', '--metrics-port', '0', '--summary-seconds', '1']);
  try {
    const code = await withTimeout(c.exit, 25_000, 'demo did not stop');
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /embedded local exchange/);
    assert.match(c.out(), /orders \d+ fills \d+ pnl [+-]\d+\.\d\d USDC/);
  } finally {
    c.proc.kill('SIGKILL');
  }
});
