/**
 * scripts/ts-loader.mjs, the test runner's TypeScript loader: it runs an ESM .ts file (types stripped, as tsx
 * compiles it), keeps each compiled file under a hash of its content (an edited file is compiled again, never served
 * stale), names the .ts lines in stack traces, and refuses TypeScript outside an ESM package scope with an error
 * that says what to do, rather than running it another way than tsx would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOADER = join(process.cwd(), 'scripts', 'ts-loader.mjs');

function run(file: string, cache: string) {
  return spawnSync(process.execPath, ['--import', LOADER, file], {
    encoding: 'utf8',
    env: { ...process.env, BOOKMAKER_TS_CACHE: cache },
    timeout: 60_000,
  });
}

test('an ESM .ts file runs; its compiled form is cached by content; an edit is compiled again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ts-loader-'));
  try {
    const cache = join(dir, 'cache');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'dep.ts'), `export interface P { x: number }\nexport const double = (p: P): number => p.x * 2;\n`);
    const main = join(dir, 'main.ts');
    writeFileSync(main, `import { double, type P } from './dep.ts';\nconst p: P = { x: 21 };\nconsole.log(double(p));\n`);
    const first = run(main, cache);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, '42\n');
    assert.equal(readdirSync(cache).filter((f) => f.endsWith('.js')).length, 2, 'both files compiled into the cache');
    const again = run(main, cache);
    assert.equal(again.stdout, '42\n');
    assert.equal(readdirSync(cache).length, 2, 'served from the cache');
    writeFileSync(join(dir, 'dep.ts'), `export interface P { x: number }\nexport const double = (p: P): number => p.x * 3;\n`);
    const edited = run(main, cache);
    assert.equal(edited.status, 0, edited.stderr);
    assert.equal(edited.stdout, '63\n', 'the edited file, not the cached one');
    assert.equal(readdirSync(cache).length, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stack trace names the .ts line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ts-loader-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const file = join(dir, 'throws.ts');
    writeFileSync(file, `type T = { a: string };\n\nconst t: T = { a: 'x' };\nif (t.a === 'x') throw new Error('here');\n`);
    const r = run(file, join(dir, 'cache'));
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /throws\.ts:4/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TypeScript outside an ESM package scope: a clear error naming TSX_FILES', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ts-loader-'));
  try {
    mkdirSync(join(dir, 'cjs'));
    writeFileSync(join(dir, 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }));
    const file = join(dir, 'cjs', 'strategy.ts');
    writeFileSync(file, `export default { name: 'x' as string };\n`);
    const r = run(file, join(dir, 'cache'));
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /TypeScript outside an ESM package scope.*TSX_FILES in scripts\/test\.mjs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
