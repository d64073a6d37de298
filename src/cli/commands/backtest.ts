/**
 * `bookmaker backtest -c FILE --data DIR [--from T --to T] [--report out.html] [--json out.json]
 *  [--sweep FILE] [--fast] [--workers N]`: replay a recording through the same strategy, risk and
 * order-manager code as live (src/backtest/run-backtest.ts), or a parameter sweep over it.
 */
import { availableParallelism } from 'node:os';
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { loadBacktestConfig } from '../../backtest/backtest-config.ts';
import { progressBar } from '../../backtest/progress-bar.ts';
import { buildSummary, type BacktestSummary } from '../../backtest/report-summary.ts';
import { loadReplaySource, parseTimeFlag, readWarning } from '../../backtest/replay-source.ts';
import { readManifest } from '../../backtest/recording/reader.ts';
import { applyRanking, runBacktest } from '../../backtest/run-backtest.ts';
import { runSweep } from '../../backtest/run-sweep.ts';
import { expandGrid, formatRanked, loadSweepSpec, rank } from '../../backtest/sweep-grid.ts';
import { rankingSummary, rankingText } from '../../backtest/rank-recording.ts';
import { buildSweepHtml } from '../../backtest/sweep-report.ts';
import { parseShard, shardIndices, sweepJson, sweepPart } from '../../backtest/sweep-shard.ts';
import { formatWalkForward, parseSplit, runWalkForward, walkForwardJson } from '../../backtest/walk-forward.ts';
import { runSyntheticBacktest } from './backtest-synthetic.ts';
import { applyOneRunTiering } from '../one-run-tiering.ts';
import { configFlag, onCtrlC, RECORDING_FLAGS } from '../shared-flags.ts';
import { checkOutputs, writeOut, writeRunOutputs } from '../run-outputs.ts';

function printSummary(s: BacktestSummary, out: NodeJS.WriteStream): void {
  const f = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));
  const lines = [
    `backtest ${s.recording.source}: ${s.recording.rows} rows, ${s.recording.markets} markets, ${s.recording.from} → ${s.recording.to} (${s.settings.mode} mode, queue ${s.settings.queueModel})`,
    `  PnL           ${f(s.pnl.total)} USDC (realised ${f(s.pnl.realised)}, unrealised ${f(s.pnl.unrealised)}, fees ${f(s.feesPaid)})`,
    `  fills         ${s.fills} (maker ${s.maker.fills}, taker ${s.taker.fills}), volume ${f(s.volume)} USDC`,
    `  inventory     max long ${f(s.inventory.maxLong)}, max short ${f(s.inventory.maxShort)}, final Σ|net| ${f(s.inventory.finalAbs)} shares`,
    `  drawdown      ${f(s.maxDrawdown)} USDC, Sharpe ${s.sharpe.value === null ? `– (${s.sharpe.note ?? 'undefined'})` : `${f(s.sharpe.value, 3)} per ${s.sharpe.period} over ${s.sharpe.periods} ${s.sharpe.period}s`}`,
    `  markouts      1s ${f(s.markouts['1s'].centsPerShare, 3)}¢, 10s ${f(s.markouts['10s'].centsPerShare, 3)}¢, 60s ${f(s.markouts['60s'].centsPerShare, 3)}¢`,
    `  uptime        two-sided ${(s.quoteUptime.twoSided * 100).toFixed(1)}%, orders ${s.orders.placed}, order-to-fill ${f(s.orderToFill, 1)}`,
    `  attribution   spread ${f(s.pnl.attribution.spreadCapture)}, inventory ${f(s.pnl.attribution.inventory)}, fees ${f(s.pnl.attribution.fees)}, resolution ${f(s.pnl.attribution.resolution)} USDC`,
    `  markouts all  ${Object.entries(s.markouts)
      .map(([h, m]) => `${h} ${f(m.centsPerShare, 3)}¢`)
      .join(', ')}`,
    `  regimes       ${Object.entries(s.regimes)
      .map(([r, v]) => `${r} ${(v * 100).toFixed(1)}%`)
      .join(', ')}`,
  ];
  if (s.killed) lines.push(`  kill switch   ${s.killed}`);
  if (s.incomplete)
    lines.push(
      `  INCOMPLETE    interrupted after ${s.incomplete.rowsReplayed.toLocaleString('en-US')} of ${s.incomplete.rowsTotal.toLocaleString('en-US')} rows`,
    );
  out.write(lines.join('\n') + '\n');
}

