import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatHelp, parseArgs, parseDuration, type OptionSpec } from '../../src/cli/args.ts';
import { BadInputError } from '../../src/model/errors.ts';

const spec: Record<string, OptionSpec> = {
  config: { type: 'string', short: 'c', description: 'config file', arg: 'FILE' },
  duration: { type: 'duration', description: 'run time' },
  port: { type: 'number', description: 'port', default: 9464 },
  paper: { type: 'boolean', description: 'paper mode' },
  outcome: { type: 'string', description: 'outcome', choices: ['yes', 'no'] },
  tag: { type: 'string', description: 'tags', multiple: true },
};

test('parses flags, short flags, inline values, --no-, repeatables and defaults', () => {
  const a = parseArgs(['-c', 'x.yaml', '--duration=10m', '--paper', 'pos', '--tag', 'a', '--tag', 'b', '--outcome', 'no'], spec);
  assert.deepEqual(a.options, { config: 'x.yaml', duration: 600, paper: true, tag: ['a', 'b'], outcome: 'no', port: 9464 });
  assert.deepEqual(a.positionals, ['pos']);
  assert.equal(parseArgs(['--no-paper'], spec).options.paper, false);
  assert.deepEqual(parseArgs(['--', '--paper'], spec).positionals, ['--paper']);
});

test('bad flags are clear errors naming the flag', () => {
  assert.throws(
    () => parseArgs(['--nope'], spec),
    (e: unknown) => e instanceof BadInputError && /--nope/.test(e.message),
  );
  assert.throws(() => parseArgs(['--port', 'abc'], spec), /--port: expected a number/);
  assert.throws(() => parseArgs(['--config'], spec), /--config: expected a value FILE/);
  assert.throws(() => parseArgs(['--outcome', 'maybe'], spec), /one of yes, no/);
  assert.throws(() => parseArgs(['--paper=yes'], spec), /true or false/);
  assert.throws(() => parseArgs(['-z'], spec), BadInputError);
});

test('numbers may carry an exponent, so a range check can say what is wrong with 1e9', () => {
  assert.equal(parseArgs(['--port', '1e9'], spec).options.port, 1e9);
  assert.equal(parseArgs(['--port', '2.5E-1'], spec).options.port, 0.25);
  for (const bad of ['1e', 'e9', '1e400', '0x10', 'NaN']) assert.throws(() => parseArgs(['--port', bad], spec), /--port: expected a number/, bad);
});

test('durations accept s, m, h, ms and refuse nonsense', () => {
  assert.equal(parseDuration('30', 'd'), 30);
  assert.equal(parseDuration('1.5m', 'd'), 90);
  assert.equal(parseDuration('2h', 'd'), 7200);
  assert.equal(parseDuration('500ms', 'd'), 0.5);
  for (const bad of ['', '0', '-1', '10x', 'm', '1e3']) assert.throws(() => parseDuration(bad, 'd'), BadInputError, bad);
});

test('help lists every option, and long flags do not run into their description', () => {
  const h = formatHelp({
    name: 'x',
    summary: 'sum',
    usage: 'bookmaker x',
    options: { ...spec, 'api-key': { type: 'string', arg: 'KEY[:WALLET[:PERMISSIONS]]', description: 'a key' } },
    run: async () => 0,
  });
  for (const name of Object.keys(spec)) assert.match(h, new RegExp(`--${name}`));
  assert.doesNotMatch(h, /PERMISSIONS\]\]a key/);
  assert.match(h, /-h, --help/);
});
