/**
 * The flow fit's search (scripts/flow-calibrate.ts) over many seeds: the seeds shared out among child
 * processes give the same figures as one process, `--check` scores the shipped fit and the candidate
 * side by side, the children are gone when it ends, and bad arguments are refused with a message.
 * Tiny runs (0.05 h × 2 markets a seed, no search): what is checked is the plumbing, not the fit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const run = (...args: string[]) =>
  // a guard: a run that hangs is killed (its children leave when their parent's channel closes)
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/flow-calibrate.ts', ...args], { encoding: 'utf8', timeout: 240_000 });
const TINY = ['--hours', '0.05', '--markets', '2', '--steps', 'none'];
/** the output without its cost line (wall time and CPU differ from run to run) */
const figures = (out: string) =>
  out
    .split('\n')
    .filter((l) => !l.startsWith('// cost:'))
    .join('\n');

test('many seeds in two worker processes give the figures of one, and --check puts the shipped fit beside the candidate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flow-calibrate-'));
  try {
    const start = join(dir, 'start.json');
    writeFileSync(start, JSON.stringify({ informedRatePerSec: 0.5 }));
    const two = run('--seeds', '9101-9102,9104', '--workers', '2', '--check', '9201', '--start', start, ...TINY);
    assert.equal(two.status, 0, two.stderr);
    const one = run('--seeds', '9101-9102,9104', '--workers', '1', '--check', '9201', '--start', start, ...TINY);
    assert.equal(one.status, 0, one.stderr);
    assert.equal(figures(two.stdout), figures(one.stdout));
    assert.match(two.stdout, /"informedRatePerSec": 0\.5/, "the start's settings over CALIBRATED_FIT");
    assert.match(two.stdout, /Seeds 9101-9102,9104 \(the search's\)/);
    assert.match(two.stdout, /Check seeds 9201\n\n\| statistic \| shipped z \| candidate z \|/);
    assert.match(two.stdout, /\/\/ cost: 1 candidates, [\d.]+ CPU-s and [\d.]+ s wall each \(3 seeds × 0\.05 h × 2 markets, 2 worker\(s\)\)/);
    assert.match(two.stderr, /^start \(.*start\.json\): loss [\d.]+: rate /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad arguments are refused with a message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flow-calibrate-'));
  try {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ noSuchSetting: 1 }));
    for (const [args, said] of [
      [['--seeds', '9102-9101'], /--seeds: A-B ranges joined by commas, got 9102-9101/],
      [['--seeds', '9101', '--workers', '0'], /--workers: 1 to 8/],
      [['--seeds', '9101', '--steps', '1,2'], /--steps: factors above 1/],
      [['--seeds', '9101', '--start', bad], /--start: noSuchSetting is not a finite CalibratedFit setting/],
    ] as const) {
      const r = run(...args, '--hours', '0.05');
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, said);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
