/**
 * A synthetic market that resolves while the bot holds a position settles: the position pays out at
 * the payout (nothing held after, no unrealised PnL), the attribution's `resolution` carries the jump
 * from the last mid to the payout, the bot's orders there end at the resolution (voided by the
 * exchange), and the summary, the per-market rows, the PnL chart's last sample, the HTML report, the
 * fills CSV and the bot's own books all show the same figures. A few virtual minutes of `toxic` flow
 * (seed 5: both markets resolve NO near the 4-minute mark with the bot long).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary, markout } from '../../src/backtest/report-summary.ts';
import { buildHtml } from '../../src/backtest/report-html.ts';
import { fillsCsv } from '../../src/backtest/fills-csv.ts';
import { liveSyntheticSource } from '../../src/backtest/synthetic-source.ts';
import { replayMarketId } from '../../src/backtest/recording/format.ts';
import { marketPnl } from '../../src/state/market-view.ts';

const micro = (x: number): number => Math.round(x * 1e6);

test('a market resolving with a position held: paid out at the payout, resolution attributed, orders ended, every figure agrees', async () => {
  const cfg = await loadBacktestConfig('config/backtest.yaml');
  const source = await liveSyntheticSource({ seed: 5, hours: 0.07, markets: 2, flow: 'toxic' });
  const run = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
  const s = buildSummary(run);
  const c = run.collector;
  const resolutions = source.side.filter((e) => e.t === 'market' && e.meta.status === 'resolved');
  assert.ok(resolutions.length >= 1, 'a market resolved');

  let held = 0;
  for (const e of resolutions) {
    const m = c.markets.indexOf(e.m);
    const payout = e.t === 'market' && e.meta.outcome === 1 ? 1_000_000 : 0;
    assert.equal(c.payout[m], payout, 'the collector settled the market at its payout');
    // the position at the resolution, and the mid just before it
    let net = 0;
    for (const f of c.fills) if (f.market === m) net += f.yesSide === 'bid' ? f.size : -f.size;
    const mids = c.midV[m]!;
    assert.equal(mids[mids.length - 1], payout, 'the payout is the mid from the resolution on');
    assert.equal(c.midT[m]![mids.length - 1], e.lts, 'at the resolution');
    const before = mids[mids.length - 2]!;
    const row = s.markets.find((x) => x.marketId === e.m)!;
    assert.equal(row.finalPosition, 0, 'paid out: nothing held');
    assert.equal(row.unrealisedPnl, 0);
    assert.equal(row.realisedPnl, row.totalPnl);
    if (net !== 0) {
      held++;
      // net × (payout − last mid), floored to 1e-6 USDC; the apportioning moves it by a unit at most
      const jump = Math.floor((net * (payout * 2 - Math.round(before * 2))) / 2e6);
      assert.ok(Math.abs(micro(row.attribution.resolution) - jump) <= 1, `${row.attribution.resolution} vs ${jump / 1e6}`);
    }
    // the bot's own books (its store, fed the resolution as the live market poll would) agree
    const ms = run.store.state.markets.get(replayMarketId(e.m))!;
    assert.equal(ms.payoutYes, payout);
    const own = marketPnl(ms);
    assert.ok(Math.abs(Number(own.realised + own.unrealised) - micro(row.totalPnl)) <= 1, `books ${own.realised + own.unrealised} vs summary ${row.totalPnl}`);
    // no order of the bot lived past the resolution there
    for (const o of run.exchange.openOrders(m)) assert.fail(`order ${o.key} open in a resolved market`);
  }
  assert.ok(held >= 1, 'the bot held a position at a resolution');
  assert.ok(run.exchange.voided >= 1, 'the resolution voided the bot’s resting orders');

  // spread + inventory + fees + resolution = total, to the micro-unit, overall and per market
  const a = s.pnl.attribution;
  assert.notEqual(a.resolution, 0);
  assert.equal(micro(a.spreadCapture) + micro(a.inventory) + micro(a.fees) + micro(a.resolution), micro(s.pnl.total));
  for (const m of s.markets) {
    const x = m.attribution;
    assert.equal(micro(x.spreadCapture) + micro(x.inventory) + micro(x.fees) + micro(x.resolution), micro(m.totalPnl), m.marketId);
  }
  assert.equal(
    s.markets.reduce((t, m) => t + micro(m.totalPnl), 0),
    micro(s.pnl.total),
  );
  // what is held at the end is held in the markets still open (the resolved ones paid out, above)
  const resolvedIds = new Set(resolutions.map((e) => e.m));
  const open = s.markets.filter((m) => !resolvedIds.has(m.marketId)).reduce((t, m) => t + Math.abs(m.finalPosition), 0);
  assert.ok(Math.abs(s.inventory.finalAbs - open) < 1e-6, `${s.inventory.finalAbs} vs ${open}`);
  // the PnL chart ends where the summary does; the HTML report shows the summary's figures
  assert.equal(c.totalPnl[c.totalPnl.length - 1], micro(s.pnl.total));
  const html = buildHtml(run, s);
  assert.ok(html.includes(`resolution ${a.resolution.toFixed(6)}`), 'the report shows the resolution');
  // the fills CSV's markouts and the summary's read the same mids: past the resolution, the payout
  const csv = fillsCsv(run).trim().split('\n');
  const col = csv[0]!.split(',').indexOf('markout_60s');
  let csvNum = 0;
  let csvDen = 0;
  c.fills.forEach((f, i) => {
    const cell = csv[i + 1]!.split(',')[col]!;
    if (cell === '') return;
    csvNum += Number(cell) * f.size;
    csvDen += f.size;
  });
  const sm = markout(run, 60_000);
  assert.ok(sm.centsPerShare !== null && Math.abs(csvNum / csvDen / 0.01 - sm.centsPerShare) < 1e-3, `${csvNum / csvDen} vs ${sm.centsPerShare}`);
});
