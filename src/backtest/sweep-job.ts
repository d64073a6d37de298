/**
 * One sweep job: a backtest of the base config with one combination of overrides, summarised. Used
 * by the worker threads and, with --workers 1 … or in tests, in the calling thread. The loaded
 * recording is cached per thread (every job of a sweep replays the same data).
 */
import { buildBacktestConfig, readYamlDoc } from './backtest-config.ts';
import { blockCount, blockVolume, type RunBlocks } from './pnl-per-volume-bound.ts';
import { buildSummary, type BacktestSummary } from './report-summary.ts';
import { loadReplaySource, type ReplaySource } from './replay-source.ts';
import { runBacktest } from './run-backtest.ts';
import { windowPnl, type Combo } from './sweep-grid.ts';

export interface SweepJobRequest {
  readonly configFile: string;
  readonly data: string;
  readonly from?: number;
  readonly to?: number;
  readonly fast: boolean;
  readonly index: number;
  readonly combo: Combo;
  /** equal windows of the run for `windowPnl` (default 4) */
  readonly windows?: number;
  /** blocks of about this many seconds for `blocks` (default 60) */
  readonly blockSeconds?: number;
}

export interface SweepJobResponse {
  readonly index: number;
  readonly summary: BacktestSummary | null;
  readonly windowPnl?: readonly number[];
  readonly blocks?: RunBlocks;
  readonly error?: string;
}

let cached: { key: string; source: ReplaySource } | null = null;

function sourceFor(r: SweepJobRequest): ReplaySource {
  const key = `${r.data}|${r.from ?? ''}|${r.to ?? ''}`;
  if (!cached || cached.key !== key)
    cached = { key, source: loadReplaySource(r.data, { ...(r.from !== undefined ? { from: r.from } : {}), ...(r.to !== undefined ? { to: r.to } : {}) }) };
  return cached.source;
}

export async function runSweepJob(r: SweepJobRequest): Promise<SweepJobResponse> {
  try {
    const cfg = await buildBacktestConfig(r.configFile, await readYamlDoc(r.configFile), r.combo);
    const run = await runBacktest({ source: sourceFor(r), config: cfg.bot, settings: cfg.settings, fast: r.fast });
    const c = run.collector;
    // the blocks of the pnlPerVolumeLow criterion: the same PnL samples as the windows, the fills' volume by time
    const n = blockCount(run.start, run.end, r.blockSeconds ?? 60);
    const blocks: RunBlocks = { pnl: windowPnl(c.sampleT, c.totalPnl, run.start, run.end, n), volume: blockVolume(c.fills, run.start, run.end, n) };
    return { index: r.index, summary: buildSummary(run), windowPnl: windowPnl(c.sampleT, c.totalPnl, run.start, run.end, r.windows ?? 4), blocks };
  } catch (e) {
    return { index: r.index, summary: null, error: e instanceof Error ? e.message : String(e) };
  }
}
