import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAINNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { restorationBody } from '../../src/migration/restoration-body.ts';
import { MigrationError, randomUint128, runStartupMigration, type MigrationApi, type MigrationOptions } from '../../src/migration/startup-migration.ts';
import type { createVenueClient } from '../../src/exchange/venue-client.ts';
import { BadResponseError } from '../../src/model/errors.ts';
import { FakeMigrationApi, SteppingClock, WALLET, type Interrupt } from './fake-migration-api.ts';

// A throwaway test key; its address is the fake venue's wallet.
const KEY = '0x' + '11'.repeat(32);
const signer = createSigner({ privateKey: KEY, chain: MAINNET });

function setup(api: (clock: SteppingClock) => FakeMigrationApi, opts: Partial<MigrationOptions> = {}) {
  const clock = new SteppingClock();
  const venue = api(clock);
  const run = () => runStartupMigration({ api: venue, signer, clock, pollIntervalMs: 1000, maxWaitMs: 60_000, ...opts });
  return { clock, venue, run };
}

const future = (clock: SteppingClock, s: number) => Math.floor(clock.now() / 1000) + s;
const legacy = (clock: SteppingClock, opts: { chunks?: bigint[] } = {}) =>
  new FakeMigrationApi(clock, {
    ...opts,
    orders: [
      { id: 1, expiry: future(clock, 86_400) },
      { id: 2, expiry: future(clock, 86_400) },
      { id: 3, expiry: future(clock, 10) },
    ],
  });

describe('start-up migration', () => {
  it('does nothing when migration is inactive', async () => {
    const { venue, run } = setup((c) => {
      const v = new FakeMigrationApi(c);
      v.active = false;
      return v;
    });
    const r = await run();
    assert.equal(r.outcome, 'not-needed');
    assert.deepEqual(venue.calls, ['status']);
  });

  it('does nothing for a wallet that is already complete', async () => {
    const { venue, run } = setup((c) => {
      const v = new FakeMigrationApi(c, { chunks: [] });
      v.opApproved = true;
      return v;
    });
    assert.equal((await run()).outcome, 'not-needed');
    assert.deepEqual(venue.calls, ['status']);
  });

  it('start → funds (one chunk, single body) → restore → dismiss the nearly expired → ready', async () => {
    const { venue, run } = setup((c) => withTrader(legacy(c)));
    const r = await run();
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(r.steps, ['status', 'start', 'migrate-funds', 'restore-orders', 'dismiss-orders', 'ready']);
    assert.deepEqual(
      { retired: r.retired, chunks: r.fundsChunks, restored: r.restored, dismissed: r.dismissed },
      { retired: 3, chunks: 1, restored: 2, dismissed: 1 },
    );
    assert.equal(venue.fundsBodies[0]!.batchWithdraws.length, 1);
    assert.deepEqual(
      venue.orders.map((o) => o.status),
      ['restored', 'restored', 'dismissed'],
    );
    // the restored orders' nonces: the start-up tells them from another trader's (src/runtime/phases/wallet.ts)
    assert.deepEqual(
      r.restoredNonces,
      venue.restoredBodies.map((b) => (b as { nonce: string }).nonce.toLowerCase()),
    );
    assert.equal(r.restoredNonces.length, 2);
  });

  it('many chunks: one BatchWithdraw per chunk with distinct uint128 nonces and one shared deadline', async () => {
    const { venue, run } = setup((c) => withTrader(legacy(c, { chunks: [1n, 2n, 3n] })));
    const r = await run();
    assert.equal(r.fundsChunks, 3);
    assert.equal(venue.fundsBodies[0]!.batchWithdraws.length, 3);
  });

  it("setting 'dismiss' dismisses every retired order and restores none", async () => {
    const { venue, run } = setup((c) => withTrader(legacy(c)), { restore: 'dismiss' });
    const r = await run();
    assert.equal(r.restored, 0);
    assert.equal(r.dismissed, 3);
    assert.ok(!venue.calls.includes('restoreOrders'));
  });

  it('a restore the venue refuses is dismissed so the wallet is not left blocked', async () => {
    const { venue, run } = setup((c) => {
      const v = withTrader(legacy(c));
      v.refuseRestore.add(2);
      return v;
    });
    const r = await run();
    assert.equal(r.outcome, 'completed');
    assert.equal(r.failedRestorations, 1);
    assert.deepEqual(
      venue.orders.map((o) => o.status),
      ['restored', 'dismissed', 'dismissed'],
    );
  });

  it('waits while the sponsored funds migration is pending, without resubmitting', async () => {
    const { venue, run } = setup((c) => {
      const v = withTrader(new FakeMigrationApi(c));
      v.pendingReads = 3;
      return v;
    });
    const r = await run();
    assert.equal(venue.fundsApplied, 1);
    assert.ok(r.steps.filter((s) => s === 'wait').length >= 2);
    assert.equal(r.steps.at(-1), 'ready');
  });

  it('gives up with a MigrationError when trading is not allowed in time', async () => {
    const { run } = setup(
      (c) => {
        const v = withTrader(new FakeMigrationApi(c));
        v.pendingReads = 1_000_000;
        return v;
      },
      { maxWaitMs: 10_000 },
    );
    await assert.rejects(run(), (e: unknown) => e instanceof MigrationError && /did not complete/.test(e.message));
  });

  const interrupts: Interrupt[] = (['start', 'migrateFunds', 'restoreOrders', 'dismissOrders'] as const).flatMap((call) =>
    (['before', 'after'] as const).map((when) => ({ call, when })),
  );
  for (const it_ of interrupts) {
    it(`interrupted at ${it_.call} (${it_.when} the venue applied it) and re-run: completes, nothing applied twice`, async () => {
      const { venue, run } = setup((c) => withTrader(legacy(c)));
      venue.interrupt = it_;
      await assert.rejects(run());
      const r = await run();
      // an answer lost after the last step leaves nothing to do on the re-run
      assert.equal(r.outcome, it_.call === 'dismissOrders' && it_.when === 'after' ? 'not-needed' : 'completed');
      assert.equal(venue.startApplied, 1);
      assert.equal(venue.fundsApplied, 1);
      assert.ok(venue.orders.every((o) => o.status === 'restored' || o.status === 'dismissed'));
      assert.equal(venue.restoredBodies.length, venue.orders.filter((o) => o.status === 'restored').length);
    });
  }
});

