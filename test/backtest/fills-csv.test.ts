/**
 * `--fills-csv`: one row per fill with time, market, side, price, size, liquidity, fee, mid at fill
 * and the markouts; money columns exact decimals of the integer units. On a window of the real
 * Polymarket capture, through the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { fillsCsv, microDecimal } from '../../src/backtest/fills-csv.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { polymarketRecording } from '../bench/fixtures.ts';
import { bookmaker } from '../support/cli.ts';

test('exact decimals from integer units', () => {
  assert.equal(microDecimal(12_500), '0.012500');
  assert.equal(microDecimal(-1), '-0.000001');
  assert.equal(microDecimal(3_250_000_000n), '3250.000000');
  assert.equal(microDecimal(5, 7), '0.0000005');
});

test('one CSV row per fill, consistent with the fills and the summary markouts', async () => {
  const data = await polymarketRecording();
  const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
  const probe = loadReplaySource(data);
  const from = probe.cols.lts[probe.rows[0]!]!;
  const r = await runBacktest({ source: loadReplaySource(data, { from, to: from + 6 * 60_000 }), config: cfg.bot, settings: cfg.settings });
  const csv = fillsCsv(r);
  const [header, ...rows] = csv.trimEnd().split('\n');
  assert.equal(
    header,
    'time,market,market_name,side,outcome,order_side,price,yes_price,size,liquidity,fee,cause,mid_at_fill,markout_1s,markout_5s,markout_10s,markout_30s,markout_60s,markout_300s',
  );
  assert.ok(r.collector.fills.length >= 5);
  assert.equal(rows.length, r.collector.fills.length, 'one row per fill');
  const col = (row: string, k: string) => row.split(',')[header!.split(',').indexOf(k)]!;
  r.collector.fills.forEach((f, i) => {
    const row = rows[i]!;
    assert.equal(col(row, 'time'), new Date(f.at).toISOString());
    assert.equal(col(row, 'market'), f.marketId);
    assert.equal(col(row, 'side'), f.yesSide === 'bid' ? 'buy' : 'sell');
    assert.equal(Math.round(Number(col(row, 'yes_price')) * 1e6), f.yesPrice);
    assert.equal(Math.round(Number(col(row, 'size')) * 1e6), f.size);
    assert.equal(Math.round(Number(col(row, 'fee')) * 1e6), f.fee);
    assert.equal(col(row, 'liquidity'), f.maker ? 'maker' : 'taker');
  });
  // the size-weighted mean of the 10 s column is the summary's 10 s markout
  const s = buildSummary(r);
  let num = 0;
  let den = 0;
  rows.forEach((row, i) => {
    const m = col(row, 'markout_10s');
    if (m === '') return;
    num += Number(m) * r.collector.fills[i]!.size;
    den += r.collector.fills[i]!.size;
  });
  assert.ok(Math.abs((num / den) * 100 - s.markouts['10s'].centsPerShare!) < 1e-3, `${(num / den) * 100} vs ${s.markouts['10s'].centsPerShare}`);
  assert.equal(rows.filter((row) => col(row, 'markout_10s') !== '').length, s.markouts['10s'].n);
});

test('backtest --fills-csv FILE writes it', async () => {
  const data = await polymarketRecording();
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-fills-'));
  try {
    const out = join(dir, 'fills.csv');
    const { code, stdout, stderr } = await bookmaker(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+3m', '--fills-csv', out]);
    assert.equal(code, 0, stderr);
    const n = Number(/fills\s+(\d+)/.exec(stdout)![1]);
    assert.equal(readFileSync(out, 'utf8').trimEnd().split('\n').length, n + 1);
    assert.match(stdout, new RegExp(`fills: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(${n} rows\\)`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
