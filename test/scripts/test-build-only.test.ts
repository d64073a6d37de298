/**
 * scripts/test.mjs with BOOKMAKER_TEST_BUILD=only (.ci/run builds while the typecheck runs): it compiles dist/ for
 * the CLI's children and runs no test file. A tiny project in a temp folder: the runner, its helpers, one source
 * and one test file that would leave a mark if it ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNER_FILES } from './runner-files.ts';

const REPO = process.cwd();

test('BOOKMAKER_TEST_BUILD=only builds dist/ and runs no test', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-build-only-'));
  try {
    for (const d of ['scripts', 'bin', 'src', 'strategies', 'test']) mkdirSync(join(dir, d));
    for (const f of RUNNER_FILES) copyFileSync(join(REPO, f), join(dir, f));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.build.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', rootDir: '.', outDir: 'dist', types: [] }, include: ['src'] }),
    );
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = 1;\n');
    const mark = join(dir, 'ran');
    writeFileSync(join(dir, 'test', 'x.test.ts'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, '');\n`);
    const r = spawnSync(process.execPath, ['scripts/test.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, BOOKMAKER_TEST_BUILD: 'only' } });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /# build: dist\/ compiled/);
    assert.ok(existsSync(join(dir, 'dist', 'src', 'a.js')), 'dist/ built');
    assert.ok(!existsSync(mark), 'no test file ran');
    assert.doesNotMatch(r.stdout, /# file:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
