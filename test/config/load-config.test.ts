import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfigText } from '../../src/config/load-config.ts';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadSweepSpec } from '../../src/backtest/sweep-grid.ts';
import { parseBotConfig } from '../../src/config/parse-config.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { FAULT_PROFILES, faultSettingsOf } from '../../src/sim/faults.ts';

const S = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'bm-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ID = '0x' + 'ab'.repeat(32);
const base = `venue: mainnet\nmarkets:\n  - id: "${ID}"\n`;

async function rejects(text: string, re: RegExp, opts: { env?: Record<string, string>; overrides?: Record<string, unknown> } = {}): Promise<string> {
  let msg = '';
  await assert.rejects(
    parseConfigText(text, 'config/t.yaml', { env: opts.env ?? {}, overrides: opts.overrides ?? {} }),
    (e: unknown) => {
      msg = (e as Error).message;
      return e instanceof ConfigError && re.test(msg);
    },
    text,
  );
  return msg;
}

test('every shipped config validates', async () => {
  const files = [
    ...readdirSync('config')
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join('config', f)),
    ...readdirSync('config/strategies')
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join('config/strategies', f)),
  ];
  assert.ok(files.length >= 6, files.join(','));
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    // a sweep file is a grid over a config, validated by its own loader
    if (/^grid:/m.test(text)) {
      const sweep = await loadSweepSpec(f);
      assert.ok(Object.keys(sweep.grid).length >= 1, f);
      continue;
    }
    // a backtest config carries a `backtest:` section that the backtest loader splits off first
    const isBacktest = /^backtest:/m.test(text);
    const c = isBacktest ? (await loadBacktestConfig(f, {}, {})).bot : await loadConfig(f, { env: {} });
    assert.ok(c.markets.length >= 1, f);
    for (const m of c.markets) assert.equal(typeof m.strategy.module.quote, 'function', f);
  }
  const local = await loadConfig('config/local.yaml', { env: {} });
  assert.equal(local.venue.kind, 'local');
  assert.equal(local.markets[0]!.strategy.ref, 'bands');
  const live = await loadConfig('config/live.yaml', { env: {} });
  assert.equal(live.venue.kind, 'mainnet');
  assert.equal(live.orders.deadManExpiryMs, 120_000);
});

test('units: shares, USDC, probabilities and seconds become integer units and ms', async () => {
  const c = await parseConfigText(
    `${base}defaults:\n  risk: { maxPosition: 12.5, maxNotional: 7.25, maxDistanceFromFair: 0.15, maxBookAgeSeconds: 2.5 }\norders: { priceTolerance: 0.005, requoteIntervalSeconds: 0.5 }\n`,
    'x.yaml',
  );
  const r = c.markets[0]!.risk;
  assert.equal(r.maxPosition, 12_500_000);
  assert.equal(r.maxNotional, 7_250_000);
  assert.equal(r.maxDistanceFromFair, 150_000);
  assert.equal(r.maxBookAgeMs, 2500);
  assert.equal(r.maxOrderSize, DEFAULT_RISK.maxOrderSize, 'unset keys keep the defaults');
  assert.equal(c.orders.priceTolerance, 5000);
  assert.equal(c.orders.requoteIntervalMs, 500);
  assert.deepEqual(c.markets[0]!.select, { by: 'id', id: ID });
});

