/**
 * The ledger fails closed, on the user's path: `bookmaker run` against the local exchange.
 *   - two bots on one ledger: the second `run` is refused (exit 2) naming the holder; `ledger summary`
 *     still reads; after `kill -9` of the holder a restart runs (no stale lock);
 *   - the ledger deleted while the bot runs: every quote pulled, /readyz 503 `ledger-unwritable`,
 *     bookmaker_ledger_unwritable 1;
 *   - disk full (a tmpfs, as root): the same, and quoting resumes once space is freed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Bot } from '../../src/runtime/bot.ts';
import { readLatchFile } from '../../src/ledger/latch-file.ts';
import { EXIT_KILL_SWITCH, EXIT_LEDGER_UNWRITABLE } from '../../src/runtime/bot.ts';
import type { BotConfig } from '../../src/config/types.ts';
import {
  BOT_KEY,
  cli,
  ledgerConfig,
  LOSS_RISK,
  onLedgerExchange,
  openOrders,
  place,
  setBook,
  startExchange,
  startTestBot,
  waitFor,
  withTimeout,
  yaml,
  type Harness,
  waitQuoting,
} from './harness.ts';

function cfgText(h: Harness, ledger: string): string {
  return `${yaml(h)}ledger:
  path: ${ledger}
  markSeconds: 1
  unwritableGraceSeconds: 1
`;
}

/** The harness's config with a ledger at `ledger` that may stay unwritable for `grace` seconds. */
function failsafeConfig(h: Harness, ledger: string, grace = 1, extra: Parameters<typeof yaml>[1] = {}): Promise<BotConfig> {
  return ledgerConfig(h, ledger, { ...extra, ledger: `  unwritableGraceSeconds: ${grace}\n` });
}

/** Fill the file system holding `path` until it refuses more. */
function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  for (const size of [256 * 1024, 4096, 512]) {
    try {
      for (;;) writeSync(fd, Buffer.alloc(size));
    } catch {
      // ENOSPC
    }
  }
  closeSync(fd);
}

