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
import { accountFromLedger } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { accountBlock } from '../../src/runtime/run-report.ts';
import { createAutoClaim } from '../../src/sim/auto-claim.ts';
import { freePort } from '../support/net.ts';
import {
  boughtYes,
  ledgerConfig,
  metricValue,
  onLedgerExchange,
  openOrders,
  place,
  scrapeMetrics,
  startTestBot,
  waitFor,
  yesTerms,
  type Harness,
} from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';

const ROTATING = `  refreshSeconds: 1
  select:
    - all: true`;
const S = 1_000_000;
const same = (m: ReturnType<Bot['kernel']['account']['market']>) => (m === null ? null : { ...m, markedAt: 0, book: 0 });

/** The mover sells the bot `shares` YES into its bid in `m` (IOC); returns once the books hold them. */
async function sellInto(h: Harness, bot: Bot, m: Bytes32, shares: number): Promise<void> {
  let bid: { price: number } | undefined;
  await waitFor(`a bid in ${m}`, async () => (bid = (await openOrders(h.bot, m)).map(yesTerms).find((o) => o.side === 'bid')) !== undefined, 30_000);
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: bid!.price, shares, timeInForce: 1, inventoryMode: 2 });
  const k = m.toLowerCase() as Bytes32;
  await waitFor(`the bot holds ${shares} YES in ${m}`, () => bot.kernel.account.market(k)?.yes === shares * S, 30_000);
}

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
        for (const m of [m1, m2]) h.ex.state.services.closeMarket(m, Date.now());
        await waitFor('m1 and m2 retired', () => [k1, k2].every((m) => !b.rotation.isActive(m) && !b.rotation.isRetiring(m)), 60_000);
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
        const ac = createAutoClaim(h.ex, { afterMs: 0 });
        ac.step();
        assert.deepEqual([ac.counts.markets, ac.counts.claims], [2, 4], 'the bot and the mover in each market');
        assert.equal(h.ex.state.engine.balance(h.bot.wallet)!.collateral - venueCashBefore, 10n * BigInt(S), 'm1 pays 10 USDC, m2 nothing');

        // the books record both claims and fold both books away (no compact book left)
        await waitFor(
          'both books folded',
          () => [k1, k2].every((m) => b.kernel.account.peekBook(m) === undefined && b.kernel.account.keptMarket(m)?.claimed === true),
          240_000,
        );
        for (const m of [k1, k2]) {
          const kept = b.kernel.account.keptMarket(m)!;
          assert.deepEqual([kept.yes, kept.no], [0, 0], 'nothing held');
          assert.equal(b.kernel.account.market(m), null, 'no book of it in the account');
          assert.ok(!b.kernel.account.marketIds().includes(m));
        }
        assert.deepEqual(
          [k1, k2].map((m) => b.kernel.account.keptMarket(m)!.payoutYes),
          [1_000_000, 0],
        );
        assert.equal(b.kernel.account.figures().cash - cashBefore, 10n * BigInt(S), 'the cash gained is what the venue paid');

        // the claims tracker: both claimed, nothing claimable, m1's series removed
        await waitFor(
          'the claims tracker shows both claimed',
          () => {
            const c = b.report('test', 0).claims;
            return [k1, k2].every((m) => c?.markets.some((x) => x.marketId === m && x.state === 'claimed') === true);
          },
          30_000,
        );
        const claims = b.report('test', 0).claims!;
        assert.equal(claims.totalClaimableUsdc, '0.000000');
        assert.equal(claims.books?.claimableUsdc ?? '0.000000', '0.000000', 'the books hold nothing resolved unclaimed');
        const text = await scrapeMetrics(b);
        assert.doesNotMatch(text, /^bookmaker_claimable_usdc\{/m, 'no per-market claimable series left');
        assert.equal(metricValue(text, 'bookmaker_claimable_total_usdc'), 0);
        assert.equal(metricValue(text, 'bookmaker_books_claimable_usdc'), 0);

        // the figures /metrics and the run report show are the account's
        const live = b.kernel.account.figures();
        assert.deepEqual(b.report('test', 0).account, accountBlock(live));
        assert.equal(metricValue(text, 'bookmaker_account_fills'), live.fills);
        assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="realised"}'), Number(live.realised) / 1e6);
        assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="total"}'), Number(live.total) / 1e6);
        const keptAt = [k1, k2].map((m) => b.kernel.account.keptMarket(m));
        assert.equal(await b.stop(), 0);
        bot = null;
        // the ledger replayed (claims recorded): the same figures, to the unit
        const replayed = readLedgerFile(ledger, (l) => accountFromLedger(l));
        const { markedAt: _a, ...want } = replayed.figures();
        const { markedAt: _b, ...got } = b.kernel.account.figures();
        assert.deepEqual(got, want, 'to the unit: the folded books and the replayed ones');
        assert.deepEqual(
          [k1, k2].map((m) => same(replayed.market(m) ?? replayed.keptMarket(m))),
          keptAt.map((m) => same(m)),
        );
      } finally {
        await bot?.stop();
      }
    },
    { markets: 3 },
  );
});
