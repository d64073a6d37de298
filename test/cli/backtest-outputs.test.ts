/**
 * What an operator sees of `bookmaker backtest --synthetic` with a bad output path or a seed range:
 * an output that cannot be written is refused before the run (exit 2, the flag named, no stack);
 * `--seeds --json` says in the file whether every seed asked for ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cliArgs } from '../support/cli.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function cli(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, cliArgs(args), { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const SYN = ['backtest', '-c', 'config/backtest.yaml', '--synthetic', '--hours', '0.002', '--markets', '1'];

test('an output that cannot be written is refused before the run: exit 2, the flag named, no stack', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-bt-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'afile'), 'x');
  for (const [flag, path] of [
    ['--json', join(dir, 'afile', 'seeds.json')],
    ['--fills-csv', dir],
  ] as const) {
    const r = cli([...SYN, '--seed', '1', flag, path]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`^bookmaker backtest: BAD_INPUT: ${flag}: expected a file path`));
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(r.err, /generated and replayed/, 'refused before the run');
  }
});

test('--seeds --json writes whether the run is complete and which seeds were asked for', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-bt-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'seeds.json');
  const r = cli([...SYN, '--seeds', '3-4', '--json', file]);
  assert.equal(r.code, 0, r.err);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(doc.format, 'bookmaker-synthetic-seeds');
  assert.equal(doc.complete, true);
  assert.equal(doc.seedsRequested, '3-4');
  assert.deepEqual(doc.seeds, [3, 4]);
  assert.match(r.out, /^synthetic backtest: 2 seed\(s\) 3-4 /);
});
