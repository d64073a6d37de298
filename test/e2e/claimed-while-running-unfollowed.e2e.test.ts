/**
 * A market the bot does not follow in this run, resolved and claimed while the bot runs, over real HTTP
 * against the local exchange: run 1 buys 10 YES in m1 and stops; run 2 follows m2 only (m1 unselected), so
 * no market feed tells it m1's resolution, and its start-up check finds m1 held, unresolved and unclaimed.
 * While run 2 runs, m1 resolves YES and the venue's auto-claim redeems the 10 tokens. The claims tracker's
 * periodic holdings check (src/runtime/claims/claims-tracker.ts, shortened here to 1 s: 15 min by default)
 * covers the markets the books hold tokens in that the run does not follow: the portfolio shows m1 claimed,
 * the market read says it resolved YES, and the books record the resolution and the claim while the bot
 * runs. To the unit: the books equal those of a bot that saw both (the first run's books rebuilt from its
 * ledger, resolved and claimed); the cash gained is what the venue paid; the ledger replayed says the same.
 * The resolution comes after the start-up check has looked m1 up (its log line), so only a check while
 * running can see the claim. On the old code the claim was recorded only at the next start
 * (claimed-while-down-unfollowed): the test waits for it in the running bot and times out. The reads'
 * bound is test/runtime/claims/held-check.test.ts's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { ledgerConfig, onLedgerExchange, startTestBot, waitFor } from './harness.ts';
import { assertBooksClaimed, assertReplayClaimed, run1HoldsYes, venueResolvesAndClaims } from './unfollowed-claim.ts';

const S = 1_000_000;

test('a market not followed in this run, resolved and claimed while the bot runs, reaches the books while it runs', { timeout: 180_000 }, async () => {
  await onLedgerExchange(async (h, ledger) => {
    const [m1, m2] = h.markets as [Bytes32, Bytes32];
    const m1l = m1.toLowerCase() as Bytes32;
    let bot2: Bot | null = null;
    try {
      // run 1 buys 10 YES in m1 and stops; ref: what a bot that saw the resolution and the claim holds
      const { ref, cashBefore } = await run1HoldsYes(h, ledger, m1, 10);

      // run 2 follows m2 only; its start-up check finds m1 held, not resolved, not claimed
      const lines: { msg: string }[] = [];
      const logger = createLogger({ level: 'info', destination: { write: (x: string) => void lines.push(JSON.parse(x) as { msg: string }) } });
      bot2 = await startTestBot(h, await ledgerConfig(h, ledger, { markets: `  - id: "${m2}"` }), { claimsHeldCheckMs: 1_000, logger });
      const b2 = bot2;
      // the start-up check has looked m1 up (before the resolution: what it finds is not a claim)
      await waitFor('the start-up claim check is done', () => lines.some((l) => l.msg.startsWith('start-up claim check: 1 market(s)')), 60_000);
      assert.equal(b2.kernel.account.market(m1l)?.yes, 10 * S, 'run 2 holds the 10 YES of m1 from its start');
      assert.equal(b2.kernel.hasMarket(m1l), false, 'run 2 does not follow m1');

      // while run 2 runs: m1 resolves YES and the venue's auto-claim redeems the 10 YES
      const paid = venueResolvesAndClaims(h, m1, 10);

      await waitFor('the running bot records the claim', () => !b2.kernel.account.positions().some((p) => p.marketId === m1l), 60_000);
      assertBooksClaimed(b2, m1, ref, cashBefore, paid);
      assert.ok(
        lines.some((l) => l.msg.includes('claimed (a market this run does not follow: the periodic holdings check)')),
        'recorded by the periodic check, while running',
      );
      assert.equal(await b2.stop(), 0);
      bot2 = null;

      // the ledger, replayed: the same books (what `ledger summary` and the next restart show)
      assertReplayClaimed(ledger, m1, ref);
    } finally {
      await bot2?.stop();
    }
  });
});
