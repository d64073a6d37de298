/** `bookmaker import polymarket|kalshi|binance PATH --out DIR`: convert a public data set to a recording. */
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { importPolymarket } from '../../backtest/importers/polymarket.ts';
import { importKalshi } from '../../backtest/importers/kalshi.ts';
import { importBinance } from '../../backtest/importers/binance.ts';
import { readEvents, readManifest } from '../../backtest/recording/reader.ts';
import { toColumns, writeColumns } from '../../backtest/recording/columns.ts';

const SOURCES = ['polymarket', 'kalshi', 'binance'] as const;

const command: CommandSpec = {
  name: 'import',
  summary: 'convert a public data set to the recording format',
  usage: 'bookmaker import polymarket|kalshi|binance PATH --out DIR [--no-columns] [--json]',
  description: [
    'polymarket  data/polymarket-tickscope/events.jsonl.gz (price_change deltas + trades, YES/NO de-duplicated)',
    'kalshi      data/kalshi-kxinx-trades/trades.csv.gz (trade tape)',
    'binance     data/binance-hftbacktest (folder or one .gz: snapshot + diffs + trades + bookTicker)',
    'Writes DIR/manifest.json, DIR/events-NNNNNN.jsonl.gz and, unless --no-columns, DIR/book.cols for fast replay.',
  ].join('\n'),
  positionals: ['SOURCE', 'PATH'],
  options: {
    out: { type: 'string', short: 'o', arg: 'DIR', description: 'output recording directory' },
    columns: { type: 'boolean', default: true, description: 'also write the compact binary columns (book.cols)' },
    json: { type: 'boolean', description: 'print the import statistics as JSON' },
  },
  async run(args) {
    const [source, path] = args.positionals;
    if (!source || !(SOURCES as readonly string[]).includes(source)) throw new BadInputError('SOURCE', `one of ${SOURCES.join(', ')}`, source);
    if (!path) throw new BadInputError('PATH', 'the data file or folder to import', path);
    const out = args.options.out;
    if (typeof out !== 'string' || !out) throw new BadInputError('--out', 'an output directory', out);
    const t0 = performance.now();
    const importer = source === 'polymarket' ? importPolymarket : source === 'kalshi' ? importKalshi : importBinance;
    const res = await importer(path, out);
    if (args.options.columns !== false) {
      const manifest = readManifest(out);
      writeColumns(out, toColumns(readEvents(out), manifest.markets.map((m) => m.id)));
    }
    const ms = performance.now() - t0;
    if (args.options.json) process.stdout.write(JSON.stringify({ source, out, markets: res.markets.length, events: res.events, stats: res.stats, ms: Math.round(ms) }) + '\n');
    else {
      process.stdout.write(`imported ${source}: ${res.events} events, ${res.markets.length} markets → ${out} (${(ms / 1000).toFixed(1)} s)\n`);
      for (const [k, v] of Object.entries(res.stats)) process.stdout.write(`  ${k.padEnd(22)}${v}\n`);
    }
    return 0;
  },
};
export default command;
