/**
 * Crash and restart: a bot killed with SIGKILL leaves its quotes at the venue; the next bot adopts
 * (or cancels) every one of them at start-up and never holds two orders for one quote slot.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import {
  BOT_KEY,
  cli,
  config,
  onLedgerExchange,
  openOrders,
  setBook,
  startExchange,
  startTestBot,
  waitFor,
  withTimeout,
  yaml,
  yesTerms,
  type Harness,
} from './harness.ts';

async function perSlot(h: Harness, m: Bytes32): Promise<{ bids: number; asks: number }> {
  const ys = (await openOrders(h.bot, m)).map(yesTerms);
  return { bids: ys.filter((y) => y.side === 'bid').length, asks: ys.filter((y) => y.side === 'ask').length };
}

test('a restart after a crash adopts what it finds and never double-quotes', async () => {
  await onLedgerExchange(async (h, _ledger, dir) => {
    const file = join(dir, 'bot.yaml');
    writeFileSync(file, yaml(h));
    const c = cli(['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
    });
    // a child process: its start-up alone (tsx, the venue, the warm-up) takes 10 s and more on a loaded machine
    await waitFor('the first bot quotes', async () => (await openOrders(h.bot)).length === 4, 120_000);
    c.proc.kill('SIGKILL'); // a crash: no cancel
    await withTimeout(c.exit, 10_000, 'child did not die');
    const left = await openOrders(h.bot);
    assert.equal(left.length, 4, 'the crashed bot left its quotes');

    const bot = await startTestBot(h, await config(h));
    try {
      const adopted = bot.store.state.markets;
      // the start-up reconcile is done when startBot returns: the four orders are adopted and working
      assert.deepEqual(
        bot.orderManager
          .tracked()
          .map((t) => [t.planned.nonce, t.state])
          .sort(),
        left.map((o) => [o.nonce, 'working']).sort(),
      );
      // look at the venue for at least 20 looks and past the stream-silence limit (3 s) and a periodic
      // reconcile (2 s), counted from here however slow the machine: one order per slot at most at
      // every look (a quiet market's stream must not be judged silent and its adopted quotes replaced)
      const until = Date.now() + 4_000;
      for (let i = 0; i < 20 || Date.now() < until; i++) {
        for (const m of h.markets) {
          const s = await perSlot(h, m);
          assert.ok(s.bids <= 1 && s.asks <= 1, `two orders for one slot in ${m}: ${JSON.stringify(s)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const now = await openOrders(h.bot);
      assert.equal(now.length, 4);
      // the same book and strategy want the same quotes: every order was adopted, none replaced
      assert.deepEqual(now.map((o) => o.nonce).sort(), left.map((o) => o.nonce).sort());
      assert.ok([...adopted.values()].every((m) => m.orders.size === 2));
    } finally {
      assert.equal(await bot.stop(), 0);
    }
    assert.equal((await openOrders(h.bot)).length, 0);
  });
});

test('a restart into a moved market cancels the stale quotes and requotes once per slot', async () => {
  const h = await startExchange({ markets: 1 });
  const m = h.markets[0]!;
  try {
    await setBook(h, m, 480_000, 520_000);
    const first = await startTestBot(h, await config(h));
    await waitFor('first quotes', async () => (await openOrders(h.bot)).length === 2, 60_000);
    // simulate a crash: stop quoting without cancelling
    first.kernel.stop();
    const before = (await openOrders(h.bot)).map((o) => o.nonce);
    await setBook(h, m, 680_000, 720_000);
    const bot = await startTestBot(h, await config(h));
    try {
      await waitFor(
        'requoted around 0.70',
        async () => {
          const ys = (await openOrders(h.bot)).map(yesTerms);
          return ys.length === 2 && ys.some((y) => y.side === 'bid' && y.price === 680_000);
        },
        60_000,
      );
      const after = (await openOrders(h.bot)).map((o) => o.nonce);
      assert.ok(
        after.every((n) => !before.includes(n)),
        'the stale quotes are gone',
      );
      const s = await perSlot(h, m);
      assert.deepEqual(s, { bids: 1, asks: 1 });
    } finally {
      await bot.stop();
      // the first bot's own clients are closed by its stop (its orders are already handled)
      await first.stop();
    }
  } finally {
    await h.close();
  }
});
