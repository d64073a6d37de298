/**
 * Retired markets the venue auto-claims before the bot hears they resolved, over real HTTP against the
 * local exchange: the bot rotates, holds 10 YES in m1 and in m2, the venue closes both (rotation retires
 * them; a small store record keeps following their positions), then resolves them (m1 YES, m2 NO: the bot
 * holds only the losing side) and its auto-claim redeems every wallet's tokens at once, in the same turn of
 * the exchange, before any read of the bot's sees the resolution. The bot's next balance read shows none
 * held, the store's record of each is swept and with it the market feed that would have told the
 * resolution. The claims tracker's check of a market gone from the store while the books hold its tokens
 * (positionGone: the portfolio shows it `autoclaimed`, the market read states the payout) records both
 * claims at the venue's payouts within a read; the books fold both away. To the unit: the cash gained is
 * what the venue paid, the books equal the ledger's replay, and the run report and /metrics read the same
 * account. The periodic holdings check is left at its default (15 min): the test waits 45 s at most.
 * On the old code the account kept both books holding 10 YES, unresolved (marked at their last mid), until
 * that periodic check (15 min), or ~1 min when the market feed happened to report a resolution before the
 * balance read (the tracker's six reads): the test times out.
 * The second test leaves both markets quoted: resolved and claimed at once, the feed tells the resolution
 * (the position read pending) and rotation retires them with their payout known; on the old code the claims
 * waited for the six claimable reads (the sixth at ~62 s; the test waits 45 s), now the release's check
 * records them. With the local auto-claim on its timer at 2 s instead (a claim after the feed's resolution),
 * the retired markets reach the books ~3 s after the resolution; a quoted market held on the losing side alone
 * still waits for the six reads (~2 min measured), as before: not this file's case.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { HELD_CHECK_MS } from '../../src/runtime/claims/claims-tracker.ts';
import { freePort } from '../support/net.ts';
import { boughtYes, ledgerConfig, metricValue, onLedgerExchange, ROTATING, sellInto, startTestBot } from './harness.ts';
import { assertAccountShown, assertAllClaimed, foldedAtPayouts, assertReplayClaimedAll, closeAndRetire, venueAutoClaimsBoth } from './retired-markets.ts';

const S = 1_000_000;

/**
 * The bot holds 10 YES in m1 and in m2; `retire`: the venue closes both first (rotation retires them). Then
 * the venue resolves m1 YES and m2 NO and auto-claims both in the same turn; the claims must reach the books
 * within 45 s (the periodic holdings check: 15 min), with every figure to the unit.
 */
async function claimedBeforeSeen(retire: boolean): Promise<void> {
  assert.ok(HELD_CHECK_MS >= 300_000, 'the periodic holdings check cannot be what records the claims here');
  await onLedgerExchange(
    async (h, ledger) => {
      const [, m1, m2] = h.markets as [Bytes32, Bytes32, Bytes32];
      const [k1, k2] = [m1, m2].map((m) => m.toLowerCase() as Bytes32) as [Bytes32, Bytes32];
      const lines: { msg: string }[] = [];
      const logger = createLogger({ level: 'info', destination: { write: (x: string) => void lines.push(JSON.parse(x) as { msg: string }) } });
      let bot: Bot | null = await startTestBot(h, await ledgerConfig(h, ledger, { markets: ROTATING }), { metricsPort: await freePort(), logger });
      try {
        const b = bot;
        await boughtYes(h, b, m1, 10);
        await sellInto(h, b, m2, 10);
        if (retire) await closeAndRetire(h, b, [m1, m2]);
        for (const m of [k1, k2]) assert.equal(b.kernel.account.market(m)?.yes, 10 * S, 'still held');
        const cashBefore = b.kernel.account.figures().cash;
        const venueCashBefore = h.ex.state.engine.balance(h.bot.wallet)!.collateral;

        // the venue resolves both and auto-claims them in the same turn: no read of the bot's sees them resolved, unclaimed
        h.ex.state.services.resolveMarket(m1, 1_000_000, Date.now(), 'e2e: YES');
        h.ex.state.services.resolveMarket(m2, 0, Date.now(), 'e2e: NO');
        venueAutoClaimsBoth(h, venueCashBefore);

        // the books record both claims, at the venue's payouts, and fold both books away
        await foldedAtPayouts(b, [k1, k2], cashBefore, 'both claims in the books', 45_000);
        assert.equal(b.kernel.account.positions().length, 0, 'no position left in the books');

        // the claims tracker shows both claimed, nothing claimable
        const text = await assertAllClaimed(b, [k1, k2], 'no per-market claimable series');

        // the figures /metrics and the run report show are the account's
        const live = assertAccountShown(b, text);
        assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="unrealised"}'), Number(live.unrealised) / 1e6);
        // recorded by the check of a market gone from the store (not the periodic one, not a start's)
        for (const m of [k1, k2])
          assert.ok(
            lines.some((l) => l.msg.startsWith(`market ${m}: `) && l.msg.includes("claimed (its position left the bot's store")),
            `${m}: recorded as its position left the store`,
          );
        const keptAt = [k1, k2].map((m) => b.kernel.account.keptMarket(m));
        assert.equal(await b.stop(), 0);
        bot = null;
        // the ledger replayed (resolutions and claims recorded): the same figures, to the unit
        assertReplayClaimedAll(ledger, b, [k1, k2], keptAt, 'to the unit: the running books and the replayed ones');
      } finally {
        await bot?.stop();
      }
    },
    { markets: 3 },
  );
}

test(
  'retired markets auto-claimed before the bot sees them resolve: the claims reach the books at the venue payouts, every figure to the unit',
  {
    timeout: 300_000,
  },
  () => claimedBeforeSeen(true),
);

test(
  'quoted markets resolved and auto-claimed before the bot sees them resolve: the same, as rotation retires them',
  {
    timeout: 300_000,
  },
  () => claimedBeforeSeen(false),
);
