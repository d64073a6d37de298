/**
 * The output files of backtest, sweep and calibrate (src/cli/write-out.ts): a path that cannot be
 * written is refused before the run with the flag's name; a write replaces the file whole or leaves
 * the previous one and no temporary file; a failed write names the flag and the path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOutputs, writeOut } from '../../src/cli/write-out.ts';
import { BadInputError } from '../../src/model/errors.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'bm-write-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('checkOutputs refuses a folder and a path under a file, naming the flag, and leaves nothing behind', (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, 'afile'), 'x');
  assert.throws(
    () => checkOutputs({ json: dir }),
    (e: unknown) => e instanceof BadInputError && /^--json: expected a file path, not a folder/.test(e.message),
  );
  assert.throws(
    () => checkOutputs({ report: join(dir, 'afile', 'r.html') }),
    (e: unknown) => e instanceof BadInputError && /^--report: expected a file path that can be written/.test(e.message) && /ENOTDIR|EEXIST/.test(e.message),
  );
  // a new folder is made, '-' (stdout) and absent flags are skipped, and no probe file is left
  checkOutputs({ json: join(dir, 'new', 'deep', 's.json'), 'fills-csv': '-' });
  assert.deepEqual(readdirSync(join(dir, 'new', 'deep')), []);
  assert.deepEqual(readdirSync(dir).sort(), ['afile', 'new']);
});

test('writeOut replaces a file whole; a failed write keeps what was there, removes its temporary file and names the flag', (t) => {
  const dir = scratch(t);
  const file = join(dir, 'out', 'seeds.json');
  writeOut(file, 'first\n', 'json');
  writeOut(file, 'second\n', 'json');
  assert.equal(readFileSync(file, 'utf8'), 'second\n');
  assert.deepEqual(readdirSync(join(dir, 'out')), ['seeds.json']);
  // the target is a folder with a file in it: the rename fails after the text was written aside
  const blocked = join(dir, 'blocked');
  mkdirSync(blocked);
  writeFileSync(join(blocked, 'keep'), 'kept');
  assert.throws(
    () => writeOut(blocked, 'x'.repeat(100_000), 'fills-csv'),
    (e: unknown) => e instanceof Error && e.message.startsWith(`--fills-csv: could not write ${blocked} (`) && /nothing was written there/.test(e.message),
  );
  assert.deepEqual(readdirSync(blocked), ['keep']);
  assert.deepEqual(readdirSync(dir).sort(), ['blocked', 'out']);
});
