/**
 * Synthetic backtests (src/backtest/synthetic-source.ts, `backtest --synthetic`): deterministic per
 * seed (same seed → byte-identical summary and fills; another seed → other fills), the flow presets
 * change the flow, and the CLI's flags are checked with clear errors; a seed range prints the
 * per-strategy table with 95 % intervals. Short runs (minutes of virtual time) keep the suite quick.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { buildSummary, summaryJson } from '../../src/backtest/report-summary.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { fillsCsv } from '../../src/backtest/fills-csv.ts';
import { liveSyntheticSource, syntheticSource } from '../../src/backtest/synthetic-source.ts';
import { strategyFigures, summariseSeeds } from '../../src/backtest/seed-summary.ts';
import { meanCi } from '../../src/backtest/mean-ci.ts';
import { KIND_TAKER, KIND_TRADE, KIND_XLEVEL } from '../../src/backtest/recording/columns.ts';
import type { FlowPreset } from '../../src/sim/flow-presets.ts';
import { bookmaker } from '../support/cli.ts';

const cli = (args: string[]) => bookmaker(args);

async function digestOf(seed: number, flow: FlowPreset = 'benign'): Promise<{ digest: string; fills: number; pnl: number }> {
  const cfg = await loadBacktestConfig('config/backtest.yaml');
  // closed loop, as the CLI runs it
  const source = await liveSyntheticSource({ seed, hours: 0.1, markets: 2, flow });
  const run = await runBacktest({ source, config: cfg.bot, settings: cfg.settings });
  const s = buildSummary(run);
  const digest = createHash('sha256').update(summaryJson(s)).update(fillsCsv(run)).digest('hex');
  return { digest, fills: s.fills, pnl: s.pnl.total };
}

test('same seed, same digest (summary and fills); another seed, other fills', async () => {
  const a = await digestOf(5);
  const b = await digestOf(5);
  assert.ok(a.fills > 0, 'the bot trades on synthetic markets');
  assert.equal(a.digest, b.digest);
  const c = await digestOf(6);
  assert.notEqual(c.digest, a.digest);
});

test('the flow presets differ: toxic flow has news (taker bursts at one instant), the rows are a drop copy with trades', async () => {
  const takerBursts = async (flow: FlowPreset): Promise<{ bursts: number; kinds: Set<number> }> => {
    const s = await syntheticSource({ seed: 2, hours: 0.25, markets: 2, flow });
    const perInstant = new Map<string, number>();
    const kinds = new Set<number>();
    for (let i = 0; i < s.cols.rows; i++) {
      kinds.add(s.cols.kind[i]!);
      if (s.cols.kind[i] !== KIND_TAKER) continue;
      const k = `${s.cols.market[i]}:${s.cols.lts[i]}`;
      perInstant.set(k, (perInstant.get(k) ?? 0) + 1);
    }
    return { bursts: [...perInstant.values()].filter((n) => n >= 3).length, kinds };
  };
  const benign = await takerBursts('benign');
  const toxic = await takerBursts('toxic');
  assert.ok(benign.kinds.has(KIND_XLEVEL) && benign.kinds.has(KIND_TAKER) && benign.kinds.has(KIND_TRADE));
  assert.ok(toxic.bursts > benign.bursts, `news bursts: toxic ${toxic.bursts} > benign ${benign.bursts}`);
});

test('seed summary: per strategy, the mean and 95 % interval of the runs', async () => {
  const cfg = await loadBacktestConfig('config/backtest.yaml');
  const runs = [];
  for (const seed of [1, 2]) {
    const run = await runBacktest({
      source: await liveSyntheticSource({ seed, hours: 0.05, markets: 1, flow: 'benign' }),
      config: cfg.bot,
      settings: cfg.settings,
    });
    const summary = buildSummary(run);
    const figures = strategyFigures(run, summary);
    assert.equal(figures.length, 1);
    assert.equal(figures[0]!.pnl.toFixed(6), summary.pnl.total.toFixed(6), "one strategy on every market: its PnL is the run's");
    assert.equal(figures[0]!.markouts['1s'], summary.markouts['1s'].centsPerShare, "and its markout is the summary's");
    runs.push({ seed, figures });
  }
  const [s] = summariseSeeds(runs);
  assert.equal(s!.runs, 2);
  assert.deepEqual(s!.pnl, meanCi(runs.map((r) => r.figures[0]!.pnl)));
});

test('meanCi: mean ± t·s/√n', () => {
  const c = meanCi([1, 2, 3, 4]);
  assert.equal(c.mean, 2.5);
  const half = (3.182 * Math.sqrt(5 / 3)) / 2;
  assert.ok(Math.abs(c.lo! - (2.5 - half)) < 1e-12 && Math.abs(c.hi! - (2.5 + half)) < 1e-12);
  assert.equal(meanCi([7]).lo, null);
});

test('CLI: --synthetic flags are checked; a seed range prints the per-strategy table', async () => {
  const bad = await cli(['backtest', '-c', 'config/backtest.yaml', '--synthetic', '--flow', 'spicy']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--flow.*benign, calibrated, toxic/);
  const both = await cli(['backtest', '-c', 'config/backtest.yaml', '--synthetic', '--data', 'x']);
  assert.match(both.stderr, /--data/);
  const noSynth = await cli(['backtest', '-c', 'config/backtest.yaml', '--data', 'x', '--hours', '2']);
  assert.match(noSynth.stderr, /--hours.*--synthetic/);
  const hours = await cli(['backtest', '-c', 'config/backtest.yaml', '--synthetic', '--hours', '0']);
  assert.match(hours.stderr, /--hours/);
  const r = await cli(['backtest', '-c', 'config/backtest.yaml', '--synthetic', '--seeds', '1-2', '--hours', '0.02', '--markets', '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /synthetic backtest: 2 seed\(s\) 1-2/);
  assert.match(r.stdout, /avellaneda\s+2\s+-?\d+\.\d\d \[-?\d+\.\d\d, -?\d+\.\d\d\]/);
});
