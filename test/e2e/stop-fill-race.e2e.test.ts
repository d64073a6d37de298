/**
 * A fill that lands while the stop's cancels are in flight, made deterministic: the local exchange holds
 * the cancel-all's first list of open orders (src/sim/http-server.ts RequestHold), the mover takes the
 * whole of one of the bot's bids (the feeds are closed by then: no OrderClosed comes), and the list is
 * let go. The list then shows three orders, the bot cancels them, the next list shows none, and the
 * order manager lets the filled order go without seeing its end (OrderManager.endedAtStop).
 *
 * After the stop: the store shows no open order (the final status line's `orders`), the health model
 * shows every market halted, the ledger has the fill and the order's end as the venue states it
 * (filled), and the run report, the books, a replay of the ledger and the venue agree to the unit. On
 * the code before, the store kept the filled order open (`orders 1`, the market still `quoting`):
 * cancelRounds cleared its table and told no one (docs/operating.md, "Stopping").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayPositions } from '../../src/ledger/books.ts';
import { summaryRows } from '../../src/runtime/terminal-summary.ts';
import { allOrders, onLedgerExchange, stopRacingAFill } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { fields, venueView } from './restart-checks.ts';

test("a fill racing the stop's cancels: the store and the health model agree with the venue, the ledger has the fill and the order's real end", async () => {
  await onLedgerExchange(async (h, ledger) => {
    // no periodic reconcile (it could read the filled order gone first): the cancel-all alone meets it; the
    // stop's list of open orders held until the mover took the whole bid (10 shares)
    const { bot, m0 } = await stopRacingAFill(h, ledger);

    const all = await allOrders(h.bot);
    const filled = all.filter((v) => v.status === 'filled');
    assert.equal(filled.length, 1, 'one order of the bot filled at the venue');
    const f = filled[0]!;
    assert.equal(all.filter((v) => v.status === 'open').length, 0, 'nothing left open at the venue');
    assert.ok(
      bot.orderManager.endedAtStop().some((g) => g.nonce.toLowerCase() === f.nonce.toLowerCase()),
      'the cancel-all met the filled order gone, its end unseen (the race this test makes)',
    );

    // the store, the final status line and the health model: no open order, every market halted
    bot.healthModel.evaluate();
    for (const m of bot.markets) {
      assert.equal(bot.store.state.markets.get(m)?.orders.size ?? 0, 0, `market ${m}: the store holds no order after the stop`);
      assert.equal(bot.healthModel.marketState(m), 'halted', `market ${m}: halted after the stop`);
    }
    const rows = summaryRows(
      bot.store.state,
      bot.markets,
      bot.fills,
      (id) => bot.healthModel.marketState(id),
      Date.now(),
      () => null,
      bot.kernel.account,
    );
    assert.deepEqual(
      rows.map((r) => [r.orders, r.state]),
      bot.markets.map(() => [0, 'halted']),
      'the final status line: no order, no market quoting',
    );

    // the ledger: the fill once, the order ended as the venue states it, nothing left unfinished
    const rec = readLedgerFile(ledger, (l) => ({
      fills: l.db.prepare('SELECT SUM(size) AS s, COUNT(*) AS n FROM fills WHERE lower(nonce) = lower(?)').get(f.nonce) as { s: number; n: number },
      order: l.db.prepare('SELECT status, ended_at AS endedAt FROM orders WHERE lower(nonce) = lower(?)').get(f.nonce) as {
        status: string;
        endedAt: number | null;
      },
      unended: l.unendedOrders().length,
      replay: replayPositions(l),
    }));
    assert.deepEqual({ n: rec.fills.n, s: rec.fills.s }, { n: 1, s: 10_000_000 }, 'the ledger has the 10-share fill, once');
    assert.equal(rec.order.status, 'filled', "the ledger ends the order as the venue states it (not 'gone')");
    assert.ok(rec.order.endedAt !== null);
    assert.equal(rec.unended, 0, 'no order left unfinished in the ledger');

    // the run report, the books, a replay of the ledger and the venue, to the unit
    const venue = await venueView(h);
    const report = bot.report('stop', 0);
    const books = bot.kernel.account;
    const baseline = readLedgerFile(ledger, (l) => l.baseline());
    assert.ok(baseline);
    assert.equal(baseline.collateral + books.figures().cash, venue.collateral, "the books' collateral = the venue's");
    assert.deepEqual(
      books
        .positions()
        .map((p) => [`${p.marketId}:${p.outcomeIndex}`, BigInt(p.shares)] as const)
        .sort(),
      [...venue.holdings.entries()].sort(),
      "the books' holdings = the venue's",
    );
    assert.deepEqual(fields(books.positionOf(m0)), fields(rec.replay.get(m0)), "market 0: the books' position = the ledger's replay");
    const r0 = report.markets.find((m) => m.marketId.toLowerCase() === m0)!;
    assert.equal(r0.fills, 1, 'the run report counts the fill');
    assert.equal(Math.round(Number(r0.positionShares) * 1e6), books.holdingsOf(m0).net, "the run report's position = the books'");
    assert.equal(books.holdingsOf(m0).net, 10_000_000);
    assert.equal(rows.find((r) => r.net !== 0)?.net, 10_000_000, "the status line's net = the books'");
  });
});
