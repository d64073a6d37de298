import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILTIN_STRATEGIES, isStrategyPath, loadStrategy } from '../../src/strategy/registry.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { makeView, NOW } from './make-view.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'bm-strat-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('built-ins load by name and quote', async () => {
  for (const name of BUILTIN_STRATEGIES) {
    const m = await loadStrategy(name);
    assert.equal(m.name, name);
    const cfg = m.parseConfig({}, 'params');
    // follow quotes only behind a sweep of taker prints
    const trades = name === 'follow' ? [{ price: 520_000, size: 400 * 1_000_000, takerSide: 'buy' as const, ts: NOW - 500 }] : [];
    // lopsided quotes only near a bound: a 6/9¢ book
    const near = name === 'lopsided' ? { bids: [{ price: 60_000, size: 1_000_000 }], asks: [{ price: 90_000, size: 1_000_000 }] } : {};
    const q = m.quote(makeView({ trades, ...near }), cfg);
    assert.ok(Array.isArray(q) && q.length > 0, name);
  }
});

test('a user module loads by path relative to the config folder', async () => {
  writeFileSync(
    join(dir, 'mine.ts'),
    `export default { name: 'mine', parseConfig: (raw) => ({ px: raw?.px ?? 400000 }), quote: (v, c) => [{ side: 'bid', price: c.px, size: v.minSize }] };\n`,
  );
  const m = await loadStrategy('./mine.ts', dir);
  assert.equal(m.name, 'mine');
  assert.deepEqual(m.quote(makeView(), m.parseConfig({ px: 300000 }, 'p')), [{ side: 'bid', price: 300000, size: 1_000_000 }]);
});

test('unknown names, missing files and wrong shapes are ConfigErrors', async () => {
  await assert.rejects(loadStrategy('bandz'), (e: unknown) => e instanceof ConfigError && /unknown strategy "bandz"/.test(e.message));
  await assert.rejects(loadStrategy('./nope.ts', dir), (e: unknown) => e instanceof ConfigError && /cannot load module/.test(e.message));
  writeFileSync(join(dir, 'bad.ts'), `export const x = 1;\n`);
  await assert.rejects(loadStrategy('./bad.ts', dir), (e: unknown) => e instanceof ConfigError && /expected a default export/.test(e.message));
  assert.ok(isStrategyPath('./x.ts') && isStrategyPath('/a/b') && isStrategyPath('lib/x') && !isStrategyPath('bands'));
});

test('a user .ts strategy outside an ES-module package loads under the ES-module hook alone, as bin/bookmaker.js runs the sources', () => {
  // A folder with no package.json: tsx calls the file CommonJS, and with only its ES-module hook Node refused
  // `export default` ("Cannot require() ES Module ... in a cycle") until the registry registered the CommonJS hook.
  const own = mkdtempSync(join(tmpdir(), 'bm-strat-esm-'));
  try {
    writeFileSync(join(own, 'plain.ts'), `export default { name: 'plain', parseConfig: () => ({}), quote: () => null };\n`);
    const registry = pathToFileURL(join(REPO, 'src', 'strategy', 'registry.ts')).href;
    const code = `const { loadStrategy } = await import(${JSON.stringify(registry)}); console.log((await loadStrategy('./plain.ts', ${JSON.stringify(own)})).name);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', code], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'plain');
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});
