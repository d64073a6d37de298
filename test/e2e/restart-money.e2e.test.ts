/**
 * Money exact across a restart, end to end against the local exchange over real HTTP (no
 * counterparties: the mover's orders are the only fills). Run 1 is `bookmaker run` in a child process
 * on a ledger file; it gets fills in its last seconds (a partial fill of an order that stays open, an
 * order filled whole and so ended), then stops: `kill -9` (and one more fill while it is down) or a
 * graceful SIGTERM. Run 2 starts at once in this process on the same ledger, within the own-orders
 * feed's first recent-orders window (30 s), so its first reads see the orders whose fills the ledger
 * already holds; one more fill comes in run 2. Then, to the unit:
 *   the store's position per market (every field: holdings, cost, realised PnL, fees, volume, fill
 *   count: what the kill switch, the limits and the tools without the books act on) = the books'
 *   (the kernel's account) = a replay of the ledger; the holdings = the venue's balance read;
 *   the ledger's collateral (baseline + cash) = the venue's; /metrics (the store's fill counters of
 *   this run, the books' account fills and PnL) = the ledger; the run report's realised PnL = `ledger
 *   summary`. A fill the ledger holds and the store counted again would show as one fill too many in
 *   the store's count and its fill counters (docs/ledger-operations.md, "Restarts and fills already held").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { cli, ledgerConfig, metricValue, onLedgerExchange, openOrders, scrapeMetrics, startTestBot, waitFor, withTimeout } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { assertMoneyAgrees, ledgerFillRows, ownReads, runChild, take } from './restart-checks.ts';
import { freePort } from '../support/net.ts';

/**
 * Run 1 in a child, its last-seconds fills, its stop (`how`), run 2 here, one fill in it, then every
 * comparison. Returns nothing: it asserts.
 */
async function restartCheck(how: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  await onLedgerExchange(async (h, ledger, dir) => {
    const [m0, m1] = h.markets as [Bytes32, Bytes32];
    const { child: run1, file } = runChild(h, dir, ledger);
    let bot: Bot | null = null;
    try {
      // a child's start-up alone (tsx, the venue, the warm-up) takes 10 s and more on a loaded machine
      await waitFor('run 1 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 120_000);
      // the last seconds' fills: part of m0's bid (the order stays open), all of m1's ask (it ends)
      await take(h, m0, 'bid', 4);
      await take(h, m1, 'ask', 10);
      await waitFor('run 1 recorded both fills in its ledger', () => ledgerFillRows(ledger).rows === 2, 30_000);
      await waitFor('run 1 quotes both markets again', async () => (await openOrders(h.bot)).length === 4, 30_000);
      run1.proc.kill(how);
      const code = await withTimeout(run1.exit, 60_000, `run 1 did not exit on ${how}`);
      if (how === 'SIGTERM') assert.equal(code, 0, run1.out());
      if (how === 'SIGKILL') {
        // its quotes stay at the venue: one more fill of m0's partly filled bid while the bot is down
        await take(h, m0, 'bid', 3);
      }
      const downFills = how === 'SIGKILL' ? 1 : 0;

      // run 2, at once (the closed order of m1 is within the feed's first recent-orders window)
      bot = await startTestBot(h, await ledgerConfig(h, ledger), { metricsPort: await freePort() });
      const b = bot;
      const start = ledgerFillRows(ledger);
      assert.equal(start.rows, 2 + downFills, `the catch-up recorded the fill made while down: ${JSON.stringify(start.bySource)}`);
      // several own-orders polls (1 s apart), then a fill of this run
      await waitFor('run 2 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 60_000);
      // (the first read of every page, then the polls after it: a re-delivery would come in the first)
      await waitFor('three own-orders reads of run 2', async () => ownReads(await scrapeMetrics(b)) >= 3, 30_000);
      await take(h, m1, 'bid', 2);
      await waitFor('run 2 took its fill', () => (b.store.state.markets.get(m1.toLowerCase() as Bytes32)?.position.fills ?? 0) >= 2, 30_000);
      await waitFor('run 2 recorded its fill in the ledger', () => ledgerFillRows(ledger).rows === 3 + downFills, 30_000);
      // (after a balance read that holds it: the store's position is the venue's read between reads)
      await assertMoneyAgrees(h, b, ledger);
      // every fill once: 2 in run 1, the one while down, 1 in run 2
      const fills = [...b.store.state.markets.values()].reduce((n, mk) => n + mk.position.fills, 0);
      assert.equal(fills, 3 + downFills, "the store's fill count over the markets");
      const text = await scrapeMetrics(b);
      const counted = h.markets.reduce(
        (n, m) =>
          n +
          (metricValue(text, `bookmaker_fills_total{market="${m.toLowerCase()}",side="buy"}`) || 0) +
          (metricValue(text, `bookmaker_fills_total{market="${m.toLowerCase()}",side="sell"}`) || 0),
        0,
      );
      assert.equal(
        counted,
        1,
        `the store's fill counters of this run: its one fill, nothing held before counted again\n${text
          .split('\n')
          .filter((l) => l.startsWith('bookmaker_fills_total'))
          .join('\n')}`,
      );
      const summary = readLedgerFile(ledger, (l) => ledgerSummary(l));
      assert.equal(summary.fills, 3 + downFills);
      assert.equal(metricValue(text, 'bookmaker_account_fills'), summary.fills, '/metrics account fills = ledger summary');

      bot = null;
      assert.equal(await b.stop(), 0);
      const report = b.report('test', 0).account;
      assert.ok(report, 'the run report has its account figures');
      const after = readLedgerFile(ledger, (l) => ledgerSummary(l));
      assert.equal(after.fills, 3 + downFills, 'no fill recorded twice by the stop');
      assert.equal(Math.round(Number(report.realisedUsdc) * 1e6), Math.round(after.pnl.realised * 1e6), "the run report's realised PnL = ledger summary's");
      // `bookmaker ledger summary` itself, as an operator runs it
      const s = cli(['ledger', 'summary', '-c', file, '--json']);
      assert.equal(await withTimeout(s.exit, 60_000, 'ledger summary did not exit'), 0, s.out());
      const printed = JSON.parse(s.out()) as { fills: number; pnl: { realised: number; total: number } };
      assert.equal(printed.fills, 3 + downFills);
      assert.equal(Math.round(printed.pnl.realised * 1e6), Math.round(after.pnl.realised * 1e6));
      assert.equal(Math.round(printed.pnl.total * 1e6), Math.round(Number(report.pnlUsdc) * 1e6), "the run report's PnL = ledger summary's");
    } finally {
      if (run1.proc.exitCode === null && run1.proc.signalCode === null) run1.proc.kill('SIGKILL');
      if (bot) await bot.stop();
    }
  });
}

test('kill -9 right after fills, a fill while down, restart at once: the store, the books, the ledger, metrics and the venue agree to the unit', async () => {
  await restartCheck('SIGKILL');
});

test('graceful stop right after fills, restart at once: the store, the books, the ledger, metrics and the venue agree to the unit', async () => {
  await restartCheck('SIGTERM');
});
