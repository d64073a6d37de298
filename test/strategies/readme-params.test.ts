/** Every parameter in a strategy README's table is a key its parser knows (docs cannot drift). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BUILTIN_STRATEGIES, loadStrategy } from '../../src/strategy/registry.ts';

test('README parameter tables match the parsers', async () => {
  for (const name of BUILTIN_STRATEGIES) {
    const mod = await loadStrategy(name);
    const readme = readFileSync(new URL(`../../strategies/${name}/README.md`, import.meta.url), 'utf8');
    const params = [...readme.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]!);
    assert.ok(params.length >= 3, `${name}: table found`);
    for (const p of params) {
      // a deliberately wrong value: the parser must complain about the value, not about the key
      let msg = '';
      try {
        mod.parseConfig({ [p]: { wrong: true } }, 'p');
      } catch (e) {
        msg = (e as Error).message;
      }
      assert.ok(msg.startsWith(`p.${p}`), `${name}.${p}: ${msg}`);
      assert.ok(!/known key/.test(msg), `${name}.${p} is documented but unknown to the parser`);
    }
    // nested rows (`toxicity.event.pull`): a wrong value at that depth is refused with its full path
    const nested = [...readme.matchAll(/^\| `([A-Za-z]+(?:\.[A-Za-z]+)+)` \|/gm)].map((m) => m[1]!);
    // every strategy with the toxicity helper documents its parameters (follow, a taker, has none)
    if (/^## Adverse selection: `toxicity`/m.test(readme))
      assert.ok(nested.filter((p) => p.startsWith('toxicity.')).length >= 14, `${name}: the toxicity helper's parameters are documented`);
    for (const p of nested) {
      const keys = p.split('.');
      const raw = keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), { wrong: true });
      let msg = '';
      try {
        mod.parseConfig(raw, 'p');
      } catch (e) {
        msg = (e as Error).message;
      }
      assert.ok(msg.startsWith(`p.${p}`), `${name}.${p}: ${msg}`);
      assert.ok(!/known key/.test(msg), `${name}.${p} is documented but unknown to the parser`);
    }
    assert.throws(() => mod.parseConfig({ notAParam: 1 }, 'p'), /p\.notAParam: expected a known key/);
  }
});