test('per-market strategy and risk override the defaults', async () => {
  const c = await parseConfigText(
    `venue: local
defaults:
  strategy: { name: avellaneda, params: { gamma: 0.3, size: 4 } }
  risk: { maxPosition: 40, maxNotional: 30 }
markets:
  - slug: a
  - slug: b
    strategy: { params: { size: 2 } }
    risk: { maxPosition: 10 }
  - filter: { category: sports, minVolume: 100, limit: 3 }
    strategy: bands
`,
    'x.yaml',
  );
  const [a, b, f] = c.markets;
  assert.equal(a!.strategy.ref, 'avellaneda');
  assert.equal((a!.strategy.params as { gamma: number }).gamma, 0.3);
  assert.equal((b!.strategy.params as { gamma: number; size: number }).gamma, 0.3, 'params merged over the defaults');
  assert.equal((b!.strategy.params as { size: number }).size, 2 * S);
  assert.equal(a!.risk.maxPosition, 40 * S);
  assert.equal(b!.risk.maxPosition, 10 * S);
  assert.equal(b!.risk.maxNotional, 30 * S, 'inherits the other defaults');
  assert.equal(f!.strategy.ref, 'bands');
  assert.deepEqual(f!.select, { by: 'filter', status: 'active', minVolume: 100 * S, limit: 3, category: 'sports' });
});

test('a YAML .nan, .inf or -.inf given for a number is named as written, not as null', async () => {
  await rejects(
    `${base}defaults:\n  risk: { maxPosition: .nan }\n`,
    /^config\/t\.yaml: defaults\.risk\.maxPosition: expected a number in \(0, 1000000000\], got \.nan$/,
  );
  await rejects(`${base}orders: { batchLimit: .inf }\n`, /orders\.batchLimit: expected an integer in \[\d+, \d+\].*, got \.inf$/);
  await rejects(`${base}feeds: { bookPollSeconds: -.inf }\n`, /feeds\.bookPollSeconds: expected a number in \[0\.05, 86400\], got -\.inf$/);
  await rejects(`${base}orders: { batchLimit: 1e400 }\n`, /orders\.batchLimit: .*, got \.inf$/);
  // the environment overrides read their values as YAML scalars: the same words
  for (const [v, said] of [
    ['.nan', '.nan'],
    ['.inf', '.inf'],
    ['-.inf', '-.inf'],
  ]) {
    const msg = await rejects(base, /\(set by BOOKMAKER_BATCH_LIMIT\) orders\.batchLimit: expected an integer/, { env: { BOOKMAKER_BATCH_LIMIT: v! } });
    assert.ok(msg.endsWith(`got ${said}`), msg);
    const generic = await rejects(base, /BOOKMAKER__defaults__risk__maxPosition/, { env: { BOOKMAKER__defaults__risk__maxPosition: v! } });
    assert.ok(generic.endsWith(`got ${said}`), generic);
  }
});

test("orders.batchLimit is refused above the venue's 50 orders a bulk call and below 2, in a file and in BOOKMAKER_BATCH_LIMIT", async () => {
  for (const n of [51, 500, 1, 0]) {
    const msg = await rejects(`${base}orders: { batchLimit: ${n} }\n`, /orders\.batchLimit: expected an integer in \[2, 50\]/);
    assert.match(msg, /the venue takes at most 50 orders a bulk call/);
    await rejects(base, /^config\/t\.yaml: \(set by BOOKMAKER_BATCH_LIMIT\) orders\.batchLimit: expected an integer in \[2, 50\]/, {
      env: { BOOKMAKER_BATCH_LIMIT: String(n) },
    });
  }
  for (const n of [2, 50]) assert.equal((await parseConfigText(`${base}orders: { batchLimit: ${n} }\n`, 'config/t.yaml', { env: {} })).orders.batchLimit, n);
  assert.equal((await parseConfigText(base, 'config/t.yaml', { env: { BOOKMAKER_BATCH_LIMIT: '50' } })).orders.batchLimit, 50);
});

