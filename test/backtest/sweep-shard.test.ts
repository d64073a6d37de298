/**
 * Sweeps beyond one machine: `backtest --sweep FILE --shard I/N` on each "machine" and `bookmaker
 * sweep merge PARTS…` give byte-for-byte the JSON of the one-machine sweep of the same grid (real
 * CLI processes on a window of the Polymarket capture), plus the sweep HTML report with its
 * heatmap; and the merge refuses parts that are missing, foreign or inconsistent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { parseShard, shardIndices, mergeParts, sweepPart, type SweepPart } from '../../src/backtest/sweep-shard.ts';
import { parseSweepSpec, type SweepResult } from '../../src/backtest/sweep-grid.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { polymarketRecording } from '../bench/fixtures.ts';
import { cliArgs } from '../support/cli.ts';

const run = promisify(execFile);
const cli = (args: string[]) => run(process.execPath, cliArgs(args), { maxBuffer: 64 << 20 });

test('shards 0/2 and 1/2 merged equal the one-machine sweep (JSON bytes), with an HTML report and heatmap', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const from = src.cols.lts[src.rows[0]!]!;
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-shard-'));
  try {
    const sweep = join(dir, 'sweep.yaml');
    writeFileSync(
      sweep,
      'grid:\n  defaults.strategy.params.gamma: [0.1, 1]\n  defaults.strategy.params.minSpread: [0.02, 0.04, 0.06]\nrankBy: pnl\nfast: true\n',
    );
    const common = [
      'backtest',
      '-c',
      'config/backtest.yaml',
      '--data',
      data,
      '--from',
      String(from),
      '--to',
      String(from + 90_000),
      '--sweep',
      sweep,
      '--workers',
      '0',
    ];
    const [whole, p0, p1] = await Promise.all([
      cli([...common, '--json', join(dir, 'whole.json'), '--report', join(dir, 'whole.html')]),
      cli([...common, '--shard', '0/2', '--json', join(dir, 'part-0.json')]),
      cli([...common, '--shard', '1/2', '--json', join(dir, 'part-1.json')]),
    ]);
    assert.match(p0.stdout, /shard 0\/2: 3 of 6 runs/);
    assert.match(p1.stdout, /shard 1\/2: 3 of 6 runs/);
    const merged = await cli([
      'sweep',
      'merge',
      join(dir, 'part-1.json'),
      join(dir, 'part-0.json'),
      '--json',
      join(dir, 'merged.json'),
      '--report',
      join(dir, 'merged.html'),
    ]);
    const a = readFileSync(join(dir, 'whole.json'), 'utf8');
    const b = readFileSync(join(dir, 'merged.json'), 'utf8');
    assert.equal(JSON.parse(a).length, 6);
    assert.equal(b, a, 'merged JSON = one-machine JSON');
    // the ranked table printed by both is the same too
    const table = (out: string) =>
      out
        .split('\n')
        .filter((l) => /^\s*(#|\d+)\s/.test(l))
        .join('\n');
    assert.equal(table(merged.stdout), table(whole.stdout));
    const html = readFileSync(join(dir, 'merged.html'), 'utf8');
    assert.equal(html, readFileSync(join(dir, 'whole.html'), 'utf8'));
    assert.match(html, /<svg class="chart heatmap"/);
    assert.equal(html.match(/<rect class="cell"/g)?.length, 6);
    assert.equal(html.match(/<tr><td>\d+<\/td>/g)?.length, 6, 'six ranked rows');
    // a missing part is refused, naming what is missing
    await assert.rejects(
      cli(['sweep', 'merge', join(dir, 'part-0.json')]),
      (e: { stderr: string; code: number }) => /3 missing: indices 1, 3, 5 \(shards 1\/2\)/.test(e.stderr) && e.code !== 0,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('shard arithmetic and merge checks', () => {
  assert.deepEqual(parseShard('2/5'), { index: 2, count: 5 });
  for (const bad of ['5/5', '1/0', 'a/b', '-1/3', '1/3/4']) assert.throws(() => parseShard(bad), BadInputError, bad);
  assert.deepEqual(shardIndices(7, { index: 1, count: 3 }), [1, 4]);
  // every index in exactly one shard
  const all = [0, 1, 2].flatMap((i) => shardIndices(10, { index: i, count: 3 })).sort((x, y) => x - y);
  assert.deepEqual(all, [...Array(10).keys()]);
  const spec = parseSweepSpec({ grid: { 'a.x': [1, 2], 'b.y': [3] } }, 't');
  const res = (i: number, x: number): SweepResult => ({ index: i, combo: { 'a.x': x, 'b.y': 3 }, summary: null, error: `e${i}` });
  const p0 = sweepPart(spec, { index: 0, count: 2 }, 'd', {}, [res(0, 1)]);
  const p1 = sweepPart(spec, { index: 1, count: 2 }, 'd', {}, [res(1, 2)]);
  assert.deepEqual(
    mergeParts([
      { file: 'a', part: p0 },
      { file: 'b', part: p1 },
    ]).results.map((r) => r.index),
    [0, 1],
  );
  // the same part twice is fine; a foreign part (another window) or a wrong combination is not
  assert.equal(
    mergeParts([
      { file: 'a', part: p0 },
      { file: 'a2', part: p0 },
      { file: 'b', part: p1 },
    ]).results.length,
    2,
  );
  const foreign: SweepPart = { ...p1, window: { from: 5 } };
  assert.throws(
    () =>
      mergeParts([
        { file: 'a', part: p0 },
        { file: 'b', part: foreign },
      ]),
    /b: expected a part of the same sweep as a/,
  );
  const wrong: SweepPart = { ...p1, results: [res(1, 7)] };
  assert.throws(
    () =>
      mergeParts([
        { file: 'a', part: p0 },
        { file: 'b', part: wrong },
      ]),
    /combination at index 1/,
  );
  const clash: SweepPart = { ...p0, results: [{ ...res(0, 1), error: 'other' }] };
  assert.throws(
    () =>
      mergeParts([
        { file: 'a', part: p0 },
        { file: 'c', part: clash },
        { file: 'b', part: p1 },
      ]),
    /index 0 differs from a/,
  );
});
