/** `bookmaker import polymarket|kalshi|binance PATH --out DIR`: convert a public data set to a recording. */
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { IMPORT_SOURCES as SOURCES, importInto, type ImportSource } from '../../backtest/importers/import-into.ts';

const command: CommandSpec = {
  name: 'import',
  summary: 'convert a public data set to the recording format',
  usage: 'bookmaker import polymarket|kalshi|binance PATH --out DIR [--force | --append] [--no-columns] [--json]',
  description: [
    'polymarket  data/polymarket-tickscope/events.jsonl.gz (price_change deltas + trades, YES/NO de-duplicated)',
    'kalshi      data/kalshi-kxinx-trades/trades.csv.gz (trade tape)',
    'binance     data/binance-hftbacktest (folder or one .gz: snapshot + diffs + trades + bookTicker)',
    'Writes DIR/manifest.json, DIR/events-NNNNNN.jsonl.gz and, unless --no-columns, DIR/book.cols for fast replay.',
    'A DIR that is not empty is refused (importing twice would replay every event twice): --force replaces the recording in it',
    '(built beside it first, so a failed import keeps the old one; a folder with other files is refused), --append (kalshi only:',
    'a trade tape can be joined) adds the events the recording does not hold yet.',
  ].join('\n'),
  positionals: ['SOURCE', 'PATH'],
  options: {
    out: { type: 'string', short: 'o', arg: 'DIR', description: 'output recording directory' },
    columns: { type: 'boolean', default: true, description: 'also write the compact binary columns (book.cols)' },
    json: { type: 'boolean', description: 'print the import statistics as JSON' },
    force: { type: 'boolean', description: 'replace the recording already in DIR' },
    append: { type: 'boolean', description: 'kalshi: add to the recording in DIR only the events it does not hold yet' },
  },
  async run(args) {
    const [source, path] = args.positionals;
    if (!source || !(SOURCES as readonly string[]).includes(source)) throw new BadInputError('SOURCE', `one of ${SOURCES.join(', ')}`, source);
    if (!path) throw new BadInputError('PATH', 'the data file or folder to import', path);
    const out = args.options.out;
    if (typeof out !== 'string' || !out) throw new BadInputError('--out', 'an output directory', out);
    if (args.options.force && args.options.append) throw new BadInputError('--force/--append', 'one of them, not both', 'both');
    const mode = args.options.force ? 'force' : args.options.append ? 'append' : 'new';
    const t0 = performance.now();
    const res = await importInto(source as ImportSource, path, out, { mode, columns: args.options.columns !== false });
    const ms = performance.now() - t0;
    if (args.options.json)
      process.stdout.write(
        JSON.stringify({ source, out, mode: res.mode, markets: res.markets.length, events: res.events, stats: res.stats, ms: Math.round(ms) }) + '\n',
      );
    else {
      const how =
        res.mode === 'force'
          ? ' (replaced)'
          : res.mode === 'append'
            ? ` (appended ${res.events - res.previousEvents!}, ${res.duplicatesSkipped} already held)`
            : '';
      process.stdout.write(`imported ${source}: ${res.events} events, ${res.markets.length} markets → ${out}${how} (${(ms / 1000).toFixed(1)} s)\n`);
      for (const [k, v] of Object.entries(res.stats)) process.stdout.write(`  ${k.padEnd(22)}${v}\n`);
    }
    return 0;
  },
};
export default command;
