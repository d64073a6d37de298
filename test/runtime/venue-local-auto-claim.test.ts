/**
 * `venue.local.autoClaimAfterSeconds` reaches the embedded exchange (src/runtime/venue-setup.ts): with it set,
 * a resolved market's holders are claimed with `how: 'auto'` on the exchange's own timer; without it (the
 * default) the position stays claimable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBotConfig } from '../../src/config/parse-config.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { closeVenueSetup, setupVenue } from '../../src/runtime/venue-setup.ts';
import { claimOf } from '../../src/sim/claims.ts';
import { addressOf } from '../../src/sim/wire-ids.ts';

async function embedded(local: Record<string, unknown>) {
  const config = await parseBotConfig({ venue: { local: { markets: 1, agents: { noiseTakers: 0, informedTakers: 0, makers: 0 }, ...local } } });
  const v = await setupVenue({ config, env: {} });
  const ex = v.local!;
  const wallet = addressOf([...ex.state.keys.values()][0]!.wallet)!;
  const market = [...ex.state.stores.markets.values()][0]!.id as Bytes32;
  const host = ex.state.engine;
  const t = host.ensureTrader(wallet);
  assert.deepEqual(host.apply({ type: 'mintSets', trader: t, market: host.marketIndex(market)!, amount: 2_000_001n }), { ok: true });
  ex.state.services.resolveMarket(market, 1_000_000, ex.state.clock.now(), 'test');
  return { v, ex, wallet, market };
}

test('venue.local.autoClaimAfterSeconds: the embedded exchange auto-claims a resolved position on its timer', async () => {
  const { v, ex, wallet, market } = await embedded({ autoClaimAfterSeconds: 0 });
  try {
    // (no time assertion: a generous bound against hanging only)
    for (const giveUp = Date.now() + 60_000; claimOf(ex.state, wallet, market) === undefined && Date.now() < giveUp; )
      await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(claimOf(ex.state, wallet, market), { yes: 2_000_001n, no: 2_000_001n, auto: true });
    const p = ex.state.engine.position(wallet, market)!;
    assert.deepEqual([p.yes, p.no], [0n, 0n]);
  } finally {
    await closeVenueSetup(v);
  }
});

test('without it (the default) nothing claims: the position stays claimable', async () => {
  const { v, ex, wallet, market } = await embedded({});
  try {
    // the exchange's timers run meanwhile (the expiry sweep, the churn): none of them claims
    await new Promise((r) => setTimeout(r, 1_200));
    assert.equal(claimOf(ex.state, wallet, market), undefined);
    assert.equal(ex.state.engine.position(wallet, market)!.yes, 2_000_001n);
  } finally {
    await closeVenueSetup(v);
  }
});
