/**
 * `bookmaker calibrate -c FILE --data DIR [--from T --to T] [--json FILE|-]`: fit the fill
 * intensity λ(δ) = A·e^(−kδ) of the GLFT strategy (strategies/glft) to a recording's trades and books
 * (src/backtest/calibrate-intensity.ts) and print the fit per market and pooled, with standard
 * errors, R² and the relative error of the fitted λ, then the `A` and `k` to paste into the config.
 */
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { loadBacktestConfig } from '../../backtest/backtest-config.ts';
import { calibrateIntensity, type IntensityFit } from '../../backtest/calibrate-intensity.ts';
import { loadReplaySource, parseTimeFlag, readWarning } from '../../backtest/replay-source.ts';
import { readManifest } from '../../backtest/recording/reader.ts';
import { configFlag, RECORDING_FLAGS } from '../shared-flags.ts';
import { checkOutputs, writeOut } from '../write-out.ts';

const g = (v: number, d = 4) => (Number.isFinite(v) ? v.toPrecision(d) : '–');

function line(f: IntensityFit): string {
  return `  ${f.market.slice(0, 40).padEnd(40)} ${String(f.trades).padStart(6)}  A ${g(f.A)} ± ${g(f.seA, 2)} /s   k ${g(f.k)} ± ${g(f.seK, 2)} /tick   R² ${f.r2.toFixed(3)}   λ error ${(f.rmsRelError * 100).toFixed(1)} %   (${f.points.length} depths)`;
}

const command: CommandSpec = {
  name: 'calibrate',
  summary: 'fit the GLFT fill intensity (A, k) to a recording',
  usage: 'bookmaker calibrate -c FILE --data DIR [--from T --to T] [--min-trades N] [--json FILE|-]',
  description: [
    'Measures how often trades reach δ ticks from the mid, λ(δ) = A·exp(−k·δ) per second, and fits A and k',
    '(least squares of ln λ on δ), per market and pooled; prints the standard errors, R² and the relative error',
    'of the fitted λ, and the params for strategies/glft. Example (the Polymarket capture, imported first):',
    '  bookmaker import polymarket data/polymarket-tickscope/events.jsonl.gz --out recordings/polymarket',
    '  bookmaker calibrate -c config/strategies/glft.yaml --data recordings/polymarket',
  ].join('\n'),
  options: {
    config: configFlag('bot config (checked; its backtest: section is not needed)'),
    ...RECORDING_FLAGS,
    'min-trades': { type: 'number', arg: 'N', description: 'trades needed at a depth for it to enter the fit (default 5)' },
    json: { type: 'string', arg: 'FILE', description: 'write the fit as JSON ("-" = stdout)' },
  },
  async run(args) {
    const cfgFile = args.options.config;
    const data = args.options.data;
    if (typeof cfgFile !== 'string' || !cfgFile) throw new BadInputError('--config', 'a config file (-c config/strategies/glft.yaml)', cfgFile);
    if (typeof data !== 'string' || !data) throw new BadInputError('--data', 'a recording directory', data);
    await loadBacktestConfig(cfgFile);
    checkOutputs(args.options, ['json']);
    const minTrades = args.options['min-trades'] ?? 5;
    if (typeof minTrades !== 'number' || !Number.isInteger(minTrades) || minTrades < 2 || minTrades > 1e6)
      throw new BadInputError('--min-trades', 'an integer from 2 to 1000000', minTrades);
    const manifest = readManifest(data);
    const startGuess = manifest.files.find((f) => f.events > 0)?.firstLts ?? 0;
    const from = typeof args.options.from === 'string' ? parseTimeFlag(args.options.from, '--from', startGuess) : undefined;
    const to = typeof args.options.to === 'string' ? parseTimeFlag(args.options.to, '--to', startGuess) : undefined;
    const source = loadReplaySource(data, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
    const dropped = readWarning(source.read);
    if (dropped) process.stderr.write(dropped);
    const r = calibrateIntensity(source, minTrades);
    const json = args.options.json;
    if (json === '-') {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    } else {
      const out = [
        `calibrate ${manifest.source}: fill intensity λ(δ) = A·exp(−k·δ), δ in ticks from the mid`,
        `  ${'market'.padEnd(40)} ${'trades'.padStart(6)}`,
      ];
      for (const f of r.markets) out.push(line(f));
      if (r.pooled) {
        out.push(line(r.pooled));
        out.push('', 'strategies/glft params (pooled fit):', `  A: ${g(r.pooled.A)}`, `  k: ${g(r.pooled.k)}`);
      } else out.push('', `no fit: fewer than ${minTrades} trades with a two-sided book at two depths`);
      process.stdout.write(out.join('\n') + '\n');
      if (typeof json === 'string') writeOut(json, JSON.stringify(r, null, 2) + '\n', 'json');
    }
    return r.pooled ? 0 : 1;
  },
};
export default command;
