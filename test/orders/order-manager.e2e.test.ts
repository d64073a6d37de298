/**
 * The order manager against the real local exchange over HTTP (signed orders, real bulk and
 * cancel-replace answers, paged open orders): quotes appear one per slot, requotes move them,
 * a restarted manager adopts what it finds instead of double-quoting, and cancelAll leaves nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keccakText } from '../../src/exchange/signing/text-hash.ts';
import { systemClock } from '../../src/core/clock.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { DesiredOrder } from '../../src/orders/diff.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { runStartupMigration } from '../../src/migration/startup-migration.ts';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { installMigration } from '../../src/sim/migration/install.ts';
import { httpVenue } from './http-venue.ts';

const signer = createSigner({ privateKey: keccakText('order-manager-e2e'), chain: TESTNET });
const legacy = createSigner({ privateKey: keccakText('order-manager-e2e-legacy'), chain: TESTNET });

/** Far from the market so simulated takers leave them alone: YES bids at 10¢/8¢, YES asks as NO buys (asks at 90¢/92¢). */
function quotes(marketId: Bytes32, shift = 0): DesiredOrder[] {
  return [0, 1].flatMap((level) => [
    {
      slot: `${marketId}:bid:${level}`,
      order: { marketId, outcomeIndex: 1 as const, side: 0 as const, price: 100_000 - level * 20_000 + shift, size: 5_000_000 },
    },
    {
      slot: `${marketId}:ask:${level}`,
      order: { marketId, outcomeIndex: 0 as const, side: 0 as const, price: 100_000 - level * 20_000 + shift, size: 3_000_000 },
    },
  ]);
}

describe('OrderManager against the local exchange', () => {
  let ex: LocalExchange;
  let client: ReturnType<typeof createVenueClient>;
  let market: Bytes32;

  before(async () => {
    ex = createLocalExchange({
      seed: 11,
      markets: 1,
      apiKeys: [
        { key: 'om-key', wallet: signer.address },
        { key: 'legacy-key', wallet: legacy.address },
      ],
      expirySweepMs: 0,
    });
    market = [...ex.state.stores.markets.values()][0]!.id as Bytes32;
    client = createVenueClient({ baseUrl: await ex.start(0), apiKey: 'om-key', chain: TESTNET });
  });
  after(async () => {
    await client.close();
    await ex.close();
  });

  const open = async () => (await httpVenue(client, signer).openOrders(market)).filter((o) => o.status === 'open');
  const manager = () =>
    new OrderManager({ venue: httpVenue(client, signer), clock: systemClock, tolerances: { price: 5_000, sizeFraction: 0.1 }, cancelAllDelayMs: 50 });

  it('quotes, requotes, survives a restart without double-quoting, and cancels everything', async () => {
    const om = manager();
    assert.equal(await om.reconcile(undefined, quotes(market)), true);
    await om.sync(market, quotes(market));
    assert.equal((await open()).length, 4);

    await om.sync(market, quotes(market, 10_000)); // every quote moves by 1¢: one mixed bulk call
    const moved = await open();
    assert.equal(moved.length, 4);
    assert.deepEqual(
      moved.map((o) => o.price).sort((a, b) => a - b),
      [90_000, 90_000, 110_000, 110_000],
    );

    // restart: a fresh manager finds the four orders and adopts them all (buys read back in shares)
    const adopted: string[] = [];
    const om2 = new OrderManager({
      venue: httpVenue(client, signer),
      clock: systemClock,
      tolerances: { price: 5_000, sizeFraction: 0.1 },
      cancelAllDelayMs: 50,
      emit: (e) => e.type === 'OrderAdopted' && adopted.push(e.slot),
    });
    await om2.reconcile(undefined, quotes(market, 10_000));
    assert.equal(adopted.length, 4);
    await om2.sync(market, quotes(market, 10_000));
    assert.equal((await open()).length, 4, 'no second set of quotes');

    const r = await om2.cancelAll();
    assert.equal(r.ok, true);
    assert.equal((await open()).length, 0);
  });

  it('409 migration blocks the market; after the start-up migration it quotes again', async () => {
    installMigration(ex.state, { legacyAccounts: [{ wallet: legacy.address, collateral: 20_000_000n }] });
    const c2 = createVenueClient({ baseUrl: ex.baseUrl()!, apiKey: 'legacy-key', chain: TESTNET });
    try {
      const venue = httpVenue(c2, legacy);
      const om = new OrderManager({ venue, clock: systemClock, tolerances: { price: 5_000, sizeFraction: 0.1 }, cancelAllDelayMs: 50 });
      await om.reconcile();
      await om.sync(market, quotes(market));
      assert.equal(om.isBlocked(market), true);
      assert.equal((await venue.openOrders(market)).length, 0);
      const report = await runStartupMigration({ api: c2.migration, signer: legacy, clock: systemClock, pollIntervalMs: 50, maxWaitMs: 10_000 });
      assert.equal(report.outcome, 'completed');
      om.resumeMarket(market);
      await om.sync(market, quotes(market));
      assert.equal((await venue.openOrders(market)).length, 4);
      assert.equal((await om.cancelAll()).ok, true);
    } finally {
      await c2.close();
    }
  });
});
