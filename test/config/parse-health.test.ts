import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.ts';

const ID = '0x' + '11'.repeat(32);
const base = `venue: mainnet\nmarkets:\n  - id: "${ID}"\n`;

test('health: and orders.reconcileScope default as documented', async () => {
  const c = await parseConfigText(base, 'config/t.yaml', { env: {} });
  assert.deepEqual(c.health, { notQuotingGraceMs: 30_000, strategyBudgetMs: 50, logIntervalMs: 10_000 });
  assert.equal(c.orders.reconcileScope, 'wallet');
});

test('health: and orders.reconcileScope are read and validated with exact paths', async () => {
  const c = await parseConfigText(
    `${base}health: { notQuotingGraceSeconds: 12.5, strategyBudgetMs: 20, logIntervalSeconds: 60 }\norders: { reconcileScope: markets }\n`,
    'config/t.yaml',
    { env: {} },
  );
  assert.deepEqual(c.health, { notQuotingGraceMs: 12_500, strategyBudgetMs: 20, logIntervalMs: 60_000 });
  assert.equal(c.orders.reconcileScope, 'markets');
  await assert.rejects(
    parseConfigText(`${base}health: { notQuotingGraceSeconds: 0 }\n`, 'config/t.yaml', { env: {} }),
    /config\/t\.yaml: health\.notQuotingGraceSeconds: expected/,
  );
  await assert.rejects(parseConfigText(`${base}health: { graceSeconds: 5 }\n`, 'config/t.yaml', { env: {} }), /health/);
  await assert.rejects(parseConfigText(`${base}orders: { reconcileScope: everything }\n`, 'config/t.yaml', { env: {} }), /orders\.reconcileScope/);
});
