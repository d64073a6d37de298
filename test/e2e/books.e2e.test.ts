/**
 * One PnL function for every consumer, end to end against the local exchange over HTTP:
 * the kill switch's figure (the kernel's books), /metrics, the run report's account block and
 * `ledger summary|pnl` agree to the unit; a restart with nothing traded in between resumes at the
 * same PnL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { micro } from '../../src/model/units.ts';
import { ledgerConfig, LOSS_RISK, onLedgerExchange, openOrders, place, setBook, startTestBot, waitFor, waitQuoting } from './harness.ts';
import { ledgerFigures } from './ledger-runs.ts';

test('kill switch, /metrics, run report and ledger summary read the same account figures; a restart resumes at them', async () => {
  await onLedgerExchange(async (h, file) => {
    const cfg = await ledgerConfig(h, file, { risk: LOSS_RISK, account: '  maxDrawdown: 0' });
    const bot1 = await startTestBot(h, cfg);
    let report;
    try {
      await waitQuoting(h);
      // a taker sells 10 YES into the bot's bid, and the book moves: realised 0, unrealised non-zero
      const m = h.markets[0]!;
      await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: 480_000, shares: 10, timeInForce: 1, inventoryMode: 2 });
      await waitFor('fill in the books', () => bot1.kernel.account.positions().length > 0);
      // everything paused: no more fills, only the marks move
      bot1.control.pause(null, 'test');
      await waitFor('quotes pulled', async () => (await openOrders(h.bot)).length === 0);
      await setBook(h, m, 600_000, 640_000);
      await waitFor('the new mark', () => bot1.kernel.account.market(m)?.mark2 === 1_240_000);
      const f = bot1.kernel.account.figures();
      assert.notEqual(f.unrealised, 0n);
      // the store's own position (its flat checks, tools without the books) is the books', to the unit,
      // whatever order the fill and the balance reads came in (src/state/held-read.ts)
      const own = bot1.store.state.markets.get(m.toLowerCase())!.position;
      const books = bot1.kernel.account.positionOf(m)!;
      for (const k of ['yes', 'no', 'net', 'basis', 'realised', 'fees'] as const) assert.equal(own[k], books[k], `the store's ${k} is the books'`);
      const scraped = await bot1.metrics.registry.metrics();
      const total = Number(/^bookmaker_account_pnl_usdc\{kind="total"\} (\S+)$/m.exec(scraped)?.[1]);
      assert.equal(Math.round(total * 1e6), Number(f.total), "/metrics shows the books' total");
      const perMarket = [...scraped.matchAll(/^bookmaker_pnl_usdc\{market="[^"]+",kind="(?:realised|unrealised)"\} (\S+)$/gm)].reduce(
        (s, x) => s + Math.round(Number(x[1]) * 1e6),
        0,
      );
      assert.equal(perMarket, Number(f.total), 'the per-market gauges add up to the account total');
      report = bot1.report('test', 0);
    } finally {
      await bot1.stop();
    }
    const final = report.account!;
    const { summary: s, perMarket } = ledgerFigures(file);
    const fromLedger = {
      realised: s.realisedPnl,
      unrealised: s.unrealisedPnl,
      byMarket: perMarket.reduce((a, b) => a + Math.round(b.realisedPnl * 1e6) + Math.round((b.unrealisedPnl ?? 0) * 1e6), 0),
    };
    assert.equal(micro(Math.round(fromLedger.realised * 1e6)), final.realisedUsdc, 'ledger summary realised = report account realised');
    assert.equal(micro(Math.round(fromLedger.unrealised! * 1e6)), final.unrealisedUsdc, 'ledger summary unrealised (last mark, at stop) = report');
    assert.equal(micro(fromLedger.byMarket), final.pnlUsdc, 'ledger pnl by market adds up to the report account PnL');

    // the restart, nothing traded in between: the same PnL (the marks are unchanged)
    const bot2 = await startTestBot(h, cfg);
    try {
      bot2.control.pause(null, 'test');
      assert.equal(micro(bot2.kernel.account.figures().total), final.pnlUsdc, 'a restart resumes at the PnL it stopped at');
      assert.deepEqual(
        bot2.kernel.account.positions().map((p) => p.shares),
        [10_000_000],
      );
    } finally {
      await bot2.stop();
    }
  });
});
