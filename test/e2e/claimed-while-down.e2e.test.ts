/**
 * A claim made while the bot was down, over real HTTP against the local exchange: the bot buys 10 YES
 * in one market, the exchange resolves it YES, the bot sees it claimable, and stops. While it is down
 * the venue's auto-claim redeems the 10 tokens (`services.claimPosition`, src/sim/claims.ts): the
 * market never shows claimable to the next start. The next start reads the wallet's portfolio for the
 * resolved markets its books hold unclaimed (src/runtime/claims/claims-tracker.ts) and records the
 * claim. To the unit: its books (every figure, every market's, the positions) equal those of a bot
 * that saw the claim (the first run's books, rebuilt from its ledger, with the same claim applied);
 * the cash they gained is what the venue paid into the collateral; the ledger, replayed after the
 * second run, says the same. Before the claim, the books' resolved-unclaimed figure is one function's
 * (src/account/books-claimable.ts) in the run report, the gauge `bookmaker_books_claimable_usdc` and
 * `ledger summary`'s `claimable`: 10 USDC each, what the venue lists claimable; 0 once claimed.
 * Before the fix the second run's books kept the 10 tokens as held (realised PnL right: the payout
 * was known) and the cash 10 USDC short (-4.8 instead of 5.2), and the balance read (0 held) raised
 * `books-drift` past the grace (bookmaker_books_drift_markets 1, /readyz not ready) that nothing cleared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountFromLedger, ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { accountLedger } from '../../src/sim/routes/account/ledger-of.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { freePort } from '../support/net.ts';
import { boughtYes, ledgerConfig, metricValue, onLedgerExchange, scrapeMetrics, setBook, startTestBot, waitFor } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';

test('a claim made while the bot was down reaches the books at the next start, to the unit', { timeout: 180_000 }, async () => {
  await onLedgerExchange(async (h, ledger) => {
    const [m1, m2] = h.markets as [Bytes32, Bytes32];
    const m1l = m1.toLowerCase() as Bytes32;
    await setBook(h, m1, 460_000, 540_000);
    await setBook(h, m2, 460_000, 540_000);
    let bot: Bot | null = await startTestBot(h, await ledgerConfig(h, ledger), { metricsPort: await freePort() });
    let bot2: Bot | null = null;
    try {
      const b1 = bot;
      await boughtYes(h, b1, m1, 10);
      h.ex.state.services.resolveMarket(m1, 1_000_000, Date.now(), 'e2e: YES');
      await waitFor(
        'the claimable position is seen',
        () => b1.report('test', 0).claims?.markets.some((m) => m.marketId === m1l && m.state === 'claimable') === true,
        30_000,
      );
      await waitFor('the books hold the payout', () => b1.kernel.account.market(m1l)?.payoutYes === 1_000_000, 20_000);
      // the books' resolved-unclaimed figure, one function (src/account/books-claimable.ts) in the run
      // report, the gauge and `ledger summary` (below): 10 USDC, what the venue lists claimable too
      const claims = b1.report('test', 0).claims!;
      assert.deepEqual(claims.books, { markets: 1, claimableUsdc: '10.000000' });
      assert.equal(claims.totalClaimableUsdc, '10.000000', "the venue's word agrees");
      assert.equal(metricValue(await scrapeMetrics(b1), 'bookmaker_books_claimable_usdc'), 10);
      assert.equal(await b1.stop(), 0);
      bot = null;

      // what a bot that stayed up and saw the claim holds: the first run's books with the claim applied
      const ref = readLedgerFile(ledger, (l) => accountFromLedger(l));
      const unclaimed = readLedgerFile(ledger, (l) => ledgerSummary(l).claimable);
      assert.deepEqual(unclaimed, { totalUsdc: 10, markets: [{ marketId: m1l, payoutYes: 1, yes: 10, no: 0, claimableUsdc: 10 }] });
      assert.deepEqual(ref.unclaimedResolved(), [m1l]);
      const cashBefore = ref.figures().cash;
      ref.claimed(m1l);

      // while the bot is down, the venue's auto-claim redeems the 10 YES
      const venue = accountLedger(h.ex.state);
      const collateralBefore = venue.collateral(h.bot.wallet).total;
      const paid = h.ex.state.services.claimPosition(h.bot.wallet, m1, 'auto', Date.now());
      assert.equal(paid, 10_000_000n);
      assert.equal(venue.collateral(h.bot.wallet).total - collateralBefore, paid);
      const row = (await h.bot.client.portfolio.get(h.bot.wallet, { marketId: m1 })).portfolio;
      assert.deepEqual(
        row.map((r) => ({ o: r.outcomeIndex, balance: r.balance, state: r.claimState, redeemed: r.tokensRedeemed, claimable: r.claimableAmount })),
        [{ o: 1, balance: 0n, state: 'autoclaimed', redeemed: 10_000_000n, claimable: 0n }],
      );

      bot2 = await startTestBot(h, await ledgerConfig(h, ledger));
      const b2 = bot2;
      await waitFor('the next start records the claim', () => !b2.kernel.account.unclaimedResolved().includes(m1l), 60_000);
      const live = b2.kernel.account;
      const { markedAt: _a, ...got } = live.figures();
      const { markedAt: _b, ...want } = ref.figures();
      assert.deepEqual(got, want, 'the books equal those of a bot that saw the claim');
      assert.equal(got.cash - cashBefore, paid, 'the cash gained is what the venue paid');
      assert.deepEqual(live.positions(), ref.positions());
      assert.ok(!live.positions().some((p) => p.marketId === m1l), 'the claimed tokens are no longer held');
      // (keptMarket: run 2 retires m1 at start, resolved, so once claimed, with nothing held, its book folds away)
      assert.deepEqual(live.keptMarket(m1l), ref.market(m1l));
      assert.deepEqual(live.drifts(), []);
      assert.ok(
        b2.report('test', 0).claims?.markets.some((m) => m.marketId === m1l && m.state === 'claimed'),
        'the report lists the market claimed',
      );
      assert.equal(await b2.stop(), 0);
      bot2 = null;

      // the ledger, replayed: the same books (what `ledger summary` and the next restart show)
      const replayed = readLedgerFile(ledger, (l) => ({ account: accountFromLedger(l), summary: ledgerSummary(l) }));
      const { markedAt: _c, ...again } = replayed.account.figures();
      assert.deepEqual(again, want);
      assert.deepEqual(replayed.account.market(m1l), ref.market(m1l));
      assert.equal(replayed.summary.cashUsdc, Number(want.cash) / 1e6);
      assert.ok(!replayed.summary.positions.some((p) => p.marketId === m1l));
      assert.deepEqual(replayed.summary.claimable, { totalUsdc: 0, markets: [] }, 'claimed: nothing left to claim');
    } finally {
      await bot?.stop();
      await bot2?.stop();
    }
  });
});
