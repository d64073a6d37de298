/**
 * The load's one pass over the columns (scanColumns in src/backtest/recording/check-columns.ts) learns
 * what the load and the run each learned in a pass of their own over every row: the rows' time order
 * (windowRows), the drop-copy markets (the sim exchange's `exact`), the rows per market and kind (the
 * run's quoted-rows counts). Its figures must be the per-row definitions', and a run that takes them
 * must be the run that passes over the rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { dropCopyOf, scanColumns, STAT_KINDS } from '../../src/backtest/recording/check-columns.ts';
import { KIND_TAKER, KIND_TRADE, KIND_XLEVEL, toColumns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import { loadReplaySource, windowRows } from '../../src/backtest/replay-source.ts';
import { buildSummary, summaryJson } from '../../src/backtest/report-summary.ts';
import { countQuotedRows, runBacktest } from '../../src/backtest/run-backtest.ts';
import { SimExchange } from '../../src/backtest/sim-exchange.ts';
import { queueModel } from '../../src/backtest/queue-model.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const A = `0x${'a1'.repeat(32)}`;
const B = `0x${'b2'.repeat(32)}`;
const C = `0x${'c3'.repeat(32)}`;
const T0 = 1_780_795_851_000;

/** Three markets: A public book and trades, B the venue's drop copy too, C top of book only. */
function events(stepBack: boolean): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (let i = 0; i < 40; i++) {
    const t = T0 + i * 250 - (stepBack && i === 17 ? 600 : 0);
    out.push({ t: 'book', m: A, vts: t, lts: t, snap: i % 10 === 0, b: [[400_000, 10_000_000 + i]], a: [[600_000, 5_000_000]] } as RecordedEvent);
    if (i % 3 === 0) out.push({ t: 'trade', m: A, vts: t, lts: t, side: i % 2 === 0 ? 'buy' : 'sell', p: 600_000, s: 1_000_000 } as RecordedEvent);
    if (i % 4 === 0) out.push({ t: 'xbook', m: B, vts: t, lts: t, snap: i === 0, b: [[300_000, 2_000_000]], a: [] } as RecordedEvent);
    if (i % 5 === 0) out.push({ t: 'taker', m: B, vts: t, lts: t, side: 'sell', p: 300_000, s: 1_000_000 } as RecordedEvent);
    if (i % 2 === 0) out.push({ t: 'bbo', m: C, vts: t, lts: t, bid: 450_000, ask: 550_000 } as RecordedEvent);
  }
  return out;
}

test('scanColumns: time order, rows per market and kind, drop-copy markets as one row at a time says', () => {
  for (const stepBack of [false, true]) {
    const c = toColumns(events(stepBack), [A, B, C]);
    const { damaged, stats } = scanColumns(c);
    assert.equal(damaged, null);
    assert.ok(stats !== null);
    let ordered = true;
    for (let i = 1; i < c.rows; i++) if (!(c.lts[i]! >= c.lts[i - 1]!)) ordered = false;
    assert.equal(stats.ordered, ordered);
    assert.equal(stats.ordered, !stepBack);
    assert.equal(stats.rows, c.rows);
    const counts = new Uint32Array(c.markets.length * STAT_KINDS);
    const drop = new Uint8Array(c.markets.length);
    for (let i = 0; i < c.rows; i++) {
      counts[c.market[i]! * STAT_KINDS + c.kind[i]!]!++;
      if (c.kind[i]! >= KIND_XLEVEL) drop[c.market[i]!] = 1;
    }
    assert.deepEqual([...stats.counts], [...counts]);
    assert.deepEqual([...dropCopyOf(stats, c.markets.length)], [...drop]);
    assert.deepEqual([...drop], [0, 1, 0]);
    // windowRows told the order gives what it finds by itself
    for (const [from, to] of [
      [-Infinity, Infinity],
      [T0 + 1000, T0 + 5000],
    ] as const) {
      assert.deepEqual([...windowRows(c.lts, c.rows, from, to, stats.ordered)], [...windowRows(c.lts, c.rows, from, to)]);
    }
    // the sim exchange's drop-copy markets from the stats are the ones its own pass finds
    const ex = (dropCopy?: Uint8Array) =>
      new SimExchange({
        cols: c,
        ticks: [10_000, 10_000, 10_000],
        queue: queueModel('level', 1),
        fees: { makerBps: 0, takerBps: 0 },
        onFill: () => {},
        ...(dropCopy ? { dropCopy } : {}),
      });
    const given = dropCopyOf(stats, c.markets.length);
    assert.deepEqual([...ex(given).exact], [...ex().exact]);
    // (a copy: the exchange may mark a market later, the stats stay as loaded)
    assert.notEqual(ex(given).exact, given);
    // the quoted rows from the counts are the pass's
    const rows = windowRows(c.lts, c.rows, -Infinity, Infinity, stats.ordered);
    for (const quoted of [new Set([0]), new Set([1, 2]), new Set([0, 1, 2]), new Set<number>()]) {
      assert.deepEqual(countQuotedRows(c, rows, rows.length, quoted, stats), countQuotedRows(c, rows, rows.length, quoted), [...quoted].join());
      // among the first rows only: the pass
      assert.deepEqual(countQuotedRows(c, rows, 30, quoted, stats), countQuotedRows(c, rows, 30, quoted));
    }
    let trade = 0;
    for (let i = 0; i < c.rows; i++) if (c.market[i] === 0 && c.kind[i] === KIND_TRADE) trade++;
    assert.equal(countQuotedRows(c, rows, rows.length, new Set([0]), stats).trade, trade);
    assert.equal(
      countQuotedRows(c, rows, rows.length, new Set([1]), stats).book,
      counts[1 * STAT_KINDS + KIND_XLEVEL]! + counts[1 * STAT_KINDS + KIND_XLEVEL + 1]!,
    );
    assert.equal(counts[1 * STAT_KINDS + KIND_TAKER]! > 0, true);
  }
});

test('scanColumns: a damaged row gives no stats (the pass stopped there)', () => {
  const c = toColumns(events(false), [A, B, C]);
  c.size[12] = -3;
  const { damaged, stats } = scanColumns(c);
  assert.deepEqual(damaged, { row: 12, what: 'size -3' });
  assert.equal(stats, null);
});

test('the capture: the load keeps its stats, and a run that takes them is the run that passes over the rows', async () => {
  const dir = await polymarketRecording();
  const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
  const source = loadReplaySource(dir);
  assert.ok(source.stats !== undefined);
  assert.equal(source.stats.ordered, true);
  assert.equal(source.stats.rows, source.cols.rows);
  const one = async (withStats: boolean) => {
    const s = withStats ? source : { ...source, stats: undefined };
    const run = await runBacktest({ source: s, config: cfg.bot, settings: cfg.settings });
    return { run, json: summaryJson(buildSummary(run)) };
  };
  const a = await one(true);
  const b = await one(false);
  assert.deepEqual(a.run.quotedRows, b.run.quotedRows);
  assert.ok(a.run.quotedRows.book > 0 && a.run.quotedRows.trade > 0);
  assert.equal(a.run.collector.fills.length, 62);
  assert.deepEqual(a.run.collector.fills, b.run.collector.fills);
  assert.equal(a.json, b.json);
});
