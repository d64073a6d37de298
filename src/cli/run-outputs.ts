/**
 * The files a backtest run writes on request, the same for a replay and a synthetic run:
 * `--json FILE|-` (the summary), `--report FILE` (HTML), `--fills-csv FILE`. With `--json -` stdout
 * holds the JSON alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fillsCsv } from '../backtest/fills-csv.ts';
import { buildHtml } from '../backtest/report-html.ts';
import { summaryJson, type BacktestSummary } from '../backtest/report-summary.ts';
import type { BacktestRun } from '../backtest/run-backtest.ts';
import type { ParsedArgs } from './args.ts';

/** Write `text` to `path`, making its folder. */
export function writeOut(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function writeRunOutputs(run: BacktestRun, summary: BacktestSummary, o: ParsedArgs['options']): void {
  const toStdout = o.json === '-';
  if (typeof o.json === 'string') {
    if (toStdout) process.stdout.write(summaryJson(summary));
    else writeOut(o.json, summaryJson(summary));
  }
  if (typeof o.report === 'string') {
    writeOut(o.report, buildHtml(run, summary));
    if (!toStdout) process.stdout.write(`report: ${o.report}\n`);
  }
  if (typeof o['fills-csv'] === 'string') {
    writeOut(o['fills-csv'], fillsCsv(run));
    if (!toStdout) process.stdout.write(`fills: ${o['fills-csv']} (${run.collector.fills.length} rows)\n`);
  }
}
