/** `bookmaker backtest` and `bookmaker record` through the CLI binary: outputs, windows, and flag errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polymarketRecording } from '../bench/fixtures.ts';
import { readManifest } from '../../src/backtest/recording/reader.ts';
import { bookmaker } from '../support/cli.ts';

const cli = (args: string[]) => bookmaker(args, { timeoutMs: 60_000 });

test('backtest a 2-minute window: summary on stdout, JSON and HTML files written; --from and --fast', async () => {
  const data = await polymarketRecording();
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-btcli-'));
  try {
    const r = await cli([
      'backtest',
      '-c',
      'config/backtest.yaml',
      '--data',
      data,
      '--to',
      '+2m',
      '--json',
      join(out, 's.json'),
      '--report',
      join(out, 'r.html'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^backtest polymarket-tickscope: \d+ rows, 6 markets/);
    assert.match(r.stdout, /PnL\s+-?\d+\.\d\d USDC/);
    assert.match(r.stderr, /events\/s/);
    assert.doesNotMatch(r.stderr, /\[#*\.*\]/, 'no progress bar when stderr is not a TTY');
    const s = JSON.parse(readFileSync(join(out, 's.json'), 'utf8'));
    assert.equal(s.format, 'bookmaker-backtest-summary');
    assert.ok(s.recording.seconds <= 120, `window respected (${s.recording.seconds} s)`);
    assert.ok(existsSync(join(out, 'r.html')));
    const j = await cli(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+2m', '--json', '-']);
    assert.equal(j.code, 0);
    assert.deepEqual(JSON.parse(j.stdout), s, '--json - prints the same summary');
    // --from as an ISO time and --fast: the window starts there and no queue model runs
    const fromIso = new Date(Date.parse(s.recording.from) + 60_000).toISOString();
    const f = await cli(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--from', fromIso, '--to', '+2m', '--fast', '--json', '-']);
    assert.equal(f.code, 0, f.stderr);
    const fs = JSON.parse(f.stdout);
    assert.equal(fs.settings.mode, 'fast');
    assert.equal(fs.settings.queueModel, 'none');
    assert.equal(s.settings.mode, 'full', 'without --fast the queue model runs');
    assert.ok(Date.parse(fs.recording.from) >= Date.parse(fromIso), `starts at --from (${fs.recording.from})`);
    assert.ok(fs.recording.seconds <= 60, `window ${fs.recording.seconds} s`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('bad flags and inputs are named errors with exit code 2', async () => {
  const data = await polymarketRecording();
  const cases: [string[], RegExp][] = [
    [['backtest', '--data', data], /--config/],
    [['backtest', '-c', 'config/backtest.yaml'], /--data/],
    [['backtest', '-c', 'config/backtest.yaml', '--data', '/nonexistent-dir'], /--data: expected a recording directory/],
    [['backtest', '-c', 'config/backtest.yaml', '--data', data, '--from', 'yesterday-ish'], /--from: expected an ISO time/],
    [['backtest', '-c', 'config/backtest.yaml', '--data', data, '--from', '+5m', '--to', '+1m'], /--from: expected a time before --to/],
    [['backtest', '-c', 'config/backtest.yaml', '--data', data, '--sweep', '/nonexistent.yaml'], /cannot read the sweep file/],
    [
      ['backtest', '-c', 'config/backtest.yaml', '--data', data, '--from', '+2h'],
      /--from\/--to: expected a window with recorded events \(the recording spans 2026-06-07T01:30/,
    ],
    [['record', '-c', 'config/local.yaml'], /--out/],
  ];
  for (const [args, re] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')} → ${r.code} ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('bookmaker record on the embedded local exchange writes a readable recording', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-reccli-'));
  try {
    const r = await cli(['record', '-c', 'config/local.yaml', '--out', out, '--duration', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /recorded \d+ book events/);
    const m = readManifest(out);
    assert.equal(m.markets.length, 4);
    assert.ok(existsSync(join(out, 'book.cols')));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
