import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';

const parse = (markets: string) => parseConfigText(`venue: mainnet\n${markets}`, 'x.yaml', { env: {} });

test('markets as a list: the selection defaults (refresh every 60 s, 200 markets, no shard)', async () => {
  const c = await parse('markets:\n  - all: true\n');
  assert.deepEqual(c.selection, { refreshMs: 60_000, maxMarkets: 200, shard: null });
  assert.equal(c.markets.length, 1);
});

test('markets as a mapping: refreshSeconds, maxMarkets, shard and the entries under select', async () => {
  const c = await parse('markets:\n  refreshSeconds: 2.5\n  maxMarkets: 30\n  shard: 1/3\n  select:\n    - slug: a\n    - all: true\n');
  assert.deepEqual(c.selection, { refreshMs: 2_500, maxMarkets: 30, shard: { index: 1, count: 3 } });
  assert.deepEqual(
    c.markets.map((m) => m.select.by),
    ['slug', 'all'],
  );
  const off = await parse('markets:\n  refreshSeconds: 0\n  select: all\n');
  assert.equal(off.selection.refreshMs, 0);
  assert.deepEqual(
    off.markets.map((m) => m.select.by),
    ['all'],
  );
});

test('bad selection settings are clear errors with their path', async () => {
  await assert.rejects(parse('markets:\n  shard: 2/2\n  select: all\n'), /markets\.shard: expected I\/N/);
  await assert.rejects(parse('markets:\n  shard: x\n  select: all\n'), /markets\.shard/);
  await assert.rejects(parse('markets:\n  refreshSeconds: -1\n  select: all\n'), /markets\.refreshSeconds/);
  await assert.rejects(parse('markets:\n  maxMarkets: 0\n  select: all\n'), /markets\.maxMarkets/);
  await assert.rejects(parse('markets:\n  refresh: 5\n  select: all\n'), /markets.*refresh/);
  await assert.rejects(parse('markets:\n  refreshSeconds: 5\n'), /markets\.select/);
  await assert.rejects(parse('markets:\n  select: []\n'), /markets\.select/);
  await assert.rejects(parse('markets:\n  select:\n    - bogus: 1\n'), /markets\.select\[0\]|markets\.select\.0/);
});
