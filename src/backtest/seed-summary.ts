/**
 * Many synthetic runs (one per seed) summarised per strategy: PnL (net of fees), volume, fills and
 * the passive-quote markouts at 1 / 10 / 60 s, each as the mean over the seeds with its 95 %
 * confidence interval (./mean-ci.ts). A run's per-strategy figures come from the same functions as
 * its summary (report-summary.ts: the markets' PnL and volume, `markout` over the strategy's markets).
 */
import { meanCi, type MeanCi } from './mean-ci.ts';
import { markout, type BacktestSummary } from './report-summary.ts';
import type { BacktestRun } from './run-backtest.ts';

export const SEED_MARKOUT_HORIZONS_MS = [1_000, 10_000, 60_000] as const;

/** One strategy's figures in one run. */
export interface StrategyFigures {
  readonly strategy: string;
  readonly markets: number;
  readonly pnl: number;
  readonly volume: number;
  readonly fills: number;
  /** ¢ per share by horizon label ('1s', '10s', '60s'); null without fills to measure */
  readonly markouts: Readonly<Record<string, number | null>>;
}

export interface StrategySeedStats {
  readonly strategy: string;
  readonly runs: number;
  readonly pnl: MeanCi;
  readonly volume: MeanCi;
  readonly fills: MeanCi;
  /** over the runs that had fills to measure */
  readonly markouts: Readonly<Record<string, MeanCi>>;
  /** PnL per seed, in seed order */
  readonly perSeed: readonly { readonly seed: number; readonly pnl: number; readonly volume: number; readonly fills: number }[];
}

const label = (ms: number): string => `${ms / 1000}s`;

/** The figures of each strategy of a run (markets grouped by the strategy that quoted them). */
export function strategyFigures(run: BacktestRun, summary: BacktestSummary): StrategyFigures[] {
  const byStrategy = new Map<string, Set<string>>();
  for (const p of run.strategyParams ?? []) {
    const set = byStrategy.get(p.strategy) ?? new Set<string>();
    set.add(p.marketId);
    byStrategy.set(p.strategy, set);
  }
  const columns = run.collector.markets; // recorded ids, one form (recordedMarketId), as are the rest
  const out: StrategyFigures[] = [];
  for (const [strategy, ids] of [...byStrategy].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    let pnl = 0;
    let volume = 0;
    let fills = 0;
    for (const m of summary.markets) {
      if (!ids.has(m.marketId)) continue;
      pnl += m.totalPnl;
      volume += m.volume;
      fills += m.fills;
    }
    const only = new Set<number>();
    columns.forEach((id, i) => ids.has(id) && only.add(i));
    const markouts: Record<string, number | null> = {};
    for (const h of SEED_MARKOUT_HORIZONS_MS) markouts[label(h)] = markout(run, h, only).centsPerShare;
    out.push({ strategy, markets: ids.size, pnl, volume, fills, markouts });
  }
  return out;
}

/** Per strategy, the mean and 95 % interval over the runs (one per seed). */
export function summariseSeeds(runs: readonly { readonly seed: number; readonly figures: readonly StrategyFigures[] }[]): StrategySeedStats[] {
  const names = [...new Set(runs.flatMap((r) => r.figures.map((f) => f.strategy)))].sort();
  return names.map((strategy) => {
    const rows = runs.flatMap((r) => r.figures.filter((f) => f.strategy === strategy).map((f) => ({ seed: r.seed, f })));
    const markouts: Record<string, MeanCi> = {};
    for (const h of SEED_MARKOUT_HORIZONS_MS) {
      const l = label(h);
      markouts[l] = meanCi(rows.map((r) => r.f.markouts[l]).filter((v): v is number => typeof v === 'number'));
    }
    return {
      strategy,
      runs: rows.length,
      pnl: meanCi(rows.map((r) => r.f.pnl)),
      volume: meanCi(rows.map((r) => r.f.volume)),
      fills: meanCi(rows.map((r) => r.f.fills)),
      markouts,
      perSeed: rows.map((r) => ({ seed: r.seed, pnl: r.f.pnl, volume: r.f.volume, fills: r.f.fills })),
    };
  });
}
