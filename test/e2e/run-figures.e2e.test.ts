/**
 * One set of trading figures, end to end against the local exchange over real HTTP: a market the bot
 * released (rotation) takes a fill after its release, and the run report's totals, `ledger summary`
 * and /metrics still say the same fills, volume, fees and PnL to the micro-unit; the report's rows
 * add up to its totals. (The report used to count the store's events per market and drop a market's
 * count once it left the store, so a fill after the release was in the ledger and not in the report.)
 * The market is then selected again: the fill between its release and its start again stays in its
 * released row (it used to show in the new row), and the rows' unrealised PnL adds up to the account's.
 * /metrics' per-market PnL and position are `ledger pnl`'s.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { micro } from '../../src/model/units.ts';
import type { RunReport } from '../../src/runtime/run-report.ts';
import { ledgerConfig, LOSS_RISK, metricValue, onLedgerExchange, openOrders, place, scrapeMetrics, startTestBot, waitFor, waitQuoting } from './harness.ts';
import { ledgerFigures } from './ledger-runs.ts';
import { freePort } from './sim-process.ts';

const usdc = (x: number): string => micro(Math.round(x * 1e6));

test('a fill after a market was released: run report, ledger summary and /metrics agree on fills, volume, fees and PnL', async () => {
  await onLedgerExchange(async (h, file) => {
    const [m0, m1] = h.markets as [Bytes32, Bytes32];
    const listed = h.ex.state.stores.markets;
    for (const m of h.markets) listed.get(m.toLowerCase())!.category = 'figures';
    const markets = '  refreshSeconds: 1\n  select:\n    - filter: { category: figures }';
    const cfg = await ledgerConfig(h, file, { markets, risk: LOSS_RISK, account: '  maxDrawdown: 0' });
    const bot = await startTestBot(h, cfg, { metricsPort: await freePort() });
    const account = bot.kernel.account;
    let report: RunReport;
    let scraped: string;
    let stopped = false;
    try {
      await waitQuoting(h);
      // an own fill in m1: a taker sells 10 YES into the bot's bid
      await place(h.mover, { marketId: m1, outcomeIndex: 1, side: 1, price: 480_000, shares: 10, timeInForce: 1, inventoryMode: 2 });
      await waitFor('the own fill in the books', () => account.fillCount === 1);
      // m0 leaves the selection (flat, nothing held): released, gone from the store
      listed.get(m0.toLowerCase())!.category = 'elsewhere';
      await waitFor('m0 retired and gone', () => !bot.rotation.isActive(m0) && !bot.rotation.isRetiring(m0) && !bot.store.state.markets.has(m0.toLowerCase()));
      assert.equal((await openOrders(h.bot, m0)).length, 0);
      // then a fill in m0: someone else trading the wallet takes 5 YES at 0.52 (a taker: it pays a fee)
      await place(h.bot, { marketId: m0, outcomeIndex: 1, side: 0, price: 520_000, shares: 5, timeInForce: 1 });
      await waitFor('the fill after the release in the books', () => account.fillCount === 2);
      assert.equal(account.market(m0)?.foreignFills, 1);
      // m0 is selected again: it starts and quotes anew
      listed.get(m0.toLowerCase())!.category = 'figures';
      await waitFor('m0 quoting again', async () => bot.rotation.isActive(m0) && (await openOrders(h.bot, m0)).length > 0);
      bot.control.pause(null, 'test');
      await waitFor('quotes pulled', async () => (await openOrders(h.bot)).length === 0);
      scraped = await scrapeMetrics(bot);
    } finally {
      const code = await bot.stop('test');
      stopped = true;
      report = bot.report('test', code);
    }
    assert.ok(stopped);
    const { summary: s, perMarket } = ledgerFigures(file);
    const t = report.totals;
    assert.equal(s.fills, 2, 'the ledger holds both fills');
    assert.ok(s.fees > 0, 'the taker fill paid a fee');
    // the run report's totals = ledger summary (a new ledger: the run is the whole ledger)
    assert.deepEqual(
      [t.fills, t.volumeUsdc, t.feesUsdc, t.realisedPnlUsdc],
      [s.fills, usdc(s.volume), usdc(s.fees), usdc(s.realisedPnl)],
      'run report totals = ledger summary: fills, volume, fees, realised',
    );
    assert.equal(report.account!.pnlUsdc, usdc(s.pnl.total), 'run report account PnL = ledger summary PnL');
    // = /metrics (scraped once nothing more could fill)
    assert.deepEqual(
      [
        metricValue(scraped!, 'bookmaker_account_fills'),
        usdc(metricValue(scraped!, 'bookmaker_account_volume_usdc')),
        usdc(metricValue(scraped!, 'bookmaker_account_pnl_usdc{kind="fees"}')),
        usdc(metricValue(scraped!, 'bookmaker_account_pnl_usdc{kind="realised"}')),
      ],
      [t.fills, t.volumeUsdc, t.feesUsdc, t.realisedPnlUsdc],
      '/metrics = run report: fills, volume, fees, realised',
    );
    // the rows add up to the totals: m0's fill after its release is in its (retired) row
    const rows = report.markets;
    assert.equal(
      rows.reduce((a, r) => a + r.fills, 0),
      t.fills,
    );
    const r0s = rows.filter((r) => r.marketId.toLowerCase() === m0.toLowerCase());
    assert.deepEqual(
      r0s.map((r) => [r.retired ?? 'active', r.fills, r.volumeShares]),
      [
        ['filtered-out', 1, '5.000000'],
        ['active', 0, '0.000000'],
      ],
      "m0's released row holds the fill after its release, its row since the start again nothing",
    );
    const sum = (k: 'volumeUsdc' | 'feesUsdc' | 'realisedPnlUsdc' | 'unrealisedPnlUsdc') => micro(rows.reduce((a, r) => a + BigInt(r[k].replace('.', '')), 0n));
    assert.deepEqual(
      [sum('volumeUsdc'), sum('feesUsdc'), sum('realisedPnlUsdc'), sum('unrealisedPnlUsdc')],
      [t.volumeUsdc, t.feesUsdc, t.realisedPnlUsdc, t.unrealisedPnlUsdc],
      'the rows add up to the totals, unrealised PnL included',
    );
    assert.notEqual(t.unrealisedPnlUsdc, '0.000000', 'positions are held');
    // /metrics per market = ledger pnl per market (the rebuilt books), to the micro-unit
    for (const p of perMarket!) {
      const id = p.marketId.toLowerCase();
      assert.deepEqual(
        [
          usdc(metricValue(scraped!, `bookmaker_pnl_usdc{market="${id}",kind="realised"}`)),
          usdc(metricValue(scraped!, `bookmaker_pnl_usdc{market="${id}",kind="unrealised"}`)),
          metricValue(scraped!, `bookmaker_position_shares{market="${id}"}`),
        ],
        [usdc(p.realisedPnl), usdc(p.unrealisedPnl ?? 0), p.position],
        `${id}: /metrics = ledger pnl`,
      );
    }
  });
});