describe('migration helpers', () => {
  it('randomUint128 reads 16 bytes big-endian', () => {
    assert.equal(
      randomUint128(() => Uint8Array.from({ length: 16 }, (_, i) => (i === 15 ? 1 : 0))),
      '1',
    );
    assert.equal(
      randomUint128(() => new Uint8Array(16).fill(0xff)),
      String(2n ** 128n - 1n),
    );
    assert.equal(
      randomUint128(() => Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? 1 : 0))),
      String(2n ** 120n),
    );
  });

  it('restorationBody reuses nonce/expiry/maxFee, sizes by remainingSize, and names a bad field', () => {
    const v = new FakeMigrationApi(new SteppingClock(), { orders: [{ id: 7, expiry: 2_000_000_000 }] });
    const draft: Record<string, unknown> = { ...v.orders[0]!.draft, trader: signer.address };
    const body = restorationBody(draft, signer.address);
    assert.deepEqual(
      [body.nonce, body.expiry, body.maxFee, body.size, body.timeInForce, body.clientOrderType],
      [draft.nonce, draft.expiry, draft.maxFee, '7000000', 0, 'limit'],
    );
    assert.equal('buyValue' in body, false);
    assert.throws(
      () => restorationBody({ ...draft, maxFee: 12 }, signer.address, 'd'),
      (e: unknown) => e instanceof BadResponseError && e.field === 'd.maxFee',
    );
    assert.throws(
      () => restorationBody({ ...draft, trader: WALLET.replace('2', '9') }, signer.address, 'd'),
      (e: unknown) => e instanceof BadResponseError && e.field === 'd.trader',
    );
  });
});

/** The fake's drafts name the wallet; point them at the test signer. */
function withTrader(v: FakeMigrationApi): FakeMigrationApi {
  for (const o of v.orders) o.draft.trader = signer.address;
  return v;
}

describe('wiring', () => {
  it("the venue client's migration object is a MigrationApi (checked by the type checker)", () => {
    type ClientMigration = ReturnType<typeof createVenueClient>['migration'];
    const accepts = (api: MigrationApi): MigrationApi => api;
    const typed: (c: ClientMigration) => MigrationApi = accepts;
    assert.equal(typeof typed, 'function');
  });
});
