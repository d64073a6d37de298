/**
 * bin/newest-mtime.js: the build's staleness rule, shared by the entry point (bin/bookmaker.js) and the
 * test runner (scripts/test.mjs): the newest modification time of the files under a folder, nested too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of the package's bin/ (no declarations)
import { newest } from '../../bin/newest-mtime.js';

test('the newest modification time under a folder is its newest file, however deep', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-newest-'));
  try {
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    for (const [f, s] of [
      ['x.ts', 1_000],
      [join('a', 'y.ts'), 3_000],
      [join('a', 'b', 'z.ts'), 2_000],
    ] as const) {
      writeFileSync(join(dir, f), '');
      utimesSync(join(dir, f), s, s);
    }
    assert.equal(newest(dir), 3_000_000);
    utimesSync(join(dir, 'a', 'b', 'z.ts'), 4_000, 4_000);
    assert.equal(newest(dir), 4_000_000, 'a nested file');
    assert.equal(newest(join(dir, 'a', 'b')), 4_000_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the entry point and the test runner share the one rule', () => {
  for (const f of ['bin/bookmaker.js', 'scripts/test.mjs']) {
    const s = readFileSync(f, 'utf8');
    assert.match(s, /import \{ newest \} from '[./]*(bin\/)?newest-mtime\.js';/, f);
    assert.doesNotMatch(s, /function newest\(/, `${f} keeps no copy`);
  }
});