/** The warnings of a run that placed no order or filled nothing: the headline, then one reason a line. */
function printWarnings(s: BacktestSummary, out: NodeJS.WritableStream): void {
  if (s.warnings.length === 0) return;
  const [head, ...rest] = s.warnings;
  out.write(`warning: ${head}\n${rest.map((w) => `  - ${w}\n`).join('')}`);
}

const command: CommandSpec = {
  name: 'backtest',
  summary: 'replay a recording through strategies, risk and the order manager',
  usage:
    'bookmaker backtest -c FILE --data DIR [--from T --to T] [--report out.html] [--json out.json] [--fills-csv out.csv] [--sweep FILE [--shard I/N | --walk-forward SPLIT]] [--fast] [--workers N]\n' +
    '       bookmaker backtest -c FILE --synthetic [--seed N | --seeds A-B] [--hours H] [--markets M] [--flow benign|calibrated|toxic] [--json FILE|-] [--report out.html] [--fills-csv out.csv]',
  description: [
    'Example (the imported Polymarket capture):',
    '  bookmaker import polymarket data/polymarket-tickscope/events.jsonl.gz --out recordings/polymarket',
    '  bookmaker backtest -c config/backtest.yaml --data recordings/polymarket --report out/report.html',
    'Times (--from/--to): ISO (2026-06-07T01:35:00Z), epoch ms, or an offset from the recording start (+5m).',
    'The config is a bot config plus an optional backtest: section (queue model, latency, fees; see config/backtest.yaml).',
    'Sweeps across machines: each machine runs --sweep FILE --shard I/N --json part-I.json (I = 0 … N − 1),',
    "then 'bookmaker sweep merge part-*.json --json sweep.json --report sweep.html' ranks them all.",
    'Walk-forward: --sweep FILE --walk-forward 50% runs the grid on the first half of the window, chooses by the',
    "grid file's rankBy (runs below its minVolume last) and scores that choice alone on the second half (docs/backtesting.md):",
    '  bookmaker backtest -c config/backtest.yaml --data recordings/polymarket --sweep config/walk-forward.example.yaml --walk-forward 50%',
    "Synthetic markets (--synthetic): the local exchange's markets and counterparties on virtual time, replayed the same way;",
    '  bookmaker backtest -c config/backtest.yaml --synthetic --flow calibrated --hours 1 --seeds 1-20',
    "prints each strategy's mean PnL, volume and markouts over the seeds with 95 % intervals (docs/edge.md).",
    "A one-run backtest raises V8's interrupt budget for itself (less compiling; docs/performance.md); --interrupt-budget in NODE_OPTIONS wins.",
  ].join('\n'),
  options: {
    config: configFlag('bot config with an optional backtest: section'),
    ...RECORDING_FLAGS,
    report: { type: 'string', arg: 'FILE', description: 'write the self-contained HTML report here' },
    json: { type: 'string', arg: 'FILE', description: 'write the JSON summary here ("-" = stdout)' },
    sweep: { type: 'string', arg: 'FILE', description: 'run a parameter sweep (grid YAML) and print a ranked table (--report: its HTML report)' },
    shard: {
      type: 'string',
      arg: 'I/N',
      description: 'with --sweep: run only the combinations with grid index ≡ I (mod N), I from 0, and write a part file to --json (see sweep merge)',
    },
    'walk-forward': {
      type: 'string',
      arg: 'SPLIT',
      description:
        "with --sweep: choose on the window before SPLIT (NN% of its span, or a time as --from), score the choice on the rest; --json: both parts' figures",
    },
    'fills-csv': {
      type: 'string',
      arg: 'FILE',
      description: 'write one CSV row per fill (time, market, side, price, size, liquidity, fee, mid at fill, markouts)',
    },
    fast: { type: 'boolean', description: 'fast mode: no queue model (always at the front of the queue)' },
    workers: { type: 'number', arg: 'N', description: 'sweep worker threads (default: CPUs)' },
    synthetic: { type: 'boolean', description: 'synthetic markets on virtual time instead of a recording (docs/edge.md)' },
    seed: { type: 'number', arg: 'N', description: 'with --synthetic: the flow seed (default 1)' },
    seeds: { type: 'string', arg: 'A-B', description: 'with --synthetic: run seeds A to B and summarise with 95 % intervals' },
    hours: { type: 'number', arg: 'H', description: 'with --synthetic: virtual hours (default 1)' },
    markets: { type: 'number', arg: 'M', description: 'with --synthetic: markets (default 4)' },
    flow: { type: 'string', arg: 'PRESET', description: 'with --synthetic: benign (default), calibrated or toxic' },
  },
  async run(args) {
    const cfgFile = args.options.config;
    const data = args.options.data;
    if (typeof cfgFile !== 'string' || !cfgFile) throw new BadInputError('--config', 'a config file (-c config/backtest.yaml)', cfgFile);
    // an output that cannot be written is refused now, not after the run
    checkOutputs(args.options);
    if (args.options.synthetic === true) return runSyntheticBacktest(args, cfgFile, { printSummary, printWarnings });
    for (const flag of ['seed', 'seeds', 'hours', 'markets', 'flow'] as const) {
      if (args.options[flag] !== undefined) throw new BadInputError(`--${flag}`, 'to be used with --synthetic', args.options[flag]);
    }
    if (typeof data !== 'string' || !data) throw new BadInputError('--data', 'a recording directory', data);
    const manifest = readManifest(data);
    const startGuess = manifest.files.find((f) => f.events > 0)?.firstLts ?? 0;
    const from = typeof args.options.from === 'string' ? parseTimeFlag(args.options.from, '--from', startGuess) : undefined;
    const to = typeof args.options.to === 'string' ? parseTimeFlag(args.options.to, '--to', startGuess) : undefined;
    const win = { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
    const fast = args.options.fast === true;

    if (typeof args.options.shard === 'string' && typeof args.options.sweep !== 'string')
      throw new BadInputError('--shard', 'to be used with --sweep FILE', args.options.shard);
    if (args.options['walk-forward'] !== undefined) {
      if (typeof args.options.sweep !== 'string') throw new BadInputError('--walk-forward', 'to be used with --sweep FILE', args.options['walk-forward']);
      if (args.options.shard !== undefined)
        throw new BadInputError('--walk-forward', 'a sweep on one machine (not with --shard)', args.options['walk-forward']);
    }
    if (typeof args.options.sweep === 'string') {
      const spec = await loadSweepSpec(args.options.sweep);
      const shard = typeof args.options.shard === 'string' ? parseShard(args.options.shard) : null;
      if (shard && (typeof args.options.json !== 'string' || args.options.json === '-' || !args.options.json))
        throw new BadInputError('--json', 'a part file to write with --shard (e.g. --json part-0.json)', args.options.json);
      const workersOpt = args.options.workers;
      if (workersOpt !== undefined && (typeof workersOpt !== 'number' || !Number.isInteger(workersOpt) || workersOpt < 0 || workersOpt > 256)) {
        throw new BadInputError('--workers', 'an integer from 0 to 256', workersOpt);
      }
      const workers = typeof workersOpt === 'number' ? workersOpt : Math.max(1, availableParallelism());
      await loadBacktestConfig(cfgFile); // fail fast on a bad base config
      const bar = progressBar('sweep');
      const t0 = performance.now();
      // Ctrl-C: no further run starts, the runs under way finish and the table ranks those (exit 130)
      const stop = onCtrlC('finishing the runs under way and ranking the finished ones (Ctrl-C again to quit)');
      const effective = fast ? { ...spec, fast: true } : spec;
      if (typeof args.options['walk-forward'] === 'string') {
        const w = parseSplit(args.options['walk-forward'], data, win, startGuess);
        let wf;
        try {
          wf = await runWalkForward({
            configFile: cfgFile,
            data,
            from: w.from,
            to: w.to,
            split: w.split,
            spec: effective,
            workers,
            signal: stop.signal,
            onProgress: (d, n) => bar.update(d / n, `${d}/${n} runs`),
          });
        } finally {
          stop.dispose();
        }
        bar.done();
        const toStdout = args.options.json === '-';
        const text = formatWalkForward(wf, effective);
        if (!toStdout) process.stdout.write(`${text}(${((performance.now() - t0) / 1000).toFixed(1)} s, ${workers} worker thread(s))\n`);
        if (typeof args.options.json === 'string') {
          const json = walkForwardJson(wf, effective, data);
          if (toStdout) process.stdout.write(json);
          else writeOut(args.options.json, json, 'json');
        }
        if (typeof args.options.report === 'string')
          writeOut(args.options.report, buildSweepHtml(wf.ranked, effective, 'bookmaker walk-forward: the first part, where the choice was made'), 'report');
        if (wf.ranked.length < wf.total || (wf.chosen && !wf.heldOut)) return 130;
        return wf.chosen && wf.heldOut?.summary ? 0 : 1;
      }
      const only = shard ? shardIndices(expandGrid(spec.grid).length, shard) : undefined;
      const total = only ? only.length : expandGrid(spec.grid).length;
      let results;
      try {
        results = await runSweep({
          configFile: cfgFile,
          data,
          ...win,
          spec: effective,
          workers,
          ...(only ? { only } : {}),
          signal: stop.signal,
          onProgress: (d, n) => bar.update(d / n, `${d}/${n} runs`),
        });
      } finally {
        stop.dispose();
      }
      bar.done();
      if (shard) {
        writeOut(args.options.json as string, JSON.stringify(sweepPart(effective, shard, data, win, results), null, 2) + '\n', 'json');
        process.stdout.write(
          `sweep shard ${shard.index}/${shard.count}: ${results.length} of ${expandGrid(spec.grid).length} runs (${((performance.now() - t0) / 1000).toFixed(1)} s) → ${args.options.json}\n`,
        );
        if (results.length < total) return 130;
        return results.some((r) => !r.summary) ? 1 : 0;
      }
      const ranked = rank(results, spec.rankBy, spec.minVolume);
      const partial = results.length < total ? ` — INCOMPLETE: interrupted after ${results.length} of ${total} runs` : '';
      process.stdout.write(
        `sweep: ${results.length} runs over ${workers} worker thread(s), ranked by ${spec.rankBy} (${((performance.now() - t0) / 1000).toFixed(1)} s)${partial}\n`,
      );
      process.stdout.write(formatRanked(ranked, spec.grid));
      if (typeof args.options.json === 'string') {
        const text = sweepJson(ranked);
        if (args.options.json === '-') process.stdout.write(text);
        else writeOut(args.options.json, text, 'json');
      }
      if (typeof args.options.report === 'string') writeOut(args.options.report, buildSweepHtml(ranked, effective), 'report');
      if (results.length < total) return 130;
      return results.some((r) => !r.summary) ? 1 : 0;
    }

    // one run in this process: V8 tiers its code up later (see the module)
    applyOneRunTiering();
    const cfg = await loadBacktestConfig(cfgFile);
    const loaded = loadReplaySource(data, win);
    const dropped = readWarning(loaded.read);
    if (dropped) process.stderr.write(dropped);
    if (loaded.rows.length === 0) {
      const { lts, rows } = loaded.cols;
      const span = rows > 0 ? `${new Date(lts[0]!).toISOString()} → ${new Date(lts[rows - 1]!).toISOString()}` : 'no events';
      throw new BadInputError(
        from !== undefined || to !== undefined ? '--from/--to' : '--data',
        `a window with recorded events (the recording spans ${span})`,
        args.options.from ?? args.options.to ?? data,
      );
    }
    // rank: entries are ranked before the replay (the replay may then start after the look-back), and said at once
    const { source, ranking } = applyRanking(loaded, cfg.bot, cfg.settings);
    if (ranking) process.stderr.write(rankingText(rankingSummary(ranking)));
    const bar = progressBar('backtest');
    const t0 = performance.now();
    // Ctrl-C: finish with the report so far, marked incomplete (exit 130); a second Ctrl-C quits at once.
    const stop = onCtrlC('writing the report so far (Ctrl-C again to quit without it)');
    process.stderr.write(
      `backtest: replaying ${source.rows.length.toLocaleString('en-US')} rows of ${source.cols.markets.length} markets (Ctrl-C stops and writes the report so far)\n`,
    );
    let run;
    try {
      run = await runBacktest({
        source,
        ranking,
        config: cfg.bot,
        settings: cfg.settings,
        fast,
        signal: stop.signal,
        onProgress: (f, at) =>
          bar.update(f, `${new Date(at.at).toISOString().slice(0, 19)}Z · ${at.rows.toLocaleString('en-US')}/${at.totalRows.toLocaleString('en-US')} rows`),
      });
    } finally {
      stop.dispose();
    }
    bar.done();
    const secs = (performance.now() - t0) / 1000;
    const summary = buildSummary(run);
    const toStdout = args.options.json === '-';
    if (!toStdout) printSummary(summary, process.stdout);
    process.stderr.write(
      `replayed ${run.rowsReplayed.toLocaleString('en-US')} rows in ${secs.toFixed(2)} s (${Math.round(run.rowsReplayed / Math.max(secs, 1e-9)).toLocaleString('en-US')} events/s)\n`,
    );
    writeRunOutputs(run, summary, args.options);
    printWarnings(summary, process.stderr);
    return summary.incomplete ? 130 : 0;
  },
};
export default command;
