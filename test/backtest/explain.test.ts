/**
 * Backtests explain themselves: a run that places no order, or fills nothing, ends with a
 * warning that gives the reasons (on stderr, in the JSON summary and as a banner in the HTML report),
 * and Ctrl-C writes the report so far, marked incomplete. The two cases of the issue: the Kalshi trades
 * import (no books) and `backtest -c config/live.yaml` (oracle-anchored, no oracle in the recording),
 * which both used to end silently with all zeros and exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kalshiRecording, polymarketRecording } from '../bench/fixtures.ts';
import { explainRun, RunDiagnostics, type DiagnosticsCounts } from '../../src/backtest/run-diagnostics.ts';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';
import { bookmaker } from '../support/cli.ts';

const bin = join(process.cwd(), 'bin', 'bookmaker.js');
const out = mkdtempSync(join(tmpdir(), 'bookmaker-explain-'));
process.on('exit', () => rmSync(out, { recursive: true, force: true }));

const cli = (args: string[]) => bookmaker(args);

test('the Kalshi trades import: no order placed, and the warning says the recording has no books', async () => {
  const data = await kalshiRecording();
  const json = join(out, 'kalshi.json');
  const html = join(out, 'kalshi.html');
  const r = await cli(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+24h', '--json', json, '--report', html]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^warning: the backtest placed no order$/m);
  assert.match(r.stderr, /^ {2}- the recording has no order-book rows for the quoted markets \([\d,]+ trades only\)/m);
  assert.match(r.stderr, /^ {2}- the strategy returned nothing on ([\d,]+) of \1 ticks \(100\.0%\); its view then: no book yet [\d,]+$/m);
  const s = JSON.parse(readFileSync(json, 'utf8')) as BacktestSummary;
  assert.equal(s.orders.placed, 0);
  assert.equal(s.diagnostics.quotedBookRows, 0);
  assert.ok(s.diagnostics.quotedTradeRows > 0);
  assert.equal(s.warnings[0], 'the backtest placed no order');
  assert.equal(s.complete, true);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<div class="banner warning" id="warnings"><b>Warning: the backtest placed no order\.<\/b>/);
  assert.match(page, /no order-book rows for the quoted markets/);
});

test('backtest -c config/live.yaml: oracle-anchored places no order, and the warning says its view had no oracle price', async () => {
  const data = await polymarketRecording();
  const r = await cli(['backtest', '-c', 'config/live.yaml', '--data', data, '--to', '+3m', '--json', '-']);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as BacktestSummary;
  assert.equal(s.orders.placed, 0);
  assert.match(r.stderr, /^warning: the backtest placed no order$/m);
  assert.match(r.stderr, /^ {2}- quoted 6 of 6 markets with oracle-anchored: [\d,]+ strategy ticks$/m);
  const m = /the strategy returned nothing on ([\d,]+) of ([\d,]+) ticks .*; its view then: (.*)$/m.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.match(m[3]!, /^two-sided book, no oracle price [\d,]+/, 'the first reason (the most frequent) is the missing oracle');
  const because = s.diagnostics.returnedNothingBecause;
  assert.equal(
    Object.values(because).reduce((a, b) => a + b, 0),
    s.diagnostics.returnedNothing,
  );
  assert.ok(because['two-sided book, no oracle price']! > s.diagnostics.returnedNothing / 2);
  assert.deepEqual(s.warnings.slice(0, 1), ['the backtest placed no order']);
});

test('a run that quotes and fills has no warnings', async () => {
  const data = await polymarketRecording();
  const r = await cli(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+2m', '--json', '-']);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as BacktestSummary;
  assert.ok(s.orders.placed > 0 && s.fills > 0);
  assert.deepEqual(s.warnings, []);
  assert.doesNotMatch(r.stderr, /warning/);
  assert.equal(s.diagnostics.ticks, s.kernelTicks);
});

const counts = (over: Partial<DiagnosticsCounts> = {}): DiagnosticsCounts => ({
  ...new RunDiagnostics().counts,
  ticks: 100,
  quotingTicks: 100,
  ...over,
});
const base = {
  strategies: ['bands'],
  marketsInRecording: 6,
  marketsQuoted: 6,
  bookRows: 5000,
  tradeRows: 300,
  ordersPlaced: 40,
  fills: 0,
  twoSidedUptime: 0.9,
  queueModel: 'level',
  killed: null,
};

test('orders placed, none filled: the warning gives the trades, uptime and the queue model', () => {
  const w = explainRun({ ...base, counts: counts({ denials: { FAR_FROM_FAIR: 12, POSITION_LIMIT: 3 }, outOfRange: 12 }) });
  assert.equal(w[0], 'the backtest placed 40 orders and none was filled');
  assert.ok(w.includes('quotes denied by the risk gate, by reason: FAR_FROM_FAIR 12, POSITION_LIMIT 3'));
  assert.ok(w.some((x) => x.startsWith('12 quotes had prices outside the quotable range')));
  assert.ok(w.includes('the quoted markets recorded 300 trades; quotes rested on both sides 90.0% of the time; queue model level'));
  assert.ok(w.some((x) => /try --fast/.test(x)));
  assert.deepEqual(explainRun({ ...base, fills: 1, counts: counts() }), [], 'filled: no warning');
});

test('no order: a config that quotes none of the markets, strategy errors, and a kill switch are named', () => {
  assert.deepEqual(explainRun({ ...base, ordersPlaced: 0, marketsQuoted: 0, counts: counts({ ticks: 0 }) }), [
    'the backtest placed no order',
    "the config quotes none of the recording's 6 markets: check its markets: section against the recording's market ids and slugs",
  ]);
  const w = explainRun({
    ...base,
    ordersPlaced: 0,
    killed: 'KILL_DRAWDOWN',
    counts: counts({ strategyErrors: 100, firstStrategyError: 'boom', quotingTicks: 0 }),
  });
  assert.ok(w.includes('the kill switch fired: KILL_DRAWDOWN'));
  assert.ok(w.includes('the strategy failed on 100 ticks: boom'));
});

test('Ctrl-C: the report so far is written, marked incomplete (JSON field, HTML banner), exit 130', { timeout: 180_000 }, async () => {
  const data = await kalshiRecording(); // the whole 55 days: a long replay (about a minute and a half)
  const json = join(out, 'int.json');
  const html = join(out, 'int.html');
  const child = spawn(process.execPath, [bin, 'backtest', '-c', 'config/backtest.yaml', '--data', data, '--json', json, '--report', html], {
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // interrupt once the replay has started (its first line names Ctrl-C)
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (/Ctrl-C stops and writes the report so far/.test(stderr)) resolve();
    });
    child.once('exit', () => resolve());
  });
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, stderr);
  assert.match(stderr, /interrupted: writing the report so far/);
  assert.match(stdout, /INCOMPLETE {4}interrupted after [\d,]+ of [\d,]+ rows/);
  const s = JSON.parse(readFileSync(json, 'utf8')) as BacktestSummary;
  assert.equal(s.complete, false);
  assert.equal(s.incomplete!.reason, 'interrupted');
  assert.ok(s.incomplete!.rowsReplayed < s.incomplete!.rowsTotal, `${s.incomplete!.rowsReplayed} < ${s.incomplete!.rowsTotal}`);
  assert.equal(s.recording.rows, s.incomplete!.rowsReplayed);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<title>bookmaker backtest \(incomplete\)<\/title>/);
  assert.match(page, /<div class="banner incomplete" id="incomplete"><b>Incomplete run:<\/b> interrupted at \S+ after [\d,]+ of [\d,]+ rows/);
});
