/**
 * scripts/test.mjs with BOOKMAKER_TEST_BUILD=only (.ci/run builds while the typecheck runs): it compiles dist/ for
 * the CLI's children and runs no test file. A tiny project in a temp folder: the runner, its helpers, one source
 * and one test file that would leave a mark if it ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runRunner, runnerProject, writeFiles } from './runner-files.ts';

test('BOOKMAKER_TEST_BUILD=only builds dist/ and runs no test', () => {
  const dir = runnerProject('bookmaker-build-only-');
  try {
    const mark = join(dir, 'ran');
    writeFiles(dir, {
      'tsconfig.build.json': JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', rootDir: '.', outDir: 'dist', types: [] },
        include: ['src'],
      }),
      'src/a.ts': 'export const a: number = 1;\n',
      'strategies/.keep': '',
      'test/x.test.ts': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, '');\n`,
    });
    const r = runRunner(dir, { BOOKMAKER_TEST_BUILD: 'only' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /# build: dist\/ compiled/);
    assert.ok(existsSync(join(dir, 'dist', 'src', 'a.js')), 'dist/ built');
    assert.ok(!existsSync(mark), 'no test file ran');
    assert.doesNotMatch(r.stdout, /# file:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
