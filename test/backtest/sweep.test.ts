/** Sweeps: grid parsing and expansion, ranking, and a worker-thread sweep that matches the in-thread runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandGrid, parseSweepSpec, rank, formatRanked, type SweepResult } from '../../src/backtest/sweep-grid.ts';
import { runSweep } from '../../src/backtest/run-sweep.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

test('a grid expands to every combination, the last path varying fastest', () => {
  const spec = parseSweepSpec({ grid: { 'a.x': [1, 2], 'b.y': ['p', 'q', 'r'] } }, 's.yaml');
  assert.deepEqual(expandGrid(spec.grid), [
    { 'a.x': 1, 'b.y': 'p' },
    { 'a.x': 1, 'b.y': 'q' },
    { 'a.x': 1, 'b.y': 'r' },
    { 'a.x': 2, 'b.y': 'p' },
    { 'a.x': 2, 'b.y': 'q' },
    { 'a.x': 2, 'b.y': 'r' },
  ]);
  assert.equal(spec.rankBy, 'pnl');
  assert.equal(spec.fast, true);
});

test('bad sweep files are ConfigErrors naming the file and key', () => {
  const bad: [unknown, RegExp][] = [
    [{}, /s\.yaml: grid/],
    [{ grid: { 'a.x': [] } }, /grid\.a\.x: expected a non-empty list/],
    [{ grid: { 'a..x': [1] } }, /dotted config path/],
    [{ grid: { 'a.x': [1] }, rankBy: 'luck' }, /rankBy: expected one of/],
    [{ grid: { 'a.x': [1] }, extra: 1 }, /extra: unknown key/],
    [{ grid: { 'a.x': [1, 2, 3], 'b.y': [1, 2] }, maxRuns: 5 }, /6 combinations, above maxRuns 5/],
  ];
  for (const [doc, re] of bad)
    assert.throws(
      () => parseSweepSpec(doc, 's.yaml'),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(doc),
    );
});

test('ranking: best first by the chosen score, failures last, ties in grid order', () => {
  const s = (pnl: number, dd: number) =>
    ({
      pnl: { total: pnl },
      maxDrawdown: dd,
      fills: 1,
      sharpe: { value: pnl, period: 'minute', periods: 3 },
      volume: 0,
      quoteUptime: { twoSided: 1 },
    }) as unknown as BacktestSummary;
  const results: SweepResult[] = [
    { index: 0, combo: { k: 0 }, summary: s(1, 5) },
    { index: 1, combo: { k: 1 }, summary: null, error: 'boom' },
    { index: 2, combo: { k: 2 }, summary: s(3, 9) },
    { index: 3, combo: { k: 3 }, summary: s(3, 1) },
  ];
  assert.deepEqual(
    rank(results, 'pnl').map((r) => r.index),
    [2, 3, 0, 1],
  );
  assert.deepEqual(
    rank(results, 'drawdown').map((r) => r.index),
    [3, 0, 2, 1],
  );
  const table = formatRanked(rank(results, 'pnl'), [['k', [0, 1, 2, 3]]]);
  assert.match(table.split('\n')[0]!, /#\s+k\s+pnl/);
  // the failed run's row says failed in its pnl column; its error is listed below the table, not in the column
  const lines = table.trimEnd().split('\n');
  assert.match(lines[4]!, /^\s*4\s+1\s+failed\s*$/);
  assert.equal(lines[5], '#4 failed: boom');
  assert.ok(
    lines.slice(0, 5).every((l) => l.length <= lines[0]!.length),
    `rows no wider than the header:\n${table}`,
  );
});

test('a sweep over worker threads gives the same summaries as in-thread runs, in grid order', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const from = src.cols.lts[src.rows[0]!]!;
  const spec = parseSweepSpec({ grid: { 'defaults.strategy.params.gamma': [0.1, 1], 'backtest.latency.entryMs': [10] } }, 'test');
  const common = { configFile: 'config/backtest.yaml', data, from, to: from + 120_000, spec };
  const threads = await runSweep({ ...common, workers: 2 });
  const inline = await runSweep({ ...common, workers: 0 });
  assert.equal(threads.length, 2);
  for (const r of threads) assert.ok(r.summary, r.error);
  assert.deepEqual(
    threads.map((r) => r.combo),
    [
      { 'defaults.strategy.params.gamma': 0.1, 'backtest.latency.entryMs': 10 },
      { 'defaults.strategy.params.gamma': 1, 'backtest.latency.entryMs': 10 },
    ],
  );
  assert.equal(JSON.stringify(threads.map((r) => r.summary)), JSON.stringify(inline.map((r) => r.summary)));
  assert.equal(threads[0]!.summary!.settings.mode, 'fast');
  assert.deepEqual(threads[0]!.summary!.settings.latency, { feedMs: 0, entryMs: 10, responseMs: 50 });
});

test('an interrupted sweep (Ctrl-C) starts no further run and returns the finished ones, in grid order', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const from = src.cols.lts[src.rows[0]!]!;
  const spec = parseSweepSpec({ grid: { 'defaults.strategy.params.gamma': [0.1, 0.5, 1, 2] } }, 'test');
  const stop = new AbortController();
  const common = { configFile: 'config/backtest.yaml', data, from, to: from + 30_000, spec, signal: stop.signal };
  // in-thread: abort once the first run has finished
  const inline = await runSweep({ ...common, workers: 0, onProgress: (d) => d === 1 && stop.abort() });
  assert.deepEqual(
    inline.map((r) => r.index),
    [0],
  );
  assert.ok(inline[0]!.summary);
  // worker threads: aborted before any result, the runs handed out at start (one per worker) still finish
  const stop2 = new AbortController();
  const threads = await runSweep({ ...common, signal: stop2.signal, workers: 2, onProgress: () => stop2.abort() });
  assert.ok(threads.length >= 1 && threads.length <= 2, `${threads.length} runs (one per worker that came online)`);
  assert.deepEqual(
    threads.map((r) => r.index),
    [...threads.map((r) => r.index)].sort((a, b) => a - b),
  );
});