/** Mount a small tmpfs (root only); null when refused. */
function tmpfs(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

function unmount(dir: string): void {
  execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
}

async function quoting(h: Harness): Promise<void> {
  await waitQuoting(h, 30_000);
}

async function gauge(bot: Bot, name: string): Promise<number> {
  const text = await bot.metrics.registry.metrics();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

/** /readyz as an operator sees it: status and body. */
async function readyz(bot: Bot): Promise<{ status: number; body: string }> {
  const r = await fetch(`${bot.metricsUrl}/readyz`);
  return { status: r.status, body: await r.text() };
}

test('two bots on one ledger: the second run is refused (exit 2) naming the holder; readers read; after kill -9 a restart runs', async () => {
  const h = await startExchange({ markets: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-two-writers-'));
  const ledger = join(dir, 'books.sqlite');
  const file = join(dir, 'bot.yaml');
  const children: ReturnType<typeof cli>[] = [];
  const run = (): ReturnType<typeof cli> => {
    const c = cli(['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
    });
    children.push(c);
    return c;
  };
  try {
    await setBook(h, h.markets[0]!, 480_000, 520_000);
    writeFileSync(file, cfgText(h, ledger));
    const first = run();
    await quoting(h);
    const second = run();
    assert.equal(await withTimeout(second.exit, 60_000, 'the second bot did not exit'), 2, second.out());
    assert.match(second.out(), new RegExp(`ledger ${ledger.replaceAll('.', '\\.')} is in use by another bookmaker \\(pid ${first.proc.pid} on `));
    assert.ok((await openOrders(h.bot)).length >= 2, 'the first bot quotes on');
    const summary = cli(['ledger', 'summary', '--ledger', ledger]);
    assert.equal(await withTimeout(summary.exit, 30_000, 'ledger summary did not exit'), 0, summary.out());
    assert.match(summary.out(), /^killSwitch\s+clear$/m);
    first.proc.kill('SIGKILL');
    await withTimeout(first.exit, 10_000, 'the first bot did not die');
    const third = run();
    await waitFor('the restart runs', () => /quoting 1 market/.test(third.out()), 60_000);
    third.proc.kill('SIGTERM');
    assert.equal(await withTimeout(third.exit, 30_000, 'the restart did not stop'), 0, third.out());
  } finally {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the ledger deleted while the bot runs: every quote pulled, /readyz 503 ledger-unwritable, the metric set', async () => {
  await onLedgerExchange(async (h, ledger) => {
    const bot = await startTestBot(h, await failsafeConfig(h, ledger));
    try {
      await quoting(h);
      assert.equal(await gauge(bot, 'bookmaker_ledger_unwritable'), 0);
      for (const f of [ledger, `${ledger}-wal`, `${ledger}-shm`]) rmSync(f, { force: true });
      await waitFor('every quote pulled', async () => (await openOrders(h.bot)).length === 0, 30_000);
      assert.equal(await gauge(bot, 'bookmaker_ledger_unwritable'), 1);
      assert.equal(await gauge(bot, 'bookmaker_ready'), 0);
      const r = bot.healthModel.readiness();
      assert.ok(
        r.reasons.some((x) => /^ledger-unwritable: the ledger file .* is gone \(ENOENT\)/.test(x)),
        r.reasons.join(' | '),
      );
      assert.ok(
        r.markets.every((m) => m.state === 'ledger-unwritable'),
        JSON.stringify(r.markets),
      );
      if (bot.metricsUrl) {
        const z = await readyz(bot);
        assert.equal(z.status, 503);
        assert.match(z.body, /ledger-unwritable/);
      }
      // it stays held: nothing is placed again
      for (let i = 0; i < 4; i++) {
        await new Promise((res) => setTimeout(res, 250));
        assert.equal((await openOrders(h.bot)).length, 0);
      }
      // the stop tells the supervisor: not exit 0, and the books of this run are not on disk
      assert.equal(await bot.stop(), EXIT_LEDGER_UNWRITABLE);
      const lost = bot.booksNotOnDisk();
      assert.ok(lost, 'booksNotOnDisk after a stop with the ledger deleted');
      assert.match(lost.message, /the books of this run are not on disk: the ledger .* could not be written \(the ledger file .* is gone/);
      assert.match(lost.message, /run report/);
    } finally {
      await bot.stop();
    }
  });
});

/**
 * `body` on `onLedgerExchange` with the ledger's folder a 4 MB tmpfs, and `filler` a file in it to fill
 * the disk with; the test is skipped where the mount is refused.
 */
async function onFullableDisk(t: TestContext, body: (h: Harness, ledger: string, filler: string) => Promise<void>): Promise<void> {
  const dir = tmpfs('4m');
  if (!dir) {
    t.skip('tmpfs mount refused');
    return;
  }
  await onLedgerExchange((h, ledger) => body(h, ledger, join(dir, 'filler')), { dir, removeDir: unmount });
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;

test('disk full (a tmpfs): every quote pulled and not ready; quoting resumes once space is freed', {
  skip: root ? false : 'needs root to mount a tmpfs (test/ledger/ledger-durability.test.ts injects the write error instead)',
}, async (t) => {
  await onFullableDisk(t, async (h, ledger, filler) => {
    const bot = await startTestBot(h, await failsafeConfig(h, ledger));
    try {
      await quoting(h);
      fillDisk(filler);
      await waitFor('every quote pulled', async () => (await openOrders(h.bot)).length === 0, 30_000);
      assert.equal(await gauge(bot, 'bookmaker_ledger_unwritable'), 1);
      assert.equal(await gauge(bot, 'bookmaker_ready'), 0);
      assert.ok(
        bot.healthModel.readiness().reasons.some((x) => /^ledger-unwritable: writes fail: .*full/.test(x)),
        bot.healthModel.readiness().reasons.join(' | '),
      );
      assert.ok((await gauge(bot, 'bookmaker_ledger_write_failures')) > 0);
      rmSync(filler);
      await quoting(h);
      await waitFor('writable again', async () => (await gauge(bot, 'bookmaker_ledger_unwritable')) === 0, 10_000);
      assert.equal(bot.healthModel.readiness().reasons.filter((x) => x.startsWith('ledger')).length, 0);
    } finally {
      await bot.stop();
    }
  });
});

test('disk full when the kill switch fires: the latch lands in the latch file, and after space is freed the restart does not quote', {
  skip: root ? false : 'needs root to mount a tmpfs',
}, async (t) => {
  await onFullableDisk(t, async (h, ledger, filler) => {
    // a long grace: the bot quotes on with the disk full, so the kill switch is what stops it
    const cfg = await failsafeConfig(h, ledger, 600, { risk: LOSS_RISK, account: '  maxDrawdown: 0.5' });
    const bot1 = await startTestBot(h, cfg);
    try {
      await quoting(h);
      fillDisk(filler);
      const m = h.markets[0]!;
      await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: 480_000, shares: 10, timeInForce: 1, inventoryMode: 2 });
      await waitFor('fill seen', () => (bot1.store.state.markets.get(m.toLowerCase())?.position.net ?? 0) > 0);
      await setBook(h, m, 260_000, 300_000);
      assert.equal(await withTimeout(bot1.exit, 30_000, 'no kill within 30 s'), EXIT_KILL_SWITCH);
    } finally {
      await bot1.stop();
    }
    // the kill switch keeps its code; the books not on disk are said all the same (run's last log line)
    assert.match(bot1.booksNotOnDisk()?.message ?? '(null)', /the books of this run are not on disk: .*writes fail/);
    assert.equal(readLatchFile(ledger)?.reason, 'KILL_DRAWDOWN', 'the latch file holds it');
    rmSync(filler);
    const bot2 = await startTestBot(h, cfg);
    try {
      assert.equal(bot2.kernel.killed, 'KILL_DRAWDOWN', 'a latched restart holds with the original reason');
      assert.equal(bot2.ledger.latch?.reason, 'KILL_DRAWDOWN');
      for (let i = 0; i < 8; i++) {
        assert.equal((await openOrders(h.bot)).length, 0, 'a latched restart places nothing');
        await new Promise((res) => setTimeout(res, 250));
      }
    } finally {
      await bot2.stop();
    }
  });
});
