/**
 * scripts/edge-fit-seeds.ts's `--fit FILE`: a candidate's settings over the shipped CALIBRATED_FIT (as
 * scripts/flow-calibrate.ts's `--out` writes them), so a candidate is measured seed by seed as the
 * shipped fit is. Tiny runs (one seed, 0.05 h × 2 markets): the plumbing, not the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/edge-fit-seeds.ts', '--groups', '9101', '--hours', '0.05', '--markets', '2', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
/** the seed's row of the table */
const row = (out: string) => out.split('\n').find((l) => l.startsWith('| 9101 | 9101 |'));

test("--fit measures a candidate's settings over CALIBRATED_FIT; an empty one is the shipped fit; a bad key is refused", () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-fit-seeds-'));
  try {
    const write = (name: string, v: object) => {
      writeFileSync(join(dir, name), JSON.stringify(v));
      return join(dir, name);
    };
    const shipped = run('--via', 'fit');
    assert.equal(shipped.status, 0, shipped.stderr);
    const same = run('--fit', write('empty.json', {}));
    assert.equal(same.status, 0, same.stderr);
    assert.match(same.stdout, /^calibrated via fit \(.*empty\.json\)/);
    assert.equal(row(same.stdout), row(shipped.stdout));
    const other = run('--fit', write('cand.json', { noiseRatePerSec: 0.05, informedRatePerSec: 0.6 }));
    assert.equal(other.status, 0, other.stderr);
    assert.ok(row(other.stdout) && row(other.stdout) !== row(shipped.stdout), 'other settings, other flow');
    const bad = run('--fit', write('bad.json', { noSuchSetting: 1 }));
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /--fit: noSuchSetting is not a finite CalibratedFit setting/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
