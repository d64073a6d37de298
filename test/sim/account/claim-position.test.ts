/**
 * A claim made outside the bot (src/sim/claims.ts, `services.claimPosition`): the venue's auto-claim
 * or a person redeems a resolved position at the payout into the collateral, and the portfolio
 * answers show it claimed (balance 0, tokensRedeemed, claimState autoclaimed or null) under kind
 * all/won/lost and marketId; refused before resolution; /claimable no longer lists it.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Bytes32 } from '../../../src/model/order.ts';
import { accountLedger } from '../../../src/sim/routes/account/ledger-of.ts';
import { HttpError } from '../../../src/sim/http-errors.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
let market: Bytes32;

before(async () => {
  h = await startHarness({ apiKeys: [{ key: 'maker-key' }, { key: 'taker-key' }], initialCollateral: 0n });
  market = [...h.ex.state.stores.markets.values()][0]!.id;
});
after(() => h.close());

test('a resolved position claimed while its owner is away: collateral at the payout, portfolio shows it claimed', async () => {
  const maker = h.walletOf('maker-key');
  const taker = h.walletOf('taker-key');
  for (const [k, w] of [
    ['maker-key', maker],
    ['taker-key', taker],
  ] as const)
    assert.equal((await h.call('POST', '/balance/mint-test-usdc', { key: k, body: { address: w, amount: '100' } })).status, 200);
  const bid = h.signerOf('maker-key').signOrder({ marketId: market, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_001 });
  assert.equal((await h.call('POST', '/orders', { key: 'maker-key', body: bid })).status, 201);
  const take = h.signerOf('taker-key').signOrder({ marketId: market, outcomeIndex: 0, side: 0, price: 600_000, size: 10_000_001 });
  assert.equal((await h.call('POST', '/orders', { key: 'taker-key', body: take })).status, 201);

  assert.throws(
    () => h.ex.state.services.claimPosition(maker, market, 'auto', Date.now()),
    (e) => e instanceof HttpError && e.status === 409,
  );

  // resolves 0.3 YES: the maker's 10.000001 YES pay ⌊10.000001 × 0.3⌋ = 3.000000, the taker's NO ⌊× 0.7⌋ = 7.000000
  h.ex.state.services.resolveMarket(market, 300_000, Date.now());
  const ledger = accountLedger(h.ex.state);
  const before = ledger.collateral(maker).total;
  assert.equal(h.ex.state.services.claimPosition(maker, market, 'auto', Date.now()), 3_000_000n);
  assert.equal(ledger.collateral(maker).total - before, 3_000_000n);
  assert.equal(h.ex.state.services.claimPosition(maker, market, 'auto', Date.now()), 0n, 'nothing left to claim');
  const tBefore = ledger.collateral(taker).total;
  assert.equal(h.ex.state.services.claimPosition(taker, market, 'manual', Date.now()), 7_000_000n);
  assert.equal(ledger.collateral(taker).total - tBefore, 7_000_000n);

  for (const q of ['', '?kind=all', '?kind=won', `?marketId=${market}`]) {
    const p = await h.call('GET', `/portfolio/${maker}${q}`, { key: 'maker-key' });
    assert.equal(p.status, 200);
    assert.equal(p.body.portfolio.length, 1, q);
    const r = p.body.portfolio[0];
    assert.deepEqual([r.balance, r.claimState, r.tokensRedeemed, r.claimableAmount], ['0', 'autoclaimed', '10000001', '0'], q);
  }
  assert.equal((await h.call('GET', `/portfolio/${maker}?kind=lost`, { key: 'maker-key' })).body.portfolio.length, 0);
  assert.equal((await h.call('GET', `/portfolio/${maker}?kind=claimable`, { key: 'maker-key' })).body.portfolio.length, 0);
  assert.equal((await h.call('GET', `/portfolio/${maker}/claimable`, { key: 'maker-key' })).body.positions.length, 0);
  // a person's claim: redeemed, no claim state
  const t = (await h.call('GET', `/portfolio/${taker}?marketId=${market}`, { key: 'taker-key' })).body.portfolio;
  assert.deepEqual(
    t.map((r: Record<string, unknown>) => [r.outcomeIndex, r.balance, r.claimState, r.tokensRedeemed]),
    [[0, '0', null, '10000001']],
  );
  const pos = (await h.call('GET', `/portfolio/${maker}/positions?marketId=${market}`, { key: 'maker-key' })).body.positions;
  assert.deepEqual([pos[0].size, pos[0].claimState, pos[0].tokensRedeemed], ['0', 'autoclaimed', '10000001']);
});
