/**
 * A market retired while the bot still holds its tokens, then resolved at the venue, over real HTTP against
 * the local exchange: the bot rotates (`markets: { refreshSeconds: 1, select: [ { all: true } ] }`), buys
 * 10 YES in m1 and in m2, and the venue closes both (their deadline): rotation retires them, a small store
 * record keeps following their positions (src/runtime/rotation/bot-markets.ts), and the account's books
 * keep their whole book (kept fills, id memory) while the payout is unknown. The venue resolves them (m1
 * YES, m2 NO); the market feed, which still follows a retained market, reports it, and the account's book of
 * each compacts (Account.compactIfTerminal: no kept fills, its ids packed) while it waits for a claim nobody
 * makes. On the old code the release never reached the books (BotMarkets dispatched it on the store alone):
 * each retired book stayed whole for the life of the process, the rotation-soak's growth
 * (docs/performance/retired-markets.md). To the unit: the running books equal the books a restart rebuilds
 * from the ledger (never released, so never compacted): the compaction moves no figure; the run report and
 * /metrics read the same account.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { accountBlock } from '../../src/runtime/run-report.ts';
import { boughtYes, ledgerConfig, metricValue, onLedgerExchange, ROTATING, sellInto, startTestBot, waitFor } from './harness.ts';
import { assertReplayFigures, closeAndRetire, same } from './retired-markets.ts';

const S = 1_000_000;
/** what the account holds of a market's book: kept fills, and whether its ids are packed (compact) */
function bookOf(bot: Bot, id: Bytes32): { fills: number; packed: boolean } | null {
  const b = bot.kernel.account.peekBook(id) as unknown as { fills: { length: number }; packedIds: string | null } | undefined;
  return b === undefined ? null : { fills: b.fills.length, packed: b.packedIds !== null };
}

test('a market retired holding tokens, then resolved at the venue: the running books compact its book, every figure unmoved', {
  timeout: 180_000,
}, async () => {
  await onLedgerExchange(
    async (h, ledger) => {
      const [m0, m1, m2] = h.markets as [Bytes32, Bytes32, Bytes32];
      const retiring = [m1, m2].map((m) => m.toLowerCase() as Bytes32);
      let bot: Bot | null = await startTestBot(h, await ledgerConfig(h, ledger, { markets: ROTATING }));
      try {
        const b = bot;
        await boughtYes(h, b, m1, 10);
        // (boughtYes waits for two quotes in every market: m1's may be moving after its fill)
        await sellInto(h, b, m2, 10);
        // the venue closes both (their deadline): rotation retires them; their tokens are still held
        await closeAndRetire(h, b, [m1, m2]);
        for (const m of retiring) {
          assert.equal(b.kernel.hasMarket(m), false);
          assert.equal(b.kernel.account.market(m)?.yes, 10 * S, 'still held');
          assert.equal(b.kernel.account.market(m)?.payoutYes, null);
          assert.ok((bookOf(b, m)?.fills ?? 0) > 0, 'its whole book while the payout is unknown');
        }
        // the venue resolves them: m1 YES, m2 NO (nobody claims)
        h.ex.state.services.resolveMarket(m1, 1_000_000, Date.now(), 'e2e: YES');
        h.ex.state.services.resolveMarket(m2, 0, Date.now(), 'e2e: NO');
        await waitFor(
          'the books know both payouts',
          () => b.kernel.account.market(retiring[0]!)?.payoutYes === 1_000_000 && b.kernel.account.market(retiring[1]!)?.payoutYes === 0,
          60_000,
        );
        // one compact book per retired resolved market: no kept fills, its ids packed (on the old code: every fill kept)
        assert.deepEqual(
          retiring.map((m) => bookOf(b, m)),
          retiring.map(() => ({ fills: 0, packed: true })),
        );
        for (const m of retiring) assert.equal(b.kernel.account.newestKeptTs(m), null);
        const m0Book = bookOf(b, m0.toLowerCase() as Bytes32);
        assert.ok(m0Book === null || !m0Book.packed, 'the market still quoted keeps its book as it was');
        // the figures /metrics and the run report show are the account's (one function: figures())
        const live = b.kernel.account.figures();
        assert.deepEqual(b.report('test', 0).account, accountBlock(live));
        const text = await b.metrics.registry.metrics();
        assert.equal(metricValue(text, 'bookmaker_account_fills'), live.fills);
        assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="realised"}'), Number(live.realised) / 1e6);
        const heldAt = retiring.map((m) => same(b.kernel.account.market(m)));
        assert.equal(await b.stop(), 0);
        bot = null;
        // a restart's books (the ledger replayed: resolutions recorded, books never released, so never compacted)
        const replayed = assertReplayFigures(ledger, b, 'to the unit: the compacted books and the replayed ones');
        assert.deepEqual(
          retiring.map((m) => same(replayed.market(m))),
          heldAt,
        );
      } finally {
        await bot?.stop();
      }
    },
    { markets: 3 },
  );
});
