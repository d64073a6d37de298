/**
 * backtest: the full backtest of the imported Polymarket capture (182k rows after YES/NO de-dup,
 * 6 markets) with the avellaneda strategy of config/backtest.yaml, end to end excluding the import:
 * loading the recording's columns, the replay through the quoting kernel (store, strategy, risk,
 * order manager) against the sim venue with the queue and latency models, and the JSON summary.
 * Baseline: the book-only replay of the same columns (src/backtest/book-replay.ts) in the same run.
 * Figure: recorded events (rows) per second, best of 5 runs by wall time; wall time per run, the
 * best run's CPU time and the CPU cost per kernel tick alongside (the machine is shared: CPU time
 * moves less than wall time when other processes compete for the two cores).
 *
 * Where the time goes, by what is switched off (CPU time, best of 3 each): the replay alone (no market
 * quoted: the exchange's books and queue model, the loop, the samples), the bot's plumbing (every
 * tick runs with a strategy that quotes nothing: the feed's snapshots, the store, the view, the
 * gate's guards, the kernel's timers) and the full run; the quoting (strategy, gate, desired orders,
 * order manager, venue calls, fills) is the rest.
 */
import { createReplayState, replayBook } from '../../src/backtest/book-replay.ts';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import type { BotConfig } from '../../src/config/types.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';

const dir = await polymarketRecording();
const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});

async function full(fast: boolean, bot: BotConfig = cfg.bot): Promise<{ secs: number; cpu: number; rows: number; fills: number; ticks: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const source = loadReplaySource(dir);
  const run = await runBacktest({ source, config: bot, settings: cfg.settings, fast });
  const s = buildSummary(run);
  const secs = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { secs, cpu: (c.user + c.system) / 1e6, rows: run.rowsReplayed, fills: s.fills, ticks: run.kernelTicks };
}

await full(false); // warm-up (JIT, strategy module load)
const runs = [await full(false), await full(false), await full(false), await full(false), await full(false)];
const best = runs.reduce((a, b) => (b.secs < a.secs ? b : a));
const bestCpu = runs.reduce((a, b) => (b.cpu < a.cpu ? b : a));
const fastRun = [await full(true), await full(true)].reduce((a, b) => (b.secs < a.secs ? b : a));

// The breakdown: no market quoted; every market ticked with a strategy that quotes nothing.
const noMarket: BotConfig = { ...cfg.bot, markets: cfg.bot.markets.map((m) => ({ ...m, select: { by: 'id' as const, id: '0x00' as Bytes32 } })) };
const quotesNothing: BotConfig = {
  ...cfg.bot,
  markets: cfg.bot.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: { ...m.strategy.module, quote: () => null } } })),
};
const bestCpuOf = async (bot: BotConfig) => {
  await full(false, bot);
  return [await full(false, bot), await full(false, bot), await full(false, bot)].reduce((a, b) => (b.cpu < a.cpu ? b : a));
};
const replayOnly = await bestCpuOf(noMarket);
const plumbing = await bestCpuOf(quotesNothing);
const ms = (x: number): string => (x * 1000).toFixed(0);

// Baseline: book-only replay of the same columns, repeated for ~1 s.
const source = loadReplaySource(dir);
let rows = 0;
const t1 = performance.now();
while (performance.now() - t1 < 1000) {
  const st = createReplayState(source.cols);
  replayBook(source.cols, st);
  rows += source.cols.rows;
}
const baseRate = rows / ((performance.now() - t1) / 1000);
const rate = best.rows / best.secs;

report(
  [
    [
      'recording',
      `polymarket-tickscope: ${best.rows.toLocaleString('en-US')} rows, ${source.cols.markets.length} markets, ${((source.cols.lts[source.cols.rows - 1]! - source.cols.lts[0]!) / 60_000).toFixed(1)} min`,
    ],
    ['full backtest wall time, s (best of 5)', best.secs],
    ['full backtest CPU time, s (best of 5)', bestCpu.cpu],
    ['full backtest events/s (wall)', rate],
    ['full backtest events/s (CPU)', bestCpu.rows / bestCpu.cpu],
    ['CPU per kernel tick, µs (whole run / ticks)', (bestCpu.cpu * 1e6) / bestCpu.ticks],
    ['kernel ticks / fills', `${best.ticks} / ${best.fills}`],
    ['CPU ms: replay alone / + ticks quoting nothing / full run', `${ms(replayOnly.cpu)} / ${ms(plumbing.cpu)} (${plumbing.ticks} ticks) / ${ms(bestCpu.cpu)}`],
    [
      'CPU per tick, µs: plumbing (view, store, timers) / quoting',
      `${(((plumbing.cpu - replayOnly.cpu) * 1e6) / plumbing.ticks).toFixed(1)} / ${(((bestCpu.cpu - plumbing.cpu) * 1e6) / bestCpu.ticks).toFixed(1)}`,
    ],
    ['fast mode events/s (wall)', fastRun.rows / fastRun.secs],
    ['book-only replay events/s (baseline)', baseRate],
    ['ratio (full / book-only)', rate / baseRate],
  ],
  {
    name: 'backtest',
    unit: 'events/s',
    value: Math.round(rate),
    baseline: 'book-only replay',
    baselineValue: Math.round(baseRate),
    ratio: Number((rate / baseRate).toFixed(4)),
    wallSeconds: Number(best.secs.toFixed(2)),
    cpuEventsPerSecond: Math.round(bestCpu.rows / bestCpu.cpu),
    cpuMicrosPerTick: Number(((bestCpu.cpu * 1e6) / bestCpu.ticks).toFixed(1)),
    cpuMsReplayOnly: Number((replayOnly.cpu * 1000).toFixed(1)),
    cpuMsQuotingNothing: Number((plumbing.cpu * 1000).toFixed(1)),
  },
);
