/**
 * Retired markets the venue auto-claims, over real HTTP against the local exchange with its auto-claim on
 * (src/sim/auto-claim.ts, as `bookmaker sim --auto-claim-after`): the bot rotates, holds 10 YES in m1 and
 * in m2, the venue closes both (rotation retires them; a small store record keeps following their
 * positions) and resolves them, m1 YES (the bot's side wins) and m2 NO (the bot holds only the losing
 * side). Two seconds after each resolution the auto-claim redeems every wallet's tokens: m1 for 10 USDC,
 * m2 for 0, both shown `autoclaimed`. The bot hears of each (m1 leaves the claimable list; m2, never
 * claimable, by the portfolio check of a resolution the venue showed nothing claimable for: claimedAtVenue),
 * its books record the claims and, nothing held, fold both books away (no compact book left in the
 * account), the claimable series of m1 is removed, and nothing is claimable. To the unit: the books
 * equal the ledger's replay, and the run report and /metrics read the same account.
 * On the old code nothing ever claimed in the local exchange: each retired market kept its compact book, the
 * claims tracker its claimable record and `bookmaker_claimable_usdc{market}` for the life of the process
 * (docs/performance/soak-growth.md); the test fails there (no auto-claim to start).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { freePort } from '../support/net.ts';
import { boughtYes, ledgerConfig, metricValue, onLedgerExchange, ROTATING, scrapeMetrics, sellInto, startTestBot, waitFor } from './harness.ts';
import { assertAccountShown, assertAllClaimed, foldedAtPayouts, assertReplayClaimedAll, closeAndRetire, venueAutoClaimsBoth } from './retired-markets.ts';

const S = 1_000_000;

test('retired markets auto-claimed by the venue (winning and losing-only): their books fold, claims and series go, every figure to the unit', {
  timeout: 300_000,
}, async () => {
  await onLedgerExchange(
    async (h, ledger) => {
      const [, m1, m2] = h.markets as [Bytes32, Bytes32, Bytes32];
      const [k1, k2] = [m1, m2].map((m) => m.toLowerCase() as Bytes32) as [Bytes32, Bytes32];
      let bot: Bot | null = await startTestBot(h, await ledgerConfig(h, ledger, { markets: ROTATING }), { metricsPort: await freePort() });
      try {
        const b = bot;
        await boughtYes(h, b, m1, 10);
        await sellInto(h, b, m2, 10);
        await closeAndRetire(h, b, [m1, m2]);
        for (const m of [k1, k2]) assert.equal(b.kernel.account.market(m)?.yes, 10 * S, 'still held');
        const cashBefore = b.kernel.account.figures().cash;
        const venueCashBefore = h.ex.state.engine.balance(h.bot.wallet)!.collateral;

        // the venue resolves them, and the bot hears it (the market feed follows a retired market holding tokens)
        h.ex.state.services.resolveMarket(m1, 1_000_000, Date.now(), 'e2e: YES');
        h.ex.state.services.resolveMarket(m2, 0, Date.now(), 'e2e: NO');
        await waitFor(
          'the books know both payouts',
          () => b.kernel.account.market(k1)?.payoutYes === 1_000_000 && b.kernel.account.market(k2)?.payoutYes === 0,
          60_000,
        );
        // m1 listed claimable (with its series); m2, the losing side alone, never is
        await waitFor(
          'm1 claimable in the claims tracker',
          () => b.report('test', 0).claims?.markets.some((x) => x.marketId === k1 && x.state === 'claimable') === true,
          60_000,
        );
        assert.equal(metricValue(await scrapeMetrics(b), `bookmaker_claimable_usdc{market="${k1}"}`), 10);
        // then the venue's auto-claim (its pass run here, not on its timer: the test waits on no clock)
        venueAutoClaimsBoth(h, venueCashBefore);

        // the books record both claims and fold both books away (no compact book left)
        await foldedAtPayouts(b, [k1, k2], cashBefore, 'both books folded', 240_000);
        for (const m of [k1, k2]) assert.ok(!b.kernel.account.marketIds().includes(m));

        // the claims tracker: both claimed, nothing claimable, m1's series removed
        const text = await assertAllClaimed(b, [k1, k2], 'no per-market claimable series left');

        // the figures /metrics and the run report show are the account's
        assertAccountShown(b, text);
        const keptAt = [k1, k2].map((m) => b.kernel.account.keptMarket(m));
        assert.equal(await b.stop(), 0);
        bot = null;
        // the ledger replayed (claims recorded): the same figures, to the unit
        assertReplayClaimedAll(ledger, b, [k1, k2], keptAt, 'to the unit: the folded books and the replayed ones');
      } finally {
        await bot?.stop();
      }
    },
    { markets: 3 },
  );
});
