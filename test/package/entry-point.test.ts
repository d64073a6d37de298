/**
 * bin/bookmaker.js picks the code it runs: the build (dist/) when present and, in a checkout, not older
 * than the sources; the TypeScript sources through tsx otherwise, or with BOOKMAKER_SOURCE=1. And
 * BOOKMAKER_HEAP_LIMITS: a malformed entry is named and ignored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCheckout, packBookmaker } from './pack.ts';

test('the entry point runs the build when it is fresh, the sources when it is stale or BOOKMAKER_SOURCE=1', { timeout: 180_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-entry-'));
  try {
    const dir = copyCheckout(join(work, 'checkout'));
    // the build of these very sources, from the packed tarball (package/dist → dist)
    execFileSync('tar', ['-xzf', packBookmaker(work), '-C', work, 'package/dist']);
    execFileSync('mv', [join(work, 'package', 'dist'), join(dir, 'dist')]);
    // mark the build so the test can see which code ran
    appendFileSync(join(dir, 'dist', 'src', 'cli', 'main.js'), "\nprocess.stderr.write('[from dist]\\n');\n");
    const run = (env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, ['bin/bookmaker.js', 'run', '--help'], { cwd: dir, env: { ...process.env, BOOKMAKER_SOURCE: '', ...env }, encoding: 'utf8' });

    const built = run();
    assert.equal(built.status, 0, built.stderr);
    assert.match(built.stdout, /Usage: bookmaker run/);
    assert.match(built.stderr, /\[from dist\]/, 'a fresh build runs');

    const forced = run({ BOOKMAKER_SOURCE: '1' });
    assert.equal(forced.status, 0, forced.stderr);
    assert.doesNotMatch(forced.stderr, /\[from dist\]/, 'BOOKMAKER_SOURCE=1 runs the sources');

    // a source edited after the build: the build is stale, the sources run
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'strategies', 'bands', 'quote.ts'), later, later);
    const stale = run();
    assert.equal(stale.status, 0, stale.stderr);
    assert.match(stale.stdout, /Usage: bookmaker run/);
    assert.doesNotMatch(stale.stderr, /\[from dist\]/, 'a stale build does not run');

    const badHeap = run({ BOOKMAKER_HEAP_LIMITS: 'run=lots' });
    assert.equal(badHeap.status, 0);
    assert.match(badHeap.stderr, /BOOKMAKER_HEAP_LIMITS: ignoring "run=lots" \(expected COMMAND=MB, e\.g\. run=128\)/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
