/**
 * The replay's silent rows taken in one pass change no result. The bot's cursor consumes the rows
 * that reach the bot only through a publication still to come in one pass (ReplayFeed.skipSilent,
 * with a constant feed delay), and the exchange's cursor the rows that change the recorded book only
 * (SimExchange.applySilent). A window of the Polymarket capture replayed so and row by row
 * (`rowByRow`) must give the same summary, report and fills, the same ticks, drains and venue calls,
 * and the one-pass run must have used both passes for most rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig, type BacktestSettings } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary, summaryJson } from '../../src/backtest/report-summary.ts';
import { buildHtml } from '../../src/backtest/report-html.ts';
import { ReplayFeed } from '../../src/backtest/replay-feed.ts';
import { SimExchange } from '../../src/backtest/sim-exchange.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const dir = await polymarketRecording();
const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
const probe = loadReplaySource(dir);
const start = probe.cols.lts[probe.rows[0]!]!;
const window = { from: start + 60_000, to: start + 3 * 60_000 };

/** Rows the feed and the exchange took in one pass during `f`. */
async function counting<T>(f: () => Promise<T>): Promise<{ value: T; feed: number; exchange: number; feedPastTimers: number }> {
  const skip = ReplayFeed.prototype.skipSilent;
  const apply = SimExchange.prototype.applySilent;
  const n = { feed: 0, exchange: 0, feedPastTimers: 0 };
  ReplayFeed.prototype.skipSilent = function (this: ReplayFeed, rows, j, end, delay, before) {
    const o = (this as unknown as { o: { cols: { lts: Float64Array }; clock: { nextDue(): number } } }).o;
    const due = o.clock.nextDue();
    const next = skip.call(this, rows, j, end, delay, before);
    n.feed += next - j;
    // a pass that took rows due after the clock's next timer (one that is not the feed's publication)
    if (next > j && o.cols.lts[rows[next - 1]!]! + delay >= due) n.feedPastTimers++;
    return next;
  };
  SimExchange.prototype.applySilent = function (this: SimExchange, rows, i, end, before, collector) {
    const next = apply.call(this, rows, i, end, before, collector);
    n.exchange += next - i;
    return next;
  };
  try {
    return { value: await f(), ...n };
  } finally {
    ReplayFeed.prototype.skipSilent = skip;
    SimExchange.prototype.applySilent = apply;
  }
}

async function compare(settings: BacktestSettings, fast = false): Promise<{ exchange: number; rows: number; feedPastTimers: number }> {
  const one = async (rowByRow: boolean) => {
    const run = await runBacktest({ source: loadReplaySource(dir, window), config: cfg.bot, settings, fast, rowByRow });
    const s = buildSummary(run);
    return { run, json: summaryJson(s), html: buildHtml(run, s) };
  };
  const onePass = await counting(() => one(false));
  const rowByRow = await counting(() => one(true));
  const rows = onePass.value.run.rowsReplayed;
  if (typeof settings.latency.feedMs === 'number') assert.ok(onePass.feed > rows / 2, `the feed: most rows in one pass (${onePass.feed} of ${rows})`);
  assert.ok(onePass.exchange > rows / 2, `the exchange: most rows in one pass (${onePass.exchange} of ${rows})`);
  assert.equal(rowByRow.feed + rowByRow.exchange, 0, 'rowByRow: no pass');
  const [a, b] = [onePass.value, rowByRow.value];
  assert.ok(a.run.collector.fills.length > 0, 'the window fills');
  assert.deepEqual(a.run.collector.fills, b.run.collector.fills);
  assert.deepEqual(a.run.collector.midT, b.run.collector.midT);
  assert.deepEqual(a.run.collector.midV, b.run.collector.midV);
  assert.equal(a.run.kernelTicks, b.run.kernelTicks);
  assert.equal(a.run.drains, b.run.drains);
  assert.equal(a.run.venueCalls, b.run.venueCalls);
  assert.equal(a.run.end, b.run.end);
  assert.equal(a.json, b.json);
  assert.equal(a.html, b.html);
  return { exchange: onePass.exchange, rows, feedPastTimers: onePass.feedPastTimers };
}

test('silent rows in one pass: the same run as row by row (the shipped config)', async () => {
  const { exchange, rows, feedPastTimers } = await compare(cfg.settings);
  // the feed's pass runs past the bot's other timers, up to its own next publication
  assert.ok(feedPastTimers > 0, 'the feed: passes past the next timer');
  // the exchange's pass runs ahead of the bot's next row by the entry latency (no call of the bot
  // reaches the exchange sooner) and takes the level rows that only move our queue position
  assert.ok(exchange > 0.9 * rows, `the exchange: over 90 % of the rows in one pass (${exchange} of ${rows})`);
});

test('silent rows in one pass: the same run as row by row (sampled entry and response latencies, some zero)', async () => {
  const latency = { ...cfg.settings.latency, entryMs: { samples: [0, 20, 75, 5] }, responseMs: { samples: [0, 40, 10] } };
  await compare({ ...cfg.settings, latency });
});

test('silent rows in one pass: the same run as row by row (no entry latency)', async () => {
  await compare({ ...cfg.settings, latency: { ...cfg.settings.latency, entryMs: 0 } });
});

test('silent rows in one pass: the same run as row by row (a feed delay, samples every 250 ms, fast mode)', async () => {
  await compare({ ...cfg.settings, sampleMs: 250, latency: { ...cfg.settings.latency, feedMs: 40 } }, true);
});
