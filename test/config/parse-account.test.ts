/** The `account:` section and the account limits' old place under `risk:`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBotConfig } from '../../src/config/parse-config.ts';
import { DEFAULT_ACCOUNT_LIMITS } from '../../src/account/account-risk.ts';

const base = { venue: 'testnet', markets: [{ id: '0x' + 'ab'.repeat(32) }] };
const parse = (doc: object) => parseBotConfig({ ...base, ...doc }, { file: 'f.yaml', env: {} });

test('account: limits in USDC, the trading day as a zone or an offset; defaults without the section', async () => {
  const c = await parse({
    account: { maxDrawdown: 25, maxDailyLoss: 10, maxLoss: 100, maxErrorRate: 0.25, minRequestsForErrorRate: 40, dayStartsAt: 'America/New_York' },
  });
  assert.deepEqual(c.account, {
    maxDrawdown: 25_000_000,
    maxDailyLoss: 10_000_000,
    maxLoss: 100_000_000,
    maxErrorRate: 0.25,
    minRequestsForErrorRate: 40,
    dayStartsAt: 'America/New_York',
  });
  assert.equal((await parse({ account: { dayStartsAt: '+05:30' } })).account.dayStartsAt, '+05:30');
  assert.deepEqual((await parse({})).account, DEFAULT_ACCOUNT_LIMITS);
  await assert.rejects(
    parse({ account: { dayStartsAt: 'Mars/Olympus' } }),
    /f\.yaml: account\.dayStartsAt: expected an IANA time zone \(Europe\/London\) or a UTC offset \(\+02:00\), got "Mars\/Olympus"/,
  );
  await assert.rejects(parse({ account: { maxPosition: 5 } }), /account\.maxPosition: expected a known key/);
});

test('an account limit under risk: (defaults or a market) says where it went', async () => {
  for (const k of ['maxDrawdown', 'maxDailyLoss', 'maxLoss', 'maxErrorRate', 'minRequestsForErrorRate']) {
    await assert.rejects(
      parse({ defaults: { risk: { [k]: 1 } } }),
      new RegExp(
        `^ConfigError: f\\.yaml: defaults\\.risk\\.${k}: ${k} is an account limit now: move it to the top-level \`account:\` section \\(account\\.${k}\\)`,
      ),
    );
  }
  await assert.rejects(
    parse({ markets: [{ id: '0x' + 'ab'.repeat(32), risk: { maxDrawdown: 5 } }] }),
    /f\.yaml: markets\[0\]\.risk\.maxDrawdown: maxDrawdown is an account limit now/,
  );
});
