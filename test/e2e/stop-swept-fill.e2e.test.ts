/**
 * A fill only the stop's final sweep finds, and every figure read after it: the local exchange holds the
 * cancel-all's first list of open orders (as test/e2e/stop-fill-race.e2e.test.ts makes the race), the
 * mover takes the whole of one of the bot's bids while the feeds are closed, and the list is let go. No
 * feed reports that fill: the sweep (src/ledger/bot-ledger.ts finalSweep) reads it from the venue into the
 * ledger and the books, and hands it to the store as the feeds would (OrderFilled, the ledger's fill id).
 *
 * After the stop, to the unit: the store's position = the books' = a replay of the ledger; the store's
 * attribution (its own path, no books) sums to the store's PnL = the books' PnL, and its fills are the
 * books' fills; the final status line (summaryRows), the run report's row, /metrics (position, PnL,
 * attribution, fill counters) and `ledger summary` say the same. On the code before, the store never got
 * the fill: its position stayed flat beside the books' 10 shares, its attribution and
 * bookmaker_fills_total{market} counted no fill, and test/e2e/attribution.e2e.test.ts asserted the store's
 * identity only when the books held no extra fill.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary, replayPositions } from '../../src/ledger/books.ts';
import { micro } from '../../src/model/units.ts';
import { summaryRows } from '../../src/runtime/terminal-summary.ts';
import { marketAttribution } from '../../src/state/edge-view.ts';
import { marketPnl } from '../../src/state/market-view.ts';
import { metricValue, onLedgerExchange, stopRacingAFill } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { fields } from './restart-checks.ts';

test("a fill the stop's final sweep alone finds: the store, the status line, the run report, /metrics and the ledger agree to the unit", async () => {
  await onLedgerExchange(async (h, ledger) => {
    // the stop's list of open orders held until the mover took the whole bid (10 shares), which no feed will report
    let storeFillsBefore = 0;
    const { bot, m0 } = await stopRacingAFill(h, ledger, (q) => (storeFillsBefore = q.bot.store.state.markets.get(q.m0)!.position.fills));

    const books = bot.kernel.account;
    const m = bot.store.state.markets.get(m0)!;
    const swept = readLedgerFile(ledger, (l) => l.db.prepare("SELECT COUNT(*) AS n FROM fills WHERE source = 'catch-up'").get() as { n: number }).n;
    assert.equal(swept, 1, "the fill is the final sweep's (the case this test makes)");
    assert.equal(books.holdingsOf(m0).net, 10_000_000, 'the books hold the 10 shares');

    // the store = the books = a replay of the ledger, field for field
    const replay = readLedgerFile(ledger, (l) => replayPositions(l));
    assert.deepEqual(fields(m.position), fields(replay.get(m0)), "the store's position = the ledger's replay");
    assert.deepEqual(fields(books.positionOf(m0)), fields(replay.get(m0)), "the books' position = the ledger's replay");
    assert.equal(m.position.fills, storeFillsBefore + 1, 'the store took the swept fill');
    // the store's attribution, its own path: its fills are the books', it sums to the store's PnL = the books'
    const own = marketAttribution(m);
    const storePnl = marketPnl(m);
    const booksPnl = books.marketPnl(m0);
    assert.equal(m.edge.attribution.fills, books.market(m0)!.fills, "the store's attribution holds every fill of the books");
    assert.equal(own.spreadCapture + own.inventory + own.fees + own.resolution, own.total);
    assert.equal(own.total, storePnl.realised + storePnl.unrealised, "the store's attribution = the store's PnL");
    assert.equal(storePnl.realised + storePnl.unrealised, booksPnl.realised + booksPnl.unrealised, "the store's PnL = the books'");
    // the books' path (what every consumer shows) = the store's, component by component
    const shown = marketAttribution(m, books);
    assert.deepEqual(shown, own, "the attribution shown (books' path) = the store's own");

    // the final status line, the run report, /metrics and `ledger summary`: the same figures
    const row = summaryRows(
      bot.store.state,
      bot.markets,
      bot.fills,
      () => null,
      Date.now(),
      () => null,
      books,
    ).find((r) => r.market === m.slug || m0.startsWith(r.market))!;
    assert.ok(row, 'the status line has market 0');
    assert.deepEqual([row.net, row.pnl, row.fills, row.attribution], [books.holdingsOf(m0).net, booksPnl.realised + booksPnl.unrealised, 1, shown]);
    const report = bot.report('stop', 0);
    const r0 = report.markets.find((x) => x.marketId.toLowerCase() === m0)!;
    assert.deepEqual(
      [r0.fills, r0.positionShares, r0.pnlAttributionUsdc],
      [
        1,
        micro(books.holdingsOf(m0).net),
        {
          spreadCapture: micro(shown.spreadCapture),
          inventory: micro(shown.inventory),
          fees: micro(shown.fees),
          resolution: micro(shown.resolution),
          total: micro(shown.total),
        },
      ],
      'the run report row',
    );
    const text = await bot.metrics.registry.metrics();
    const series = (name: string, labels: string) => metricValue(text, `${name}{market="${m0}"${labels}}`);
    assert.equal(series('bookmaker_position_shares', ''), books.holdingsOf(m0).net / 1e6);
    assert.equal(series('bookmaker_pnl_usdc', ',kind="realised"'), Number(booksPnl.realised) / 1e6);
    assert.equal(series('bookmaker_pnl_usdc', ',kind="unrealised"'), Number(booksPnl.unrealised) / 1e6);
    assert.equal(series('bookmaker_pnl_attribution_usdc', ',component="spread_capture"'), Number(shown.spreadCapture) / 1e6);
    assert.equal(series('bookmaker_pnl_attribution_usdc', ',component="inventory"'), Number(shown.inventory) / 1e6);
    assert.equal(series('bookmaker_fills_total', ',side="buy"'), books.market(m0)!.fills, '/metrics counts the swept fill');
    assert.equal(series('bookmaker_fill_volume_shares_total', ''), 10);
    assert.equal(metricValue(text, 'bookmaker_account_fills'), books.figures().fills);
    const summary = readLedgerFile(ledger, (l) => ledgerSummary(l));
    assert.equal(summary.fills, books.figures().fills, '`ledger summary` fills');
    assert.equal(Math.round(summary.pnl.total * 1e6), Number(books.figures().total), '`ledger summary` PnL = the books');
  });
});
