/**
 * PnL attribution on the real capture: the whole Polymarket recording through config/backtest.yaml.
 * pnl.attribution's four components sum exactly (to 1e-6 USDC) to pnl.total, per market and overall;
 * fees are exactly the fees paid; nothing resolves in the capture. The summary also carries the six
 * default markout horizons and the regime shares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const micro = (x: number): number => Math.round(x * 1e6);

test('pnl.attribution sums exactly to pnl.total on the Polymarket backtest', async () => {
  const dir = await polymarketRecording();
  const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
  const run = await runBacktest({ source: loadReplaySource(dir), config: cfg.bot, settings: cfg.settings });
  const s = buildSummary(run);
  assert.ok(s.fills >= 20, `fills: ${s.fills}`);
  const a = s.pnl.attribution;
  assert.deepEqual(Object.keys(a), ['spreadCapture', 'inventory', 'fees', 'resolution']);
  assert.equal(micro(a.spreadCapture) + micro(a.inventory) + micro(a.fees) + micro(a.resolution), micro(s.pnl.total));
  assert.equal(micro(a.fees), -micro(s.feesPaid));
  assert.equal(a.resolution, 0);
  for (const m of s.markets) {
    const x = m.attribution;
    assert.equal(micro(x.spreadCapture) + micro(x.inventory) + micro(x.fees) + micro(x.resolution), micro(m.totalPnl), m.marketId);
  }
  // the components are the markets' summed
  for (const k of ['spreadCapture', 'inventory', 'fees', 'resolution'] as const) {
    assert.equal(
      s.markets.reduce((t, m) => t + micro(m.attribution[k]), 0),
      micro(a[k]),
      k,
    );
  }
  // the bot was picked off on this capture: negative markouts, losses from inventory, not from the spread
  assert.ok(a.spreadCapture > 0 && a.inventory < 0, JSON.stringify(a));
  assert.deepEqual(Object.keys(s.markouts), ['1s', '5s', '10s', '30s', '60s', '300s']);
  assert.ok(s.markouts['10s']!.centsPerShare! < 0);
  const shares = Object.values(s.regimes);
  assert.ok(Math.abs(shares.reduce((x, y) => x + y, 0) - 1) < 1e-3, JSON.stringify(s.regimes));
});
