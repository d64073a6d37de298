/**
 * A claim made while the bot was down in a market the bot no longer follows, over real HTTP against the
 * local exchange: the bot buys 10 YES in m1 and stops before m1 resolves. While it is down m1 resolves
 * YES and the venue's auto-claim redeems the 10 tokens; the next start follows only m2 (m1 was
 * unselected), so no market feed ever tells the books m1's payout, and the claimable list never shows
 * it. The start-up claim check (src/runtime/claims/claims-tracker.ts) covers every market the books hold
 * tokens in, followed or not: the portfolio shows m1 claimed, the market read says it resolved YES, and
 * the books record the resolution and the claim. To the unit: the books equal those of a bot that saw
 * both (the first run's books, rebuilt from its ledger, resolved and claimed); the cash gained is what
 * the venue paid; the ledger replayed says the same; no drift.
 * Before the fix the second start never looked m1 up (`unclaimedResolved` is only the markets whose
 * payout the books know): its books kept the 10 YES held, unresolved and marked at the last mid, and the
 * cash 10 USDC short, for as long as they held them (the run report, `ledger summary`).
 * No balance read names m1 (the balance poll syncs the followed markets), so no `books-drift` said so
 * either: the test waits for the claim to be recorded, and times out on the old code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { ledgerConfig, metricValue, onLedgerExchange, scrapeMetrics, startTestBot, waitFor } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { freePort } from '../support/net.ts';
import { assertBooksClaimed, assertReplayClaimed, run1HoldsYes, venueResolvesAndClaims } from './unfollowed-claim.ts';

test('a claim made while the bot was down in a market it no longer follows reaches the books at the next start', { timeout: 180_000 }, async () => {
  await onLedgerExchange(async (h, ledger) => {
    const [m1, m2] = h.markets as [Bytes32, Bytes32];
    const m1l = m1.toLowerCase() as Bytes32;
    let bot2: Bot | null = null;
    try {
      // run 1 buys 10 YES in m1 and stops; ref: what a bot that stayed up and saw the resolution and the claim holds
      const { ref, cashBefore } = await run1HoldsYes(h, ledger, m1, 10);

      // while the bot is down: m1 resolves YES and the venue's auto-claim redeems the 10 YES
      const paid = venueResolvesAndClaims(h, m1, 10);

      // the next start follows m2 only: m1 was unselected
      bot2 = await startTestBot(h, await ledgerConfig(h, ledger, { markets: `  - id: "${m2}"` }), { metricsPort: await freePort() });
      const b2 = bot2;
      await waitFor('the next start records the claim', () => !b2.kernel.account.positions().some((p) => p.marketId === m1l), 60_000);
      assertBooksClaimed(b2, m1, ref, cashBefore, paid);
      assert.deepEqual(b2.kernel.account.positions(), ref.positions());
      // the balance reads agree with the books: no drift, then or later
      await waitFor('a balance read of m1 after the claim', () => b2.kernel.account.agrees(m1l) && b2.kernel.account.drifts().length === 0, 20_000);
      assert.equal(metricValue(await scrapeMetrics(b2), 'bookmaker_books_drift_markets'), 0);
      assert.equal(await b2.stop(), 0);
      bot2 = null;

      // the ledger, replayed: the same books (what `ledger summary` and the next restart show)
      assertReplayClaimed(ledger, m1, ref);
      assert.ok(!readLedgerFile(ledger, (l) => ledgerSummary(l)).positions.some((p) => p.marketId === m1l));
    } finally {
      await bot2?.stop();
    }
  });
});
