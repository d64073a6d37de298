/**
 * Fuzz of the config parser: any document, well-formed or not, gives a valid BotConfig or a
 * ConfigError — never another exception, never a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseBotConfig, TOP_KEYS } from '../../src/config/parse-config.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { ConfigError } from '../../src/model/errors.ts';

const scalar = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    'mainnet',
    'testnet',
    'local',
    'http://127.0.0.1:1/v2',
    'bands',
    'avellaneda',
    'oracle-anchored',
    'all',
    'mid',
    'microprice',
    'active',
    '0x' + 'ab'.repeat(32),
  ),
  fc.constantFrom(0, 0.01, 0.5, 1, 10, 50, 1e9, -0.5),
);
const KEYS = [
  ...TOP_KEYS,
  'strategy',
  'risk',
  'params',
  'name',
  'id',
  'slug',
  'filter',
  'all',
  'local',
  'chain',
  'baseUrl',
  'seed',
  'bands',
  'minMargin',
  'targetMargin',
  'maxMargin',
  'size',
  'gamma',
  'k',
  'sigma',
  'maxPosition',
  'maxNotional',
  'orderRate',
  'capacity',
  'port',
  'level',
  'batchLimit',
  'halfSpread',
  'oracleWeight',
  'faults',
  'agents',
  'status',
  'limit',
  'keyFile',
];
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('arr'), tie('obj')),
  arr: fc.array(tie('tree'), { maxLength: 4 }),
  obj: fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie('tree'), { maxKeys: 6 }),
}));

/** Documents close to valid ones, so the fuzz reaches the deep validators too. */
const nearValid = fc.record(
  {
    venue: fc.oneof(fc.constantFrom('mainnet', 'local', 'testnet'), tree),
    markets: fc.oneof(
      fc.constant('all'),
      fc.array(
        fc.record(
          { slug: fc.string({ minLength: 1, maxLength: 5 }), strategy: fc.oneof(fc.constantFrom('bands', 'avellaneda', 'oracle-anchored'), tree), risk: tree },
          { requiredKeys: ['slug'] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
    ),
    defaults: fc.record({ strategy: tree, risk: tree }, { requiredKeys: [] }),
    orders: tree,
    metrics: tree,
  },
  { requiredKeys: ['venue', 'markets'] },
);

async function outcome(p: Promise<unknown>): Promise<'ok' | 'config-error'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof ConfigError) return 'config-error';
    throw e;
  }
}

test('fuzz: random documents → BotConfig or ConfigError', async () => {
  let ok = 0;
  await fc.assert(
    fc.asyncProperty(fc.oneof(tree, nearValid), async (doc) => {
      if ((await outcome(parseBotConfig(doc, { file: 'f.yaml', env: {} }))) === 'ok') ok++;
    }),
    { numRuns: 1500, seed: 20261121 },
  );
  assert.ok(ok > 0, 'some generated documents are valid');
});

test('fuzz: random YAML text and env values → BotConfig or ConfigError', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({ maxLength: 80 }),
        nearValid.map((d) => stringify(d)),
        nearValid.map((d) => stringify(d).slice(0, 40)),
      ),
      fc.dictionary(
        fc.constantFrom(
          'BOOKMAKER_METRICS_PORT',
          'BOOKMAKER_VENUE',
          'BOOKMAKER_STRATEGY',
          'BOOKMAKER__orders__batchLimit',
          'BOOKMAKER_BASE_URL',
          'BOOKMAKER_HALTED',
        ),
        fc.string({ maxLength: 10 }),
        { maxKeys: 3 },
      ),
      async (text, env) => {
        await outcome(parseConfigText(text, 'f.yaml', { env }));
      },
    ),
    { numRuns: 1000, seed: 7 },
  );
});
