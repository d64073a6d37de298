/**
 * The doctor's checks that need no venue, and the pieces it shares with the bot: limits, the capital
 * the limits can use, the ledger file (owner, writability), the clock, the migration preview (against
 * what runStartupMigration then does), and the human report.
 */
import assert from 'node:assert/strict';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { BotConfig } from '../../src/config/types.ts';
import { MAINNET, TESTNET } from '../../src/exchange/chains.ts';
import { addressOf } from '../../src/model/ids.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { formatDoctor } from '../../src/cli/commands/doctor.ts';
import { usdcText } from '../../src/doctor/check.ts';
import { capitalNeeded, checkInheritedHistory, checkLedger, checkLimits } from '../../src/doctor/local-checks.ts';
import type { HistorySource } from '../../src/ledger/baseline.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';
import { shardOf, withShard } from '../../src/selection/shard.ts';
import { checkClock, checkMigration } from '../../src/doctor/venue-checks.ts';
import { migrationPreview, runStartupMigration } from '../../src/migration/startup-migration.ts';
import { FakeMigrationApi, SteppingClock } from '../migration/fake-migration-api.ts';

const dir = mkdtempSync(join(tmpdir(), 'bookmaker-doctor-checks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function config(risk: string, extra = '', file = join(dir, 'bot.yaml')): Promise<BotConfig> {
  const text = `venue: testnet\ndefaults:\n  strategy:\n    name: bands\n    params:\n      bands:\n        - { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }\n  risk:\n${risk}\nmarkets:\n  - all: true\n${extra}`;
  writeFileSync(file, text);
  return parseConfigText(text, file, { env: {} });
}

describe('limits', () => {
  it('consistent limits are ok', async () => {
    const r = checkLimits(await config('    maxPosition: 100\n    maxOrderSize: 20\n    maxNotional: 50\n    maxTotalNotional: 200'));
    assert.equal(r.result, 'ok', r.detail);
  });
  it('an order size above the position limit, and a per-market limit above the account-wide one, warn and say which', async () => {
    const r = checkLimits(await config('    maxPosition: 10\n    maxOrderSize: 20\n    maxNotional: 300\n    maxTotalNotional: 200'));
    assert.equal(r.result, 'warn');
    assert.match(r.detail, /markets\[0\]\.risk\.maxOrderSize 20 exceeds maxPosition 10/);
    assert.match(r.detail, /maxNotional 300\.00 exceeds the account-wide maxTotalNotional 200\.00/);
  });
  it('an order size below the venue minimum fails', async () => {
    const r = checkLimits(await config('    maxOrderSize: 0.001'));
    assert.equal(r.result, 'fail');
    assert.match(r.detail, /below the venue's smallest order \(0\.01 shares\)/);
  });
  it('the capital the limits can use: Σ maxNotional, capped by maxTotalNotional, to the unit', () => {
    const m = (maxNotional: number, maxTotalNotional = 0) => ({ risk: { maxNotional, maxTotalNotional } }) as never;
    assert.equal(capitalNeeded([m(150_000_001), m(150_000_000)]), 300_000_001n);
    assert.equal(capitalNeeded([m(150_000_000, 200_000_000), m(150_000_000, 200_000_000)]), 200_000_000n);
    assert.equal(capitalNeeded([]), 0n);
    assert.equal(usdcText(300_000_001n), '300.00');
    assert.equal(usdcText(9_999n), '0.00');
  });
});

describe('ledger', () => {
  it('a ledger file owned by another account fails and names both uids', { skip: process.getuid?.() !== 0 && 'needs root to chown' }, async () => {
    const path = join(dir, 'theirs.sqlite');
    writeFileSync(path, '');
    chownSync(path, 4321, 4321);
    const r = checkLedger(await config('    maxPosition: 100', `ledger:\n  path: ${path}\n`), false);
    assert.equal(r.result, 'fail');
    assert.match(r.detail, /owned by uid 4321, this account is uid 0/);
    assert.match(r.fix, /chown 0/);
  });
  it('a ledger to be created in a writable folder is ok; in memory on a live config warns', async () => {
    assert.equal(checkLedger(await config('    maxPosition: 100', `ledger:\n  path: ${join(dir, 'new', 'deeper', 'l.sqlite')}\n`), false).result, 'ok');
    const mem = checkLedger(await config('    maxPosition: 100', "ledger:\n  path: ':memory:'\n"), false);
    assert.equal(mem.result, 'warn');
    assert.match(mem.detail, /not kept across restarts/);
  });
});

describe('clock', () => {
  it('within 2 s ok, beyond it warns, beyond 30 s or half the dead-man expiry fails', async () => {
    const c = await config('    maxPosition: 100', 'orders:\n  deadManExpirySeconds: 20\n');
    assert.equal(checkClock({ skewMs: 1_500 }, c).result, 'ok');
    assert.equal(checkClock({ skewMs: -5_000 }, c).result, 'warn');
    assert.match(checkClock({ skewMs: -5_000 }, c).detail, /5\.0 s ahead of the venue/);
    assert.equal(checkClock({ skewMs: 11_000 }, c).result, 'fail');
    assert.equal(checkClock({ skewMs: null }, c).result, 'warn');
  });
});

describe('migration', () => {
  const signer = createSigner({ privateKey: '0x' + '11'.repeat(32), chain: MAINNET });
  it('the preview names the steps runStartupMigration then takes', async () => {
    const clock = new SteppingClock();
    const future = Math.floor(clock.now() / 1000) + 86_400;
    const api = new FakeMigrationApi(clock, {
      chunks: [5_000_000n],
      orders: [
        { id: 1, expiry: future },
        { id: 2, expiry: future },
      ],
    });
    const status = await api.status();
    const preview = migrationPreview(status);
    assert.equal(preview.blocker, null);
    assert.deepEqual(
      preview.steps.map((s) => s.split(' ')[0]),
      ['start', 'migrate'],
    );
    const r = checkMigration(status, MAINNET);
    assert.equal(r.result, 'warn');
    assert.match(
      r.detail,
      /the start-up migration will: start \(retires 2 legacy open order\(s\), then restores them as V2 orders or dismisses them\); migrate funds \(1 chunk\(s\), sponsored\)/,
    );
    const done = await runStartupMigration({ api, signer, clock, pollIntervalMs: 1000, maxWaitMs: 60_000 });
    assert.deepEqual(
      done.steps.filter((s) => s === 'start' || s === 'migrate-funds'),
      ['start', 'migrate-funds'],
    );
    // and afterwards the preview has nothing left to do
    const after = await api.status();
    assert.deepEqual(migrationPreview(after).steps, []);
    assert.equal(checkMigration(after, MAINNET).result, 'ok');
  });
  it('a funds migration that cannot be signed is a blocker (fail); no operator approval fails; another chain fails', async () => {
    const clock = new SteppingClock();
    const api = new FakeMigrationApi(clock, { chunks: [5_000_000n] });
    const s = await api.status();
    const blocked = checkMigration({ ...s, sponsoredFundsMigrationAvailable: false }, MAINNET);
    assert.equal(blocked.result, 'fail');
    assert.match(blocked.detail, /cannot migrate funds: sponsored funds migration unavailable/);
    const unapproved = checkMigration({ ...s, migrationActive: false, v2OperatorApproved: false }, MAINNET);
    assert.equal(unapproved.result, 'fail');
    assert.match(unapproved.detail, /MISSING_OPERATOR_APPROVAL/);
    const other = checkMigration({ ...s, settlementV2Address: addressOf(TESTNET.settlementV2)! }, MAINNET);
    assert.equal(other.result, 'fail');
    assert.match(other.detail, /wrong contract/);
  });
});

describe('the human report', () => {
  it('one line per check, the fix under what is not ok, and the verdict', () => {
    const text = formatDoctor([
      { name: 'venue', result: 'ok', detail: 'answers', fix: '' },
      { name: 'collateral', result: 'fail', detail: 'limits larger than the collateral', fix: 'deposit' },
    ]);
    assert.equal(
      text,
      'ok    venue       answers\nFAIL  collateral  limits larger than the collateral\n                  fix: deposit\n\ndoctor: 1 ok, 0 warn, 1 fail: NOT ready to go live (exit 1)\n',
    );
  });
});

describe('the human report, checks not run', () => {
  it('consecutive checks not run for one reason share a line; the verdict counts each', () => {
    const nc = (name: string) => ({ name, result: 'fail' as const, detail: 'not checked: the venue check failed', fix: 'fix the venue check first' });
    const text = formatDoctor([
      { name: 'venue', result: 'fail', detail: 'cannot connect', fix: 'check the base URL' },
      nc('clock'),
      nc('api-key'),
      { name: 'limits', result: 'ok', detail: 'fine', fix: '' },
    ]);
    assert.equal(
      text,
      'FAIL  venue    cannot connect\n               fix: check the base URL\nFAIL  clock, api-key\n               not checked: the venue check failed\n               fix: fix the venue check first\nok    limits   fine\n\ndoctor: 1 ok, 0 warn, 3 fail: NOT ready to go live (exit 1)\n',
    );
  });
});

describe('the new-ledger check, for a shard of a shared wallet', () => {
  const wallet = ('0x' + '33'.repeat(20)) as Address;
  // two markets that two shards split between them
  const ids = Array.from({ length: 16 }, (_, i) => ('0x' + i.toString(16).padStart(2, '0').repeat(32)) as Bytes32);
  const mine = ids.find((id) => shardOf(id, 2) === 0)!;
  const sibling = ids.find((id) => shardOf(id, 2) === 1)!;
  const venue = (orderMarkets: string[]): HistorySource =>
    ({
      balance: { summary: async () => ({ usdc: { balance: 5_000_000n, settlementBalance: 0n }, outcomeTokens: [] }) },
      orders: {
        async *iterate() {
          for (const [i, m] of orderMarkets.entries()) yield { marketId: m as Bytes32, nonce: ('0x' + String(i).padStart(64, '0')) as Bytes32 } as VenueOrder;
        },
      },
    }) as unknown as HistorySource;

  it("a sibling shard's orders do not make shard 0's first start look refused (as `run --shard` reads them)", async () => {
    const cfg = withShard(await config('    maxPosition: 100', `ledger:\n  path: ${join(dir, 'shard0.sqlite')}\n`), { index: 0, count: 2 });
    const r = await checkInheritedHistory(cfg, false, venue([sibling, sibling]), wallet);
    assert.equal(r?.result, 'ok', r?.detail);
  });

  it("an order in the shard's own markets is history: the check warns that `run` would refuse, naming the shard", async () => {
    const cfg = withShard(await config('    maxPosition: 100', `ledger:\n  path: ${join(dir, 'shard0.sqlite')}\n`), { index: 0, count: 2 });
    const r = await checkInheritedHistory(cfg, false, venue([sibling, mine]), wallet);
    assert.equal(r?.result, 'warn');
    assert.match(r!.detail, /order history in shard 0\/2's markets/);
  });

  it('a lone instance counts every order of the wallet', async () => {
    const cfg = await config('    maxPosition: 100', `ledger:\n  path: ${join(dir, 'lone.sqlite')}\n`);
    const r = await checkInheritedHistory(cfg, false, venue([sibling]), wallet);
    assert.equal(r?.result, 'warn');
  });
});
