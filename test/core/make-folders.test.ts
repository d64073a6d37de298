/**
 * src/core/make-folders.ts: `mkdir -p` that refuses at once where a folder cannot be made, and the
 * places that make folders from an operator's path (the ledger's) use it: under /proc Node's
 * recursive mkdir never returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFolders } from '../../src/core/make-folders.ts';

test('makeFolders makes the missing folders, and refuses at once where one cannot be made (a file, /proc)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-make-folders-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  makeFolders(join(dir, 'a', 'b', 'c'));
  assert.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory());
  makeFolders(join(dir, 'a', 'b', 'c')); // already there: nothing to do
  writeFileSync(join(dir, 'f'), 'x');
  assert.throws(() => makeFolders(join(dir, 'f', 'g')), { code: 'ENOTDIR' });
  // Node's recursive mkdir never returns here; this one throws what the kernel says
  if (existsSync('/proc/self')) assert.throws(() => makeFolders('/proc/x/y'), { code: 'ENOENT' });
});

test('a ledger path under /proc is refused at once, not a spin', { skip: !existsSync('/proc/self') && 'no /proc' }, () => {
  // in a child killed after 60 s: the old code spun in one synchronous call, where no timer of this file runs
  const script = `import { openLedger } from ${JSON.stringify(new URL('../../src/ledger/ledger.ts', import.meta.url).href)};
try { openLedger({ path: '/proc/x/y/ledger.sqlite', clock: { now: () => 0, setTimeout: () => () => {} } }); console.log('opened'); }
catch (e) { console.log('refused', e.code); }`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  assert.equal(r.signal, null, `the child had to be killed (a spin); stderr: ${r.stderr}`);
  assert.match(r.stdout, /^refused ENOENT$/m, r.stderr);
});
