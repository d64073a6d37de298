// The "Writing your own" strategy example of docs/strategies.md must load through the registry and quote sensibly.
// It imports from 'bookmaker' (the package); here that name is pointed at this checkout's src/index.ts
// (test/package/pack-install.test.ts runs it against the installed tarball).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadStrategy } from '../../src/strategy/registry.ts';
import type { MarketView } from '../../src/strategy/types.ts';

function readmeExample(): string {
  const page = readFileSync('docs/strategies.md', 'utf8');
  const at = page.indexOf('## Writing your own');
  assert.ok(at >= 0, 'docs/strategies.md has "Writing your own"');
  const m = /```ts\n([\s\S]*?)```/.exec(page.slice(at));
  assert.ok(m, 'docs/strategies.md has a ts code block under "Writing your own"');
  return m[1]!;
}

/** The example with its package import pointed at the sources. */
function fromSources(code: string): string {
  assert.match(code, /from 'bookmaker';/, 'the example imports from the package, not from src/');
  assert.doesNotMatch(code, /from '\.\.?\//, 'the example has no relative imports');
  return code.replaceAll("from 'bookmaker';", `from '${pathToFileURL(resolve('src/index.ts')).href}';`);
}

test('README strategy example loads by path and quotes around the mid on the tick grid', async () => {
  const dir = join(process.cwd(), `.readme-example-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'fixed-spread.ts'), fromSources(readmeExample()));
    const mod = await loadStrategy(`../${dir.split('/').pop()}/fixed-spread.ts`, join(process.cwd(), 'config'));
    assert.equal(mod.name, 'fixed-spread');
    const cfg = mod.parseConfig({ halfSpread: 0.03, size: 10 }, 'markets[0].strategy.params');
    assert.throws(() => mod.parseConfig({ halfSpread: 'wide' }, 'markets[0].strategy.params'), /markets\[0\]\.strategy\.params\.halfSpread: expected/);
    const view = { tick: 10_000, book: { mid: 455_000 } } as unknown as MarketView;
    assert.deepEqual(mod.quote(view, cfg), [
      { side: 'bid', price: 420_000, size: 10_000_000, level: 0 },
      { side: 'ask', price: 490_000, size: 10_000_000, level: 0 },
    ]);
    assert.equal(mod.quote({ tick: 10_000, book: null } as unknown as MarketView, cfg), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The ts block under "Testing your own" (a unit test of the example), its list-item indent removed. */
function testingExample(): string {
  const page = readFileSync('docs/strategies.md', 'utf8');
  const at = page.indexOf('## Testing your own');
  assert.ok(at >= 0, 'docs/strategies.md has "Testing your own"');
  const m = /^( *)```ts\n([\s\S]*?)^ *```/m.exec(page.slice(at));
  assert.ok(m, 'a ts block under "Testing your own"');
  const indent = m[1]!.length;
  return m[2]!
    .split('\n')
    .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
    .join('\n');
}

test('the "Testing your own" unit test passes against the example strategy', () => {
  const dir = join(process.cwd(), `.readme-testing-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'fixed-spread.ts'), fromSources(readmeExample()));
    const code = testingExample();
    assert.match(code, /from '\.\/fixed-spread\.ts';/, 'it tests the example by its file name');
    writeFileSync(join(dir, 'fixed-spread.test.ts'), code.replaceAll("from 'bookmaker';", `from '${pathToFileURL(resolve('src/index.ts')).href}';`));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')); // a run of its own, reporting in TAP
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'fixed-spread.test.ts'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /# pass 1\b/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
