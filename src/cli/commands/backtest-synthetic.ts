/**
 * `bookmaker backtest -c FILE --synthetic [--seed N | --seeds A-B] [--hours H] [--markets M]
 * [--flow benign|calibrated|toxic] [--json FILE|-] [--report FILE] [--fills-csv FILE]`: the local
 * exchange's markets and counterparties run on the backtest's virtual clock in closed loop
 * (src/backtest/synthetic-source.ts: they see the bot's quotes), their flow generated and replayed
 * through the same kernel, risk and order manager as a recording. One seed prints the same summary
 * as a recording's backtest; a seed range runs each seed and prints, per strategy, the mean PnL,
 * volume, fills and markouts over the seeds with their 95 % intervals.
 */
import type { ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { loadBacktestConfig, type LoadedBacktestConfig } from '../../backtest/backtest-config.ts';
import { buildSummary, type BacktestSummary } from '../../backtest/report-summary.ts';
import { runBacktest, type BacktestRun } from '../../backtest/run-backtest.ts';
import { liveSyntheticSource, validateSyntheticOptions, type SyntheticOptions } from '../../backtest/synthetic-source.ts';
import { strategyFigures, summariseSeeds, type StrategySeedStats } from '../../backtest/seed-summary.ts';
import { formatMeanCi } from '../../backtest/mean-ci.ts';
import { FLOW_PRESETS, isFlowPreset } from '../../sim/flow-presets.ts';
import { onCtrlC } from '../shared-flags.ts';
import { writeOut, writeRunOutputs } from '../run-outputs.ts';

export interface SyntheticPrinters {
  printSummary(s: BacktestSummary, out: NodeJS.WriteStream): void;
  printWarnings(s: BacktestSummary, out: NodeJS.WritableStream): void;
}

/** `A-B` (inclusive, at most 1000 seeds) or a single seed `A`. */
export function parseSeedRange(text: string): number[] {
  const m = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(text.trim());
  if (!m) throw new BadInputError('--seeds', 'a seed range A-B of non-negative integers (e.g. 1-20)', text);
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (b < a) throw new BadInputError('--seeds', 'a range A-B with A ≤ B', text);
  if (b - a + 1 > 1000) throw new BadInputError('--seeds', 'at most 1000 seeds', text);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

function numberFlag(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadInputError(flag, 'a number', v);
  return v;
}

/** The options of a synthetic run from the CLI flags (validated; `seed` is the first of the range). */
export function syntheticFlags(o: ParsedArgs['options']): { base: Omit<SyntheticOptions, 'seed'>; seeds: number[] } {
  if (typeof o.data === 'string') throw new BadInputError('--data', 'either --data DIR or --synthetic, not both', o.data);
  if (typeof o.sweep === 'string') throw new BadInputError('--sweep', 'a recording (--data); a sweep over synthetic markets is not supported yet', o.sweep);
  const flow = o.flow ?? 'benign';
  if (!isFlowPreset(flow)) throw new BadInputError('--flow', `one of ${FLOW_PRESETS.join(', ')}`, flow);
  if (o.seed !== undefined && o.seeds !== undefined) throw new BadInputError('--seeds', 'either --seed N or --seeds A-B, not both', o.seeds);
  const seeds = typeof o.seeds === 'string' ? parseSeedRange(o.seeds) : [numberFlag(o.seed, '--seed', 1)];
  const base = { hours: numberFlag(o.hours, '--hours', 1), markets: numberFlag(o.markets, '--markets', 4), flow };
  for (const seed of seeds) validateSyntheticOptions({ ...base, seed });
  return { base, seeds };
}

async function runOne(cfg: LoadedBacktestConfig, opts: SyntheticOptions, fast: boolean, signal?: AbortSignal): Promise<BacktestRun> {
  const source = await liveSyntheticSource(opts);
  return runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings, fast, ...(signal ? { signal } : {}) });
}

export function seedTable(stats: readonly StrategySeedStats[], head: string): string {
  const lines = [
    head,
    `  ${'strategy'.padEnd(22)} ${'runs'.padStart(4)}  ${'PnL USDC (mean [95% CI])'.padEnd(30)} ${'volume USDC'.padEnd(28)} ${'fills'.padEnd(22)} markouts 1s / 10s / 60s ¢`,
  ];
  for (const s of stats) {
    const mk = ['1s', '10s', '60s'].map((h) => formatMeanCi(s.markouts[h]!, 3)).join(' / ');
    lines.push(
      `  ${s.strategy.padEnd(22)} ${String(s.runs).padStart(4)}  ${formatMeanCi(s.pnl).padEnd(30)} ${formatMeanCi(s.volume, 1).padEnd(28)} ${formatMeanCi(s.fills, 1).padEnd(22)} ${mk}`,
    );
  }
  return lines.join('\n') + '\n';
}

