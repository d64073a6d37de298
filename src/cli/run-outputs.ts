/**
 * The files a backtest run writes on request, the same for a replay and a synthetic run:
 * `--json FILE|-` (the summary), `--report FILE` (HTML), `--fills-csv FILE`. With `--json -` stdout
 * holds the JSON alone. Each is written whole or not at all (./write-out.ts).
 */
import { fillsCsv } from '../backtest/fills-csv.ts';
import { buildHtml } from '../backtest/report-html.ts';
import { summaryJson, type BacktestSummary } from '../backtest/report-summary.ts';
import type { BacktestRun } from '../backtest/run-backtest.ts';
import type { ParsedArgs } from './args.ts';
import { writeOut } from './write-out.ts';

export { checkOutputs, writeOut } from './write-out.ts';

export function writeRunOutputs(run: BacktestRun, summary: BacktestSummary, o: ParsedArgs['options']): void {
  const toStdout = o.json === '-';
  if (typeof o.json === 'string') {
    if (toStdout) process.stdout.write(summaryJson(summary));
    else writeOut(o.json, summaryJson(summary), 'json');
  }
  if (typeof o.report === 'string') {
    writeOut(o.report, buildHtml(run, summary), 'report');
    if (!toStdout) process.stdout.write(`report: ${o.report}\n`);
  }
  if (typeof o['fills-csv'] === 'string') {
    writeOut(o['fills-csv'], fillsCsv(run), 'fills-csv');
    if (!toStdout) process.stdout.write(`fills: ${o['fills-csv']} (${run.collector.fills.length} rows)\n`);
  }
}
