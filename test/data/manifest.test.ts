/**
 * The real data sets the tests, examples and benchmarks use live in data/ (copies of the development
 * machines' ../shared/data, byte for byte). Each folder carries its README, its licence and a
 * MANIFEST.sha256 naming every data file; this test recomputes the checksums: that is the check a clone
 * can make on its own, and the one every run makes.
 *
 * The byte-for-byte comparison with ../shared/data needs that folder, which only the development machines
 * have: in a fresh clone (CI's suite run) it skips, saying so. CI then runs this file a second time from
 * its checkout, where ../shared is present and a skip fails the run (.ci/run), so the comparison is made
 * on every CI run all the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DATA = fileURLToPath(new URL('../../data/', import.meta.url));
const SETS = ['binance-hftbacktest', 'kalshi-kxinx-trades', 'polymarket-tickscope'];

/** `sha256  name` lines of a MANIFEST.sha256 (sha256sum's text format). */
function manifest(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'MANIFEST.sha256'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    assert.ok(m, `${dir}/MANIFEST.sha256: not a sha256sum line: ${JSON.stringify(line)}`);
    out.set(m[2]!, m[1]!);
  }
  return out;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('data/ holds the three data sets, each with a README, a licence and a MANIFEST.sha256', () => {
  assert.deepEqual(
    readdirSync(DATA)
      .filter((n) => statSync(join(DATA, n)).isDirectory())
      .sort(),
    SETS,
  );
  assert.ok(existsSync(join(DATA, 'README.md')), 'data/README.md');
  for (const set of SETS) {
    const names = readdirSync(join(DATA, set));
    assert.ok(names.includes('README.md'), `${set}: README.md`);
    assert.ok(names.includes('MANIFEST.sha256'), `${set}: MANIFEST.sha256`);
    assert.ok(
      names.some((n) => n.startsWith('LICENSE')),
      `${set}: a LICENSE file`,
    );
  }
});

for (const set of SETS) {
  test(`${set}: every file matches MANIFEST.sha256, and every data file is listed`, () => {
    const dir = join(DATA, set);
    const listed = manifest(dir);
    assert.ok(listed.size >= 2, 'a licence and at least one data file');
    for (const [name, sum] of listed) assert.equal(sha256(join(dir, name)), sum, `${set}/${name}: checksum`);
    const unlisted = readdirSync(dir).filter((n) => n !== 'README.md' && n !== 'MANIFEST.sha256' && !listed.has(n));
    assert.deepEqual(unlisted, [], `${set}: files not in MANIFEST.sha256`);
  });
}

test('the copies are byte-identical to ../shared/data where the development machines have it', (t) => {
  const shared = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
  if (!existsSync(shared)) return t.skip(`${shared} is absent (a fresh clone): the checksums above are the check`);
  for (const set of SETS) {
    for (const name of readdirSync(join(shared, set))) {
      assert.equal(sha256(join(DATA, set, name)), sha256(join(shared, set, name)), `${set}/${name}`);
    }
  }
  assert.equal(sha256(join(DATA, 'README.md')), sha256(join(shared, 'README.md')), 'README.md');
});

test('nothing reads ../shared but the OpenAPI conformance suite: tests, sources, configs, docs and README use data/', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const allowed = new Set([
    'test/sim/conformance/openapi-schemas.ts', // BOOKMAKER_OPENAPI or ../shared/openapi.json, else skip
    'test/sim/conformance/conformance.test.ts',
    'test/data/manifest.test.ts', // compares data/ with ../shared/data where it exists
  ]);
  const files: string[] = [];
  const walk = (rel: string): void => {
    const full = join(root, rel);
    if (statSync(full).isDirectory()) {
      for (const n of readdirSync(full)) if (n !== 'node_modules') walk(rel ? `${rel}/${n}` : n);
    } else if (/\.(ts|mjs|js|ya?ml|md|json)$/.test(rel)) files.push(rel);
  };
  for (const top of ['src', 'test', 'config', 'docs', 'strategies', 'scripts', 'README.md']) if (existsSync(join(root, top))) walk(top);
  const offenders: string[] = [];
  for (const f of files) {
    if (allowed.has(f)) continue;
    const text = readFileSync(join(root, f), 'utf8');
    const lines = text.split('\n');
    lines.forEach((l, i) => {
      if (/\.\.\/shared(?![\w-])|['"]shared['"]\s*,\s*['"](data|openapi)/.test(l)) {
        // the README may name ../shared/openapi.json where it explains the OpenAPI suite
        if (f === 'README.md' && /openapi\.json/.test(l)) return;
        offenders.push(`${f}:${i + 1}: ${l.trim()}`);
      }
    });
  }
  assert.deepEqual(offenders, []);
});
