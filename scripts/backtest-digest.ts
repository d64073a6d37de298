/**
 * Digests of the capture backtest's outputs, for speed work that must change no result:
 * `node --import tsx scripts/backtest-digest.ts [TREE]` runs TREE's CLI (default: this checkout) on the
 * Polymarket capture with TREE's config/backtest.yaml and prints the SHA-256 of the summary JSON, the HTML
 * report and the fills CSV, plus fills and PnL. Run it before and after a change (or on two trees):
 * the three digests must be equal.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { polymarketRecording } from '../test/bench/fixtures.ts';

const tree = resolve(process.argv[2] ?? '.');
const data = await polymarketRecording();
const out = mkdtempSync(join(tmpdir(), 'backtest-digest-'));
try {
  const files = { json: join(out, 'summary.json'), report: join(out, 'report.html'), fills: join(out, 'fills.csv') };
  execFileSync(
    process.execPath,
    [
      join(tree, 'bin/bookmaker.js'),
      'backtest',
      '-c',
      join(tree, 'config/backtest.yaml'),
      '--data',
      data,
      '--json',
      files.json,
      '--report',
      files.report,
      '--fills-csv',
      files.fills,
    ],
    {
      cwd: tree,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const digest = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
  const s = JSON.parse(readFileSync(files.json, 'utf8')) as { fills?: number; pnl?: { total?: number } };
  process.stdout.write(`tree ${tree}\nfills ${s.fills} pnl ${s.pnl?.total}\n`);
  for (const [name, f] of Object.entries(files)) process.stdout.write(`${name} ${digest(f)}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