test('messages name file, path, expected and got', async () => {
  const rows: [string, RegExp][] = [
    [
      `venue: mainnet\nmarkets:\n  - slug: a\n  - slug: b\n  - slug: c\n    strategy: { name: oracle-anchored, params: { halfSpread: wide } }\n`,
      /^config\/t\.yaml: markets\[2\]\.strategy\.params\.halfSpread: expected a number in \(0, 0\.5\], got "wide"$/,
    ],
    [`${base}defaults:\n  risk: { maxPosition: -1 }\n`, /^config\/t\.yaml: defaults\.risk\.maxPosition: expected a number in \(0, 1000000000\], got -1$/],
    [
      `${base}orders: { batchLimit: 1000 }\n`,
      /^config\/t\.yaml: orders\.batchLimit: expected an integer in \[2, 50\] \(the venue takes at most 50 orders a bulk call; .*\), got 1000$/,
    ],
    [`${base}orders: { deadManExpirySeconds: 5 }\n`, /orders\.deadManExpirySeconds: expected 0 \(off\) or a number in \[10, 31536000\], got 5$/],
    [`${base}metrics: { port: "9464" }\n`, /metrics\.port: expected an integer in \[0, 65535\], got "9464"/],
    [`${base}logging: { level: loud }\n`, /logging\.level: expected one of trace, debug, info, warn, error, fatal, silent, got "loud"/],
    [`${base}venue2: x\n`, /^config\/t\.yaml: venue2: expected a known key \(one of venue, markets/],
    [`${base}orders: { batchlimit: 5 }\n`, /orders\.batchlimit: expected a known key/],
    [`venue: ftp://x\nmarkets: all\n`, /venue: expected an http\(s\) URL/],
    [`venue: mainnet\n`, /markets: expected a list of markets/],
    [`venue: mainnet\nmarkets: []\n`, /markets: expected a non-empty list/],
    [`venue: mainnet\nmarkets:\n  - { id: "0x12" }\n`, /markets\[0\]\.id: expected a market id \(0x \+ 64 hex digits\), got "0x12"/],
    [`venue: mainnet\nmarkets:\n  - { slug: a, all: true }\n`, /markets\[0\]: expected exactly one of id, slug, filter, all or rank, got slug and all/],
    [`venue: mainnet\nmarkets:\n  - { slug: a, strategy: bandz }\n`, /markets\[0\]\.strategy: expected a loadable strategy \(unknown strategy "bandz"/],
    [
      `venue: mainnet\nmarkets:\n  - { filter: { status: open } }\n`,
      /markets\[0\]\.filter\.status: expected one of active, pending, resolved, closed, got "open"/,
    ],
    [`venue: { local: { seed: -1 } }\n`, /venue\.local\.seed: expected an integer in \[0, 4294967295\], got -1/],
    [`venue: { local: {}, baseUrl: "http://x" }\n`, /venue\.baseUrl: expected either baseUrl or local, not both/],
    [`- a\n- b\n`, /^config\/t\.yaml: \(root\): expected a mapping, got a list/],
    [`a: [1,\n`, /^config\/t\.yaml:\d+: invalid YAML/],
    [`venue: mainnet\nvenue: testnet\n`, /invalid YAML: Map keys must be unique/],
  ];
  for (const [text, re] of rows) await rejects(text, re);
});

test('unquoted 0x ids stay exact; unquoted 0x secrets are still caught', async () => {
  const raw = '0x00' + 'ab'.repeat(31);
  const c = await parseConfigText(`venue: mainnet\nmarkets:\n  - id: ${raw}\n`, 'x.yaml', { env: {} });
  assert.deepEqual(c.markets[0]!.select, { by: 'id', id: raw });
  await rejects(`${base}wallet:\n  keyFile: 0x${'9'.repeat(64)}\n`, /wallet\.keyFile: a value that looks like a private key/);
});

test('secrets in YAML are refused without echoing them', async () => {
  const key = 'f'.repeat(64);
  const rows: [string, RegExp][] = [
    [`${base}privateKey: "0x${key}"\n`, /^config\/t\.yaml: privateKey: a secret-named key: secrets are not allowed in config files; set BOOKMAKER_PRIVATE_KEY/],
    [`${base}venue2:\n  apiKey: ctx_abcdefghijklmnop\n`, /venue2\.apiKey: a secret-named key/],
    [`${base}wallet:\n  api_secret: x\n`, /wallet\.api_secret: a secret-named key/],
    [`${base}wallet:\n  keyFile: "0x${key}"\n`, /wallet\.keyFile: a value that looks like a private key/],
    [`${base}defaults:\n  strategy: { name: bands, params: { note: "${key}" } }\n`, /defaults\.strategy\.params\.note: a value that looks like a private key/],
  ];
  for (const [text, re] of rows) {
    const msg = await rejects(text, re);
    assert.ok(!msg.includes(key) && !msg.includes('ctx_abcdefghijklmnop'), 'the secret is not echoed');
  }
  // a 32-byte market id is not a secret
  await parseConfigText(base, 'x.yaml');
});

test('environment overrides', async () => {
  const local = 'venue: local\nmarkets: all\ndefaults:\n  strategy: { name: bands, params: { fair: mid } }\n';
  const c1 = await parseConfigText(local, 'x.yaml', {
    env: { BOOKMAKER_METRICS_PORT: '0', BOOKMAKER_LOG_LEVEL: 'debug', BOOKMAKER__defaults__risk__maxPosition: '25', BOOKMAKER_HALTED: 'true', UNRELATED: 'x' },
  });
  assert.equal(c1.metrics.port, 0);
  assert.equal(c1.logging.level, 'debug');
  assert.equal(c1.markets[0]!.risk.maxPosition, 25 * S);
  assert.equal(c1.markets[0]!.risk.halted, true);
  // --base-url / BOOKMAKER_BASE_URL replaces even the embedded local exchange
  const c2 = await parseConfigText(local, 'x.yaml', { env: { BOOKMAKER_BASE_URL: 'http://127.0.0.1:8787/v2/' } });
  assert.deepEqual(c2.venue, { kind: 'url', baseUrl: 'http://127.0.0.1:8787/v2', chain: 'mainnet' });
  const c3 = await parseConfigText(base, 'x.yaml', { env: { BOOKMAKER_VENUE: 'testnet' } });
  assert.equal(c3.venue.kind, 'testnet');
  // switching strategy drops the old one's params instead of failing on them
  const c4 = await parseConfigText(local, 'x.yaml', { env: { BOOKMAKER_STRATEGY: 'avellaneda' } });
  assert.equal(c4.markets[0]!.strategy.ref, 'avellaneda');
  // explicit overrides (CLI) win over env
  const c5 = await parseConfigText(local, 'x.yaml', { env: { BOOKMAKER_METRICS_PORT: '1234' }, overrides: { 'metrics.port': 4321 } });
  assert.equal(c5.metrics.port, 4321);
  // a bad env value names the variable
  await rejects(local, /^config\/t\.yaml: \(set by BOOKMAKER_METRICS_PORT\) metrics\.port: expected an integer in \[0, 65535\], got "lots"$/, {
    env: { BOOKMAKER_METRICS_PORT: 'lots' },
  });
  await rejects(local, /\(set by BOOKMAKER__defaults__risk__maxPosition\) defaults\.risk\.maxPosition/, {
    env: { BOOKMAKER__defaults__risk__maxPosition: '0' },
  });
  await rejects(local, /refused key "__proto__"/, { overrides: { '__proto__.polluted': 1 } });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  // a key-like value pushed in through an override is refused without being echoed
  const leaked = await rejects(local, /after environment overrides\): logging\.level: a value that looks like a private key/, {
    env: { BOOKMAKER_LOG_LEVEL: '0x' + '7'.repeat(64) },
  });
  assert.ok(!leaked.includes('7'.repeat(64)));
  // secrets in env are not config: ignored here
  const c6 = await parseConfigText(local, 'x.yaml', { env: { BOOKMAKER_PRIVATE_KEY: '0x' + '1'.repeat(64), BOOKMAKER_API_KEY: 'k' } });
  assert.ok(!JSON.stringify(c6, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).includes('1'.repeat(64)));
});

test('a user strategy module by path relative to the config file', async () => {
  writeFileSync(
    join(dir, 'mine.ts'),
    `import { ConfigError } from '${new URL('../../src/model/errors.ts', import.meta.url).pathname}';
export default { name: 'mine', parseConfig(raw, path) { if (typeof raw.edge !== 'number') throw new ConfigError(path + '.edge: expected a number'); return raw; }, quote: () => [] };\n`,
  );
  const file = join(dir, 'bot.yaml');
  writeFileSync(file, `venue: local\ndefaults:\n  strategy: { name: ./mine.ts, params: { edge: 1 } }\n`);
  const c = await loadConfig(file, { env: {} });
  assert.equal(c.markets[0]!.strategy.module.name, 'mine');
  writeFileSync(file, `venue: local\ndefaults:\n  strategy: { name: ./mine.ts, params: { edge: x } }\n`);
  await assert.rejects(
    loadConfig(file, { env: {} }),
    (e: unknown) => e instanceof ConfigError && e.message === `${file}: defaults.strategy.params.edge: expected a number`,
  );
  await assert.rejects(
    loadConfig(join(dir, 'missing.yaml'), { env: {} }),
    (e: unknown) => e instanceof ConfigError && /missing\.yaml: cannot read the config file \(ENOENT\)/.test(e.message),
  );
});

test('parseBotConfig accepts an object (defaults for everything optional)', async () => {
  const c = await parseBotConfig({ venue: 'local' }, { env: {} });
  assert.equal(c.venue.kind, 'local');
  assert.deepEqual(
    c.markets.map((m) => m.select),
    [{ by: 'all' }],
  );
  assert.equal(c.orders.batchLimit, 50);
  assert.equal(c.metrics.host, '127.0.0.1');
  if (c.venue.kind === 'local') assert.equal(c.venue.local.seed, 42);
});

test('venue.local.faults: the fault profiles of sim and chaos, with single settings overridden; old names and keys refused precisely', async () => {
  const local = (faults: string) => `venue:\n  local:\n    faults: ${faults}\nmarkets: all\n`;
  const faultsOf = async (f: string) => {
    const c = await parseConfigText(local(f), 'x.yaml', { env: {} });
    assert.equal(c.venue.kind, 'local');
    if (c.venue.kind !== 'local') throw new Error('unreachable');
    return faultSettingsOf(c.venue.local.faults.profile, c.venue.local.faults.overrides);
  };
  for (const name of ['none', 'latency', 'slow', 'flaky', 'streams', 'mixed', 'heavy'] as const)
    assert.deepEqual(await faultsOf(name), FAULT_PROFILES[name], name);
  assert.deepEqual(await faultsOf('{ profile: streams, errorRate: 0.1, latencyMs: 30 }'), { ...FAULT_PROFILES.streams, errorRate: 0.1, latencyMs: 30 });
  assert.deepEqual(await faultsOf('{ streamStallRate: 0.5 }'), { ...FAULT_PROFILES.none, streamStallRate: 0.5 });
  await rejects(
    local('chaos'),
    /venue\.local\.faults\.profile: expected one of none, latency, slow, flaky, streams, mixed, heavy \('chaos' is the old name of 'mixed'\), got "chaos"/,
  );
  await rejects(local('light'), /venue\.local\.faults\.profile: .*'light' is not a profile.*'flaky' is the nearest/);
  await rejects(local('{ profile: heavy, stallEverySeconds: 10 }'), /venue\.local\.faults\.stallEverySeconds: .*use streamStallRate/);
  await rejects(local('{ errorRate: 2 }'), /venue\.local\.faults\.errorRate: expected a number in \[0, 1\], got 2/);
  await rejects(local('{ burst429Length: 2.5 }'), /venue\.local\.faults\.burst429Length/);
});
