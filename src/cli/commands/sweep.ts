/**
 * `bookmaker sweep merge PARTS… [--json out.json] [--report out.html]`: rank the part files of a
 * sweep run in shards (`backtest --sweep FILE --shard I/N --json part-I.json`, e.g. by the Indexed
 * Job in deploy/kubernetes/sweep-job.yaml) as one sweep. The ranked table, the JSON and the HTML
 * report are the ones the one-machine sweep of the same grid writes.
 */
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { formatRanked, rank } from '../../backtest/sweep-grid.ts';
import { buildSweepHtml } from '../../backtest/sweep-report.ts';
import { mergeParts, readPart, sweepJson } from '../../backtest/sweep-shard.ts';
import { checkOutputs, writeOut } from '../write-out.ts';

const command: CommandSpec = {
  name: 'sweep',
  summary: 'merge the shards of a parameter sweep run on several machines',
  usage: 'bookmaker sweep merge PARTS... [--json out.json] [--report out.html]',
  description: [
    'Each machine (or pod of an Indexed Job) runs one slice of the grid:',
    '  bookmaker backtest -c config/backtest.yaml --data DIR --sweep config/sweep.example.yaml --shard 0/4 --json parts/part-0.json',
    'then one place ranks them all, exactly as a one-machine sweep of the grid would:',
    '  bookmaker sweep merge parts/part-*.json --json out/sweep.json --report out/sweep.html',
    'The parts must come from one sweep (same grid, rankBy, mode, data and window) and cover every combination.',
  ].join('\n'),
  positionals: ['merge', 'PARTS...'],
  options: {
    json: { type: 'string', arg: 'FILE', description: 'write the ranked results as JSON ("-" = stdout), the same form as backtest --sweep --json' },
    report: { type: 'string', arg: 'FILE', description: 'write the sweep HTML report (ranked table; heatmap for two-parameter grids)' },
  },
  async run(args) {
    const [sub, ...files] = args.positionals;
    if (sub !== 'merge') throw new BadInputError('subcommand', 'merge', sub);
    if (files.length === 0) throw new BadInputError('PARTS', 'one or more part files written by backtest --sweep … --shard I/N --json FILE', '');
    checkOutputs(args.options, ['json', 'report']);
    const merged = mergeParts(files.map((file) => ({ file, part: readPart(file) })));
    const ranked = rank(merged.results, merged.spec.rankBy, merged.spec.minVolume);
    const toStdout = args.options.json === '-';
    if (!toStdout) {
      process.stdout.write(`sweep: ${ranked.length} runs merged from ${files.length} part(s), ranked by ${merged.spec.rankBy}\n`);
      process.stdout.write(formatRanked(ranked, merged.spec.grid));
    }
    if (typeof args.options.json === 'string') {
      if (toStdout) process.stdout.write(sweepJson(ranked));
      else writeOut(args.options.json, sweepJson(ranked), 'json');
    }
    if (typeof args.options.report === 'string') writeOut(args.options.report, buildSweepHtml(ranked, merged.spec), 'report');
    return ranked.some((r) => !r.summary) ? 1 : 0;
  },
};
export default command;
