/**
 * A claim made while the bot runs, in a market whose payout the store does not know, over real HTTP
 * against the local exchange: the bot buys 10 YES in m1, the exchange resolves m1 split (a YES share
 * pays 0.50: no winning outcome, so the market feed states no payout and the market stays followed by
 * the balance reads), the bot reads it claimable (5 USDC, the payout from the claimable list), and the
 * venue's auto-claim redeems the tokens while the bot runs. The next balance read shows none held while
 * the books hold 10: the claims tracker is told (src/runtime/claims/claims-tracker.ts balanceBelowBooks)
 * and reads the claimable list at once, so the books record the claim within a read and the drift
 * never outlasts the grace: /readyz stays ready (booksAgree) at every poll until the claim is in, and the
 * cash gained is what the venue paid.
 * Before the fix the claim waited for the tracker's next re-read (60 s after the read that showed it
 * claimable, up to 15 min once reads changed nothing): books-drift past the 30 s grace, /readyz 503
 * (booksAgree false) from ~35 s, and past 5 minutes the BookmakerNotReady alert. The test fails there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { freePort } from '../support/net.ts';
import { boughtYes, ledgerConfig, metricValue, onLedgerExchange, scrapeMetrics, startTestBot, waitFor } from './harness.ts';

test('a claim made while the bot runs reaches the books within a read: the drift never outlasts the grace', { timeout: 240_000 }, async () => {
  await onLedgerExchange(async (h, ledger) => {
    const [m1] = h.markets as [Bytes32, Bytes32];
    const m1l = m1.toLowerCase() as Bytes32;
    const bot: Bot = await startTestBot(h, await ledgerConfig(h, ledger), { metricsPort: await freePort() });
    try {
      await boughtYes(h, bot, m1, 10);
      h.ex.state.services.resolveMarket(m1, 500_000, Date.now(), 'e2e: split');
      await waitFor(
        'the claimable position is seen',
        () => bot.report('test', 0).claims?.markets.some((m) => m.marketId === m1l && m.state === 'claimable' && m.claimableUsdc === '5.000000') === true,
        30_000,
      );
      assert.equal(bot.kernel.account.market(m1l)?.payoutYes, null, 'the books do not know the payout (no winning outcome)');
      const cashBefore = bot.kernel.account.figures().cash;

      // the venue's auto-claim, while the bot runs
      const paid = h.ex.state.services.claimPosition(h.bot.wallet, m1, 'auto', Date.now());
      assert.equal(paid, 5_000_000n);
      let polls = 0;
      // until the books record the claim: ready at every poll (a drift past the grace would say booksAgree false)
      await waitFor(
        'the books record the claim, ready all along',
        async () => {
          const r = (await (await fetch(`${bot.metricsUrl}/readyz`)).json()) as { checks: { booksAgree: boolean } };
          polls++;
          assert.equal(r.checks.booksAgree, true, `books-drift past the grace at poll ${polls}`);
          // (keptMarket: m1 retired as resolved, so once claimed, with nothing held, its book folds away)
          return bot.kernel.account.keptMarket(m1l)?.yes === 0;
        },
        120_000,
      );
      const m = bot.kernel.account.keptMarket(m1l)!;
      assert.equal(m.claimed, true);
      assert.equal(m.payoutYes, 500_000, 'at the payout the claimable list stated');
      assert.equal(bot.kernel.account.figures().cash - cashBefore, paid, 'the cash gained is what the venue paid');
      await waitFor('no drift left', () => bot.kernel.account.drifts().length === 0, 20_000);
      assert.equal(metricValue(await scrapeMetrics(bot), 'bookmaker_books_drift_markets'), 0);
      assert.ok(
        bot.report('test', 0).claims?.markets.some((x) => x.marketId === m1l && x.state === 'claimed'),
        'the report lists the market claimed',
      );
    } finally {
      await bot.stop();
    }
  });
});
