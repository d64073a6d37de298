/**
 * Observation 7: a busy metrics port is a start-up error (exit 2, the message names the
 * port), not a warning followed by a blind run, unless `metrics.optional: true`. Both with the
 * watchdog (which owns the socket) and without it (the in-process endpoint).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { BOT_KEY, cli, openOrders, exchangeForFile, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let dir: string;
let busy: Server;
let port: number;

exchangeForFile({ markets: 1 }, async (x, d) => {
  h = x;
  dir = d;
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  port = (busy.address() as { port: number }).port;
  return () => new Promise<void>((r) => busy.close(() => r()));
});

function botFile(name: string, extra: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml(h).replace('metrics:\n  port: 0\n', `metrics:\n  port: ${port}\n${extra}`));
  return file;
}

const env = () => ({ BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
const args = (file: string) => ['run', '-c', file, '--api-key', BOT_KEY, '--log-level', 'warn', '--summary-seconds', '0', '--duration', '20'];

for (const [label, watchdog] of [
  ['with the watchdog', ''],
  ['without the watchdog', 'watchdog:\n  blockedLimitSeconds: 0\n'],
] as const) {
  test(`busy metrics port → exit 2 naming the port, nothing left at the venue (${label})`, async () => {
    const c = cli(args(botFile(`busy-${watchdog ? 'nowd' : 'wd'}.yaml`, watchdog)), env());
    try {
      const code = await withTimeout(c.exit, 40_000, 'the bot did not stop on a busy metrics port');
      assert.equal(code, 2, c.out());
      assert.match(c.out(), new RegExp(`metrics port ${port} on 127\\.0\\.0\\.1 cannot be bound \\(EADDRINUSE`));
      assert.equal((await openOrders(h.bot)).length, 0, 'nothing of the bot left at the venue');
    } finally {
      c.proc.kill('SIGKILL');
    }
  });
}

test('metrics.optional: true runs without metrics and says so', async () => {
  const c = cli(args(botFile('optional.yaml', '  optional: true\n')), env());
  try {
    await waitFor('the bot quotes without metrics', async () => (await openOrders(h.bot)).length >= 2, 30_000);
    assert.match(c.out(), /metrics endpoint could not start; continuing without it \(metrics.optional: true\)/);
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, 30_000, 'no exit after SIGTERM'), 0, c.out());
  } finally {
    c.proc.kill('SIGKILL');
  }
});
