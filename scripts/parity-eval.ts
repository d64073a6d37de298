/**
 * Live-versus-backtest parity on a longer run (issue 15): the bot trades live on the in-process local
 * exchange (bands, 2 markets, simulated noise and informed takers) while the recorder captures the
 * same markets; the recording is then backtested with the same config. Prints fills, volume, PnL and
 * the PnL attribution of both sides, and the gaps.
 *
 *   node --import tsx scripts/parity-eval.ts [--seconds 180] [--rate 12] [--seed 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseConfigText } from '../src/config/load-config.ts';
import { silentLogger } from '../src/core/logger.ts';
import { startRecorder } from '../src/backtest/recorder.ts';
import { buildBacktestConfig } from '../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { marketAttribution } from '../src/state/edge-view.ts';
import { startBot } from '../src/runtime/bot.ts';

const args = process.argv.slice(2);
const flag = (k: string, d: string): string => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1]! : d;
};
const seconds = Number(flag('--seconds', '180'));
const CONFIG = `
venue:
  local: { seed: ${Number(flag('--seed', '5'))}, markets: 2, tick: 0.01, agents: { noiseTakers: 3, informedTakers: 1, makers: 1, takerRatePerSecond: ${Number(flag('--rate', '12'))} } }
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

const out = mkdtempSync(join(tmpdir(), 'bookmaker-parity-eval-'));
try {
  const cfg = await parseConfigText(CONFIG, 'parity.yaml', { env: {} });
  const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
  const rec = await startRecorder({ baseUrl: bot.baseUrl, markets: bot.markets, out, oraclePollMs: 60_000 });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const code = await bot.stop();
  await rec.stop();
  const live = { fills: 0, volume: 0n, spread: 0n, inventory: 0n, fees: 0n, resolution: 0n, total: 0n };
  for (const m of bot.store.state.markets.values()) {
    live.fills += m.position.fills;
    live.volume += m.position.volume;
    const a = marketAttribution(m);
    live.spread += a.spreadCapture;
    live.inventory += a.inventory;
    live.fees += a.fees;
    live.resolution += a.resolution;
    live.total += a.total;
  }
  const bt = await buildBacktestConfig('parity.yaml', parseDocument(CONFIG + BACKTEST).toJS() as Record<string, unknown>, {}, {});
  const run = await runBacktest({ source: loadReplaySource(out), config: bt.bot, settings: bt.settings });
  const s = buildSummary(run);
  const usd = (x: bigint) => Number(x) / 1e6;
  const liveVol = Number(live.volume / 1_000_000n) / 1e6;
  const pct = (a: number, b: number) => (b === 0 ? '–' : `${(((a - b) / Math.abs(b)) * 100).toFixed(1)} %`);
  const res = {
    seconds,
    stopCode: code,
    live: { fills: live.fills, volume: liveVol, pnl: usd(live.total), attribution: { spreadCapture: usd(live.spread), inventory: usd(live.inventory), fees: usd(live.fees), resolution: usd(live.resolution) } },
    backtest: { fills: s.fills, volume: s.volume, pnl: s.pnl.total, attribution: s.pnl.attribution, rows: run.rowsReplayed },
    gaps: { fills: pct(s.fills, live.fills), volume: pct(s.volume, liveVol), pnl: (s.pnl.total - usd(live.total)).toFixed(4) },
  };
  process.stdout.write(JSON.stringify(res, null, 2) + '\n');
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(0);