export async function runSyntheticBacktest(args: ParsedArgs, cfgFile: string, p: SyntheticPrinters): Promise<number> {
  const { base, seeds } = syntheticFlags(args.options);
  const cfg = await loadBacktestConfig(cfgFile);
  const fast = args.options.fast === true;
  const json = typeof args.options.json === 'string' ? args.options.json : undefined;
  const stop = onCtrlC('writing what is done (Ctrl-C again to quit without it)');
  try {
    if (seeds.length === 1) {
      const seed = seeds[0]!;
      const t0 = performance.now();
      process.stderr.write(
        `backtest: ${base.hours} h of ${base.markets} synthetic markets, ${base.flow} flow, seed ${seed} (virtual time, closed loop: the counterparties see the bot's quotes)\n`,
      );
      const run = await runOne(cfg, { ...base, seed }, fast, stop.signal);
      const secs = (performance.now() - t0) / 1000;
      const summary = buildSummary(run);
      const toStdout = json === '-';
      if (!toStdout) p.printSummary(summary, process.stdout);
      process.stderr.write(`generated and replayed ${run.rowsReplayed.toLocaleString('en-US')} rows in ${secs.toFixed(2)} s\n`);
      writeRunOutputs(run, summary, args.options);
      p.printWarnings(summary, process.stderr);
      return summary.incomplete ? 130 : 0;
    }
    if (typeof args.options.report === 'string' || typeof args.options['fills-csv'] === 'string') {
      throw new BadInputError(
        typeof args.options.report === 'string' ? '--report' : '--fills-csv',
        'a single seed (--seed N): with --seeds the output is the per-strategy table (and --json)',
        args.options.report ?? args.options['fills-csv'],
      );
    }
    const runs: { seed: number; figures: ReturnType<typeof strategyFigures> }[] = [];
    const t0 = performance.now();
    for (const seed of seeds) {
      if (stop.signal.aborted) break;
      const run = await runOne(cfg, { ...base, seed }, fast, stop.signal);
      if (run.incomplete) break;
      const summary = buildSummary(run);
      const figures = strategyFigures(run, summary);
      runs.push({ seed, figures });
      process.stderr.write(
        `seed ${seed}: ${figures.map((f) => `${f.strategy} PnL ${f.pnl.toFixed(2)} on ${f.volume.toFixed(0)} USDC`).join(', ')}${summary.killed ? ` (kill switch: ${summary.killed})` : ''}\n`,
      );
      // a strategy that threw or returned malformed quotes is named with its markets under its seed
      if ((run.strategyFaults?.length ?? 0) > 0) p.printWarnings(summary, process.stderr);
    }
    const stats = summariseSeeds(runs);
    const complete = runs.length === seeds.length;
    const ran = runs.length > 0 ? `${runs[0]!.seed}-${runs[runs.length - 1]!.seed}` : 'none';
    const head = `synthetic backtest: ${runs.length} seed(s) ${ran} × ${base.hours} h × ${base.markets} markets, ${base.flow} flow, closed loop (${((performance.now() - t0) / 1000).toFixed(1)} s)${complete ? '' : ` — INCOMPLETE: interrupted after ${runs.length} of ${seeds.length} seeds`}`;
    // `complete` and the seeds asked for let a reader of the file tell an interrupted run from a whole one
    const doc = {
      format: 'bookmaker-synthetic-seeds',
      version: 1,
      flow: base.flow,
      hours: base.hours,
      markets: base.markets,
      seedsRequested: `${seeds[0]}-${seeds[seeds.length - 1]}`,
      complete,
      seeds: runs.map((r) => r.seed),
      strategies: stats,
    };
    if (json === '-') process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    else {
      process.stdout.write(seedTable(stats, head));
      if (json !== undefined) writeOut(json, JSON.stringify(doc, null, 2) + '\n', 'json');
    }
    return complete ? 0 : 130;
  } finally {
    stop.dispose();
  }
}
