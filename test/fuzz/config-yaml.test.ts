/**
 * Fuzz of the YAML config loader at the text level: the shipped configs (config/*.yaml) damaged line by
 * line — lines dropped, duplicated, re-indented, values swapped for junk, bytes inserted — plus YAML's
 * own hazards (alias bombs, deep nesting, tags, huge scalars). Every text gives a BotConfig or a
 * ConfigError naming the file; never another exception, never a hang. Complements test/config/fuzz.test.ts
 * (which fuzzes parsed documents).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseConfigText } from '../../src/config/load-config.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { JUNK_CONSTANTS, prng } from './mutate.ts';

const FILES = ['config/local.yaml', 'config/live.yaml', 'config/testnet.yaml'];
const RUNS = 700;

/** Damage a YAML text with `count` seeded line-level edits. */
function damage(text: string, seed: number, count: number): string {
  const rnd = prng(seed);
  const lines = text.split('\n');
  const pick = (n: number) => Math.floor(rnd() * n);
  for (let i = 0; i < count; i++) {
    const at = pick(lines.length);
    const line = lines[at] ?? '';
    const op = pick(7);
    if (op === 0) lines.splice(at, 1);
    else if (op === 1) lines.splice(at, 0, line);
    else if (op === 2) lines[at] = (rnd() < 0.5 ? '  ' : '') + line.trimStart();
    else if (op === 3 && line.includes(':')) {
      const j = JUNK_CONSTANTS[pick(JUNK_CONSTANTS.length)];
      lines[at] = line.slice(0, line.indexOf(':') + 1) + ' ' + (typeof j === 'string' ? JSON.stringify(j.slice(0, 200)) : JSON.stringify(j));
    } else if (op === 4) {
      const p = pick(line.length + 1);
      lines[at] = line.slice(0, p) + ['{', '[', ':', '&a', '*a', '!!binary', '"', "'", '\t', '- ', '#', '\u0000', '%'][pick(13)] + line.slice(p);
    } else if (op === 5) lines[at] = line.slice(0, pick(line.length + 1));
    else lines.splice(at, 0, `${'x'.repeat(pick(5) + 1)}: ${pick(1e6)}`);
  }
  return lines.join('\n');
}

async function outcome(text: string): Promise<'ok' | 'error'> {
  try {
    await parseConfigText(text, 'fuzz.yaml', { env: {} });
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ConfigError, `not a ConfigError: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
    assert.match(e.message, /fuzz\.yaml|markets|venue|[a-z]+(\.|\[)/, 'the message names the file or the field');
    return 'error';
  }
}

for (const file of FILES) {
  test(`damaged ${file}: BotConfig or ConfigError`, async (t) => {
    const text = readFileSync(file, 'utf8');
    assert.equal(await outcome(text), 'ok', `${file} itself is valid`);
    let n = 0;
    const seen = { ok: 0, error: 0 };
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 5 }), async (seed, count) => {
        n++;
        seen[await outcome(damage(text, seed, count))]++;
      }),
      { numRuns: RUNS, seed: 6100 + file.length },
    );
    t.diagnostic(`fuzz cases: ${n} (valid ${seen.ok}, refused ${seen.error})`);
    assert.ok(seen.error > 0, 'some damage is refused');
  });
}

test('YAML hazards: alias bombs, deep nesting, tags, huge scalars, binary', async (t) => {
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ...Array.from(
      { length: 9 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
    ),
  ].join('\n');
  const texts = [
    bomb,
    'venue: ' + '['.repeat(3000) + ']'.repeat(3000),
    'venue: ' + '{a: '.repeat(2000) + '1' + '}'.repeat(2000),
    'venue: !!js/function "function(){}"\nmarkets: all',
    'venue: local\nmarkets: all\nmetrics: {port: 99999999999999999999999}',
    'venue: local\nmarkets: all\norders: {batchLimit: 1e400}',
    'venue: ' + 'x'.repeat(2_000_000),
    '\u0000\u0001\u0002',
    'venue: local\nvenue: local\nmarkets: all',
    '<<: *nothing',
    '---\nvenue: local\n---\nvenue: mainnet',
    'venue: local\nmarkets: all\nwallet: {keyFile: "/etc/passwd"}\n__proto__: {polluted: true}',
  ];
  for (const text of texts) await outcome(text);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
  t.diagnostic(`fuzz cases: ${texts.length}`);
});
