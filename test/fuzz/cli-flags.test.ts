/**
 * Fuzz of the CLI flag parser (src/cli/args.ts) against every command's own option spec: argv built from
 * the command's real flags (long, short, --no-, --flag=value), junk values and unknown tokens. Each argv
 * parses into values of the declared types (numbers finite, durations positive, choices respected) or
 * fails with a BadInputError naming the flag; never another exception.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseArgs, type CommandSpec, type OptionSpec } from '../../src/cli/args.ts';
import { COMMANDS } from '../../src/cli/main.ts';
import { BadInputError } from '../../src/model/errors.ts';

const RUNS = 600;

function checkParsed(spec: CommandSpec, options: Record<string, unknown>): void {
  for (const [name, v] of Object.entries(options)) {
    const o: OptionSpec | undefined = Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    assert.ok(o, `${spec.name}: parsed an undeclared option ${name}`);
    if (v === undefined) continue;
    if (o.multiple) {
      assert.ok(Array.isArray(v), `${name} collects an array`);
      continue;
    }
    if (o.type === 'boolean') assert.equal(typeof v, 'boolean', name);
    else if (o.type === 'number') assert.ok(typeof v === 'number' && Number.isFinite(v), `${name}: ${String(v)}`);
    else if (o.type === 'duration') assert.ok(typeof v === 'number' && Number.isFinite(v) && v > 0, `${name}: ${String(v)}`);
    else {
      assert.equal(typeof v, 'string', name);
      if (o.choices && v !== o.default) assert.ok(o.choices.includes(v as string), `${name}=${String(v)} within choices`);
    }
  }
}

const junkValue = fc.oneof(
  fc.constantFrom(
    '',
    '-',
    '--',
    '-1',
    '0',
    '1e9',
    '1e400',
    'NaN',
    'Infinity',
    '0x',
    '10m',
    '1.5h',
    '0s',
    '-5s',
    '99999999999999999999',
    'true',
    'false',
    '=',
    '--help',
    '__proto__',
    'constructor',
  ),
  fc.string({ maxLength: 12 }),
  fc.integer().map(String),
  fc.double().map(String),
);

function tokens(spec: CommandSpec): fc.Arbitrary<string[]> {
  const names = Object.keys(spec.options);
  const shorts = Object.values(spec.options).flatMap((o) => (o.short ? [o.short] : []));
  const flag = fc.oneof(
    ...(names.length ? [fc.constantFrom(...names).map((n) => `--${n}`), fc.constantFrom(...names).map((n) => `--no-${n}`)] : []),
    ...(names.length ? [fc.tuple(fc.constantFrom(...names), junkValue).map(([n, v]) => `--${n}=${v}`)] : []),
    ...(shorts.length ? [fc.constantFrom(...shorts).map((s) => `-${s}`)] : []),
    fc.constantFrom('--', '-', '--unknown', '-Z', '--=', '---x', '--__proto__', '--constructor', '--toString', '--hasOwnProperty'),
  );
  return fc.array(fc.oneof({ weight: 3, arbitrary: flag }, { weight: 2, arbitrary: junkValue }), { maxLength: 8 });
}

for (const [name, entry] of Object.entries(COMMANDS)) {
  test(`bookmaker ${name}: any argv gives typed options or a BadInputError naming the flag`, async (t) => {
    const spec = (await entry.load()).default;
    let n = 0;
    fc.assert(
      fc.property(tokens(spec), (argv) => {
        n++;
        try {
          checkParsed(spec, parseArgs(argv, spec.options).options);
        } catch (e) {
          assert.ok(e instanceof BadInputError, `${name} ${JSON.stringify(argv)}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
          assert.match(e.field, /^-/, `the error names a flag: ${e.message}`);
          assert.doesNotMatch(e.expected, /^no value$/, `a meaningful expectation: ${e.message}`);
        }
      }),
      { numRuns: RUNS, seed: 6200 + name.length },
    );
    t.diagnostic(`fuzz cases: ${n}`);
  });
}

test('regression: Object.prototype names are unknown options, not a crash or a confusing message', () => {
  for (const flag of ['--constructor', '--toString', '--__proto__', '--hasOwnProperty']) {
    assert.throws(
      () => parseArgs([flag, 'x'], { port: { type: 'number', description: 'port' } }),
      (e: unknown) => e instanceof BadInputError && /known option/.test(e.message),
      flag,
    );
  }
});
