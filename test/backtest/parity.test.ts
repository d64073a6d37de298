/**
 * Parity: the bot trades live on the in-process local exchange (src/runtime/bot.ts, bands strategy,
 * two markets, simulated counterparties) while the recorder captures the same markets; then the
 * recording is backtested with the same config. Prints the gap in fills and PnL (the README figure).
 *
 * The gap has known causes, so it is reported, not asserted small: the recording contains the live
 * bot's own quotes (the backtested bot queues behind its own ghost at the same price) and the trades
 * that filled it; the recorder sees trades only on the YES stream; the counterparties react to the
 * live bot, not to the replayed one. The assertions check the pipeline: both sides ran on the same
 * data, and every backtest fill is explained by a recorded trade or crossing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseConfigText } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { startRecorder } from '../../src/backtest/recorder.ts';
import { buildBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { KIND_LEVEL, KIND_TRADE } from '../../src/backtest/recording/columns.ts';
import { marketPnl } from '../../src/state/market-view.ts';

const CONFIG = `
venue:
  local: { seed: 5, markets: 2, tick: 0.01, agents: { noiseTakers: 3, informedTakers: 1, makers: 1, takerRatePerSecond: 4 } }
defaults:
  strategy: { name: bands, params: { fair: microprice, bands: [ { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 } ] } }
  risk: { maxPosition: 200, maxNotional: 150 }
markets: all
orders: { requoteIntervalSeconds: 0.25 }
metrics: { port: 0 }
logging: { level: warn }
`;
const BACKTEST = `
backtest: { queueModel: level, latency: { feedMs: recorded, entryMs: 2, responseMs: 2 }, fees: { makerBps: 0, takerBps: 50 } }
`;

let startBot: typeof import('../../src/runtime/bot.ts').startBot | null = null;
try {
  ({ startBot } = await import('../../src/runtime/bot.ts'));
} catch {
  startBot = null;
}

test('parity: live on the local exchange vs the backtest of its recording', { skip: startBot ? false : 'src/runtime/bot.ts not available' }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-parity-'));
  try {
    const cfg = await parseConfigText(CONFIG, 'parity.yaml', { env: {} });
    const bot = await startBot!({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
    const rec = await startRecorder({ baseUrl: bot.baseUrl, markets: bot.markets, out, oraclePollMs: 60_000 });
    await new Promise((r) => setTimeout(r, 8000));
    const code = await bot.stop();
    await rec.stop();
    assert.equal(code, 0, 'the live bot stopped cleanly (no order left)');
    const liveFills = [...bot.fills.values()].reduce((a, b) => a + b, 0);
    let livePnl = 0n;
    for (const m of bot.store.state.markets.values()) {
      const p = marketPnl(m);
      livePnl += p.realised + p.unrealised;
    }

    const bt = await buildBacktestConfig('parity.yaml', parseDocument(CONFIG + BACKTEST).toJS() as Record<string, unknown>, {}, {});
    const source = loadReplaySource(out);
    const run = await runBacktest({ source, config: bt.bot, settings: bt.settings });
    const s = buildSummary(run);
    assert.ok(run.rowsReplayed > 0, 'the recording replayed');
    assert.deepEqual([...run.quoted].sort(), [...bot.markets].map((m) => m.toLowerCase()).sort(), 'the same markets quoted');
    const { cols } = source;
    for (const f of run.collector.fills) {
      if (f.cause === 'trade') assert.equal(cols.kind[f.row], KIND_TRADE);
      if (f.cause === 'cross') assert.equal(cols.kind[f.row], KIND_LEVEL);
    }
    const livePnlUsd = Number(livePnl) / 1e6;
    process.stdout.write(
      `parity gap: live ${liveFills} fills, PnL ${livePnlUsd.toFixed(4)} USDC | backtest ${s.fills} fills, PnL ${s.pnl.total.toFixed(4)} USDC | gap ${s.fills - liveFills} fills, ${(s.pnl.total - livePnlUsd).toFixed(4)} USDC (${run.rowsReplayed} rows recorded, ${[...Array(cols.rows).keys()].filter((i) => cols.kind[i] === KIND_TRADE).length} trade prints)\n`,
    );
    assert.ok(liveFills > 0, 'the live bot traded');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
