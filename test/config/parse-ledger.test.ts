/** The `ledger:` and `admin:` sections and the new loss limits. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBotConfig } from '../../src/config/parse-config.ts';
import { ledgerPath } from '../../src/ledger/bot-ledger.ts';

const base = { venue: 'testnet', markets: [{ id: '0x' + 'ab'.repeat(32) }] };

test('ledger.path is resolved against the config folder; the default lives beside the config', async () => {
  const c = await parseBotConfig({ ...base, ledger: { path: 'books/live.sqlite', markSeconds: 5 } }, { file: '/etc/bookmaker/live.yaml', env: {} });
  assert.equal(c.ledger.path, '/etc/bookmaker/books/live.sqlite');
  assert.equal(c.ledger.markMs, 5_000);
  assert.equal(ledgerPath(c, false), '/etc/bookmaker/books/live.sqlite');
  const d = await parseBotConfig(base, { file: '/etc/bookmaker/live.yaml', env: {} });
  assert.equal(ledgerPath(d, false), '/etc/bookmaker/.bookmaker/live.ledger.sqlite');
  assert.equal(ledgerPath(d, true), ':memory:', 'the embedded demo keeps none');
  assert.equal(d.admin.port, 9465);
  const e = await parseBotConfig(base, {
    file: '/etc/bookmaker/live.yaml',
    env: { BOOKMAKER_LEDGER_PATH: '/var/lib/bookmaker/l.sqlite', BOOKMAKER_ADMIN_PORT: '0' },
  });
  assert.equal(e.ledger.path, '/var/lib/bookmaker/l.sqlite');
  assert.equal(e.admin.port, 0);
});

test('account.maxDailyLoss and account.maxLoss are USDC (0 = off); bad values and unknown keys are refused precisely', async () => {
  const c = await parseBotConfig({ ...base, account: { maxDailyLoss: 50, maxLoss: 1000 } }, { file: 'f.yaml', env: {} });
  assert.equal(c.account.maxDailyLoss, 50_000_000);
  assert.equal(c.account.maxLoss, 1_000_000_000);
  await assert.rejects(
    parseBotConfig({ ...base, account: { maxDailyLoss: -1 } }, { file: 'f.yaml', env: {} }),
    /f\.yaml: account\.maxDailyLoss: expected a number/,
  );
  await assert.rejects(parseBotConfig({ ...base, ledger: { file: 'x' } }, { file: 'f.yaml', env: {} }), /ledger/);
  await assert.rejects(parseBotConfig({ ...base, admin: { port: 70000 } }, { file: 'f.yaml', env: {} }), /admin\.port/);
});

test('ledger.fees: the fee model for fills the venue states no fee for (default maker 0, taker 50 bps); bad values are refused', async () => {
  const d = await parseBotConfig({ ...base }, { file: '/etc/bookmaker/live.yaml', env: {} });
  assert.deepEqual(d.ledger.fees, { makerBps: 0, takerBps: 50 });
  const c = await parseBotConfig({ ...base, ledger: { fees: { makerBps: 2, takerBps: 30 } } }, { file: '/etc/bookmaker/live.yaml', env: {} });
  assert.deepEqual(c.ledger.fees, { makerBps: 2, takerBps: 30 });
  await assert.rejects(parseBotConfig({ ...base, ledger: { fees: { makerBps: 1.5 } } }, { file: '/etc/bookmaker/live.yaml', env: {} }), /ledger\.fees/);
  await assert.rejects(parseBotConfig({ ...base, ledger: { fees: { takerBps: -1 } } }, { file: '/etc/bookmaker/live.yaml', env: {} }), /ledger\.fees/);
  await assert.rejects(parseBotConfig({ ...base, ledger: { fees: { taker: 5 } } }, { file: '/etc/bookmaker/live.yaml', env: {} }), /taker/);
});
