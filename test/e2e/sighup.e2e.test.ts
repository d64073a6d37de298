/**
 * SIGHUP reloads the config of a running `bookmaker run`: a bad file is refused with the
 * loader's message and the quotes stay as they were; a good one applies (a band size) without a
 * restart; SIGTERM still stops cleanly (exit 0, nothing left open).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BOT_KEY, cli, openOrders, setBook, startExchange, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

const file = (h: Harness, ledger: string, size: number, margins = 'minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03'): string =>
  yaml(h, { strategy: `      fair: mid\n      bands:\n        - { ${margins}, size: ${size} }` }) + `ledger:\n  path: ${ledger}\n`;

const shares = (o: { size: number; side: number; sv2MinSharesOut: bigint | null }): number =>
  o.side === 0 && o.sv2MinSharesOut !== null ? Number(o.sv2MinSharesOut) : o.size;

test('SIGHUP: a bad file is refused and the quotes stay; a good one applies without a restart', async () => {
  const h = await startExchange({ markets: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-sighup-'));
  const cfg = join(dir, 'bot.yaml');
  const ledger = join(dir, 'books.sqlite');
  try {
    await setBook(h, h.markets[0]!, 480_000, 520_000);
    writeFileSync(cfg, file(h, ledger, 10));
    const c = cli(['run', '-c', cfg, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
    });
    try {
      await waitFor(
        'quotes of 10',
        async () => {
          const os = await openOrders(h.bot);
          return os.length === 2 && os.every((o) => shares(o) === 10_000_000);
        },
        30_000,
      );
      const before = (await openOrders(h.bot)).map((o) => o.nonce).sort();

      writeFileSync(cfg, file(h, ledger, -5));
      c.proc.kill('SIGHUP');
      await waitFor('the refusal is reported', () => /reload \(SIGHUP\).*"error":"[^"]*size/.test(c.out()), 20_000);
      assert.deepEqual((await openOrders(h.bot)).map((o) => o.nonce).sort(), before, 'a refused reload changes nothing');

      // the band moves out to 3-5¢ with 12 shares (bands keeps an order inside its band as it is)
      writeFileSync(cfg, file(h, ledger, 12, 'minMargin: 0.03, targetMargin: 0.04, maxMargin: 0.05'));
      c.proc.kill('SIGHUP');
      await waitFor(
        'quotes of 12',
        async () => {
          const os = await openOrders(h.bot);
          return os.length === 2 && os.every((o) => shares(o) === 12_000_000);
        },
        20_000,
      );
      assert.equal(c.proc.exitCode, null, 'still the same process');
      c.proc.kill('SIGTERM');
      assert.equal(await withTimeout(c.exit, 30_000, 'no exit after SIGTERM'), 0, c.out());
    } finally {
      if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    }
    assert.equal((await openOrders(h.bot)).length, 0);
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
