/**
 * Test USDC mint then trade, over HTTP: the mint credits the wallet at once, orders signed by the
 * signing module fill against each other, and balance / portfolio endpoints report the result.
 * Also the mint's validation and its hourly quota (429 with remainingRequests and X-RateLimit-*).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Bytes32 } from '../../../src/model/order.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
let market: Bytes32;

before(async () => {
  h = await startHarness({ apiKeys: [{ key: 'maker-key' }, { key: 'taker-key' }, { key: 'quota-key' }], initialCollateral: 0n, accounts: { mintsPerHour: 3 } });
  market = [...h.ex.state.stores.markets.values()][0]!.id;
});
after(() => h.close());

test('a fresh wallet has nothing; mint credits it at once', async () => {
  const maker = h.walletOf('maker-key');
  const empty = await h.call('GET', `/balance/${maker}`, { key: 'maker-key' });
  assert.equal(empty.status, 200);
  assert.equal(empty.body.usdc.balance, '0');
  const minted = await h.call('POST', '/balance/mint-test-usdc', { key: 'maker-key', body: { address: maker, amount: '250.5' } });
  assert.equal(minted.status, 200);
  assert.match(minted.body.hash, /^0x[0-9a-f]{64}$/);
  const after = await h.call('GET', `/balance/${maker}`, { key: 'maker-key' });
  assert.equal(after.body.usdc.balance, '250500000');
  assert.equal(after.body.address, maker);
  const token = await h.call('GET', `/balance?address=${maker}&tokenAddress=${h.ex.state.chain.usdc}`, { key: 'maker-key' });
  assert.deepEqual(token.body, { balance: '250500000', decimals: 6, symbol: 'USDC' });
  const settle = await h.call('GET', `/balance/settlement?address=${maker}&tokenAddress=${h.ex.state.chain.usdc}`, { key: 'maker-key' });
  assert.equal(settle.body.balance, '250500000');
  assert.equal(settle.body.account, maker);
});

test('minted funds trade: a YES bid fills against a NO buyer, and both portfolios show it', async () => {
  const taker = h.walletOf('taker-key');
  const maker = h.walletOf('maker-key');
  assert.equal((await h.call('POST', '/balance/mint-test-usdc', { key: 'taker-key', body: { address: taker, amount: '100' } })).status, 200);
  const bid = h.signerOf('maker-key').signOrder({ marketId: market, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 });
  const placed = await h.call('POST', '/orders', { key: 'maker-key', body: bid });
  assert.equal(placed.status, 201, JSON.stringify(placed.body));
  // buying NO at 60¢ is selling YES at 40¢: it crosses the bid and mints complete sets
  const take = h.signerOf('taker-key').signOrder({ marketId: market, outcomeIndex: 0, side: 0, price: 600_000, size: 4_000_000 });
  const taken = await h.call('POST', '/orders', { key: 'taker-key', body: take });
  assert.equal(taken.status, 201, JSON.stringify(taken.body));

  const mBal = await h.call('GET', `/balance/${maker}`, { key: 'maker-key' });
  const yes = mBal.body.outcomeTokens.find((t: { outcomeIndex: number }) => t.outcomeIndex === 1);
  assert.equal(yes.balance, '4000000', 'maker bought 4 YES');
  const tPort = await h.call('GET', `/portfolio/${taker}`, { key: 'taker-key' });
  assert.equal(tPort.status, 200);
  assert.equal(tPort.body.portfolio.length, 1);
  assert.equal(tPort.body.portfolio[0].outcomeIndex, 0);
  assert.equal(tPort.body.portfolio[0].balance, '4000000');
  assert.equal(tPort.body.portfolio[0].marketId, market);
  assert.ok(BigInt(tPort.body.portfolio[0].netInvestment) >= 2_400_000n, 'cost basis includes the 60¢ paid per share');
  assert.deepEqual(tPort.body.marketIds, [market]);

  const pos = await h.call('GET', `/portfolio/${maker}/positions?status=open`, { key: 'maker-key' });
  assert.equal(pos.body.positions.length, 1);
  assert.equal(pos.body.positions[0].size, '4000000');
  assert.equal(pos.body.positions[0].avgPrice, '400000');
  assert.equal(pos.body.positions[0].status, 'open');
  assert.equal((await h.call('GET', `/portfolio/${maker}/positions?status=closed`, { key: 'maker-key' })).body.positions.length, 0);

  const stats = await h.call('GET', `/portfolio/${maker}/stats`, { key: 'maker-key' });
  assert.equal(stats.body.predictionsPlaced, 1);
  assert.equal(stats.body.totalPlaced, '1600000');
  const claimable = await h.call('GET', `/portfolio/${maker}/claimable`, { key: 'maker-key' });
  assert.deepEqual(claimable.body, { positions: [], markets: [], totalClaimable: '0' });
  const won = await h.call('GET', `/portfolio/${maker}?kind=won`, { key: 'maker-key' });
  assert.equal(won.body.portfolio.length, 0, 'nothing is won before resolution');
});

test('portfolio pages with a cursor and X-Next-Cursor', async () => {
  const maker = h.walletOf('maker-key');
  // a second outcome: sell-no-inventory gives the maker NO exposure on the other market
  const first = await h.call('GET', `/portfolio/${maker}?pageSize=1`, { key: 'maker-key' });
  assert.equal(first.body.portfolio.length, 1);
  assert.equal(first.body.cursor, null, 'one holding, one page');
  assert.equal(first.headers.get('x-next-cursor'), null);
  const bad = await h.call('GET', `/portfolio/${maker}?cursor=%%%`, { key: 'maker-key' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.field, 'cursor');
  const badKind = await h.call('GET', `/portfolio/${maker}?kind=everything`, { key: 'maker-key' });
  assert.equal(badKind.status, 400);
  assert.equal(badKind.body.field, 'kind');
});

test('mint validation names the field', async () => {
  const w = h.walletOf('maker-key');
  for (const [amount, why] of [
    ['0', 'zero'],
    ['10000.0000001', 'seven decimals'],
    ['10000.000001', 'above the cap'],
    ['-5', 'negative'],
    [12, 'a number'],
  ] as const) {
    const r = await h.call('POST', '/balance/mint-test-usdc', { key: 'maker-key', body: { address: w, amount } });
    assert.equal(r.status, 400, why);
    assert.equal(r.body.field, 'amount', why);
  }
  const noAddr = await h.call('POST', '/balance/mint-test-usdc', { key: 'maker-key', body: { amount: '1' } });
  assert.equal(noAddr.body.field, 'address');
  assert.equal((await h.call('POST', '/balance/mint-test-usdc', { body: { address: w, amount: '1' } })).status, 401);
  const unknown = await h.call('GET', `/balance?address=${w}&tokenAddress=0x${'12'.repeat(20)}`, { key: 'maker-key' });
  assert.equal(unknown.status, 404);
  assert.equal(typeof unknown.body.error, 'string');
  assert.equal(typeof unknown.body.message, 'string');
});

test('the mint quota answers 429 with remainingRequests and rate-limit headers', async () => {
  const w = h.walletOf('quota-key');
  for (let i = 0; i < 3; i++)
    assert.equal((await h.call('POST', '/balance/mint-test-usdc', { key: 'quota-key', body: { address: w, amount: '1' } })).status, 200);
  const r = await h.call('POST', '/balance/mint-test-usdc', { key: 'quota-key', body: { address: w, amount: '1' } });
  assert.equal(r.status, 429);
  assert.equal(r.body.remainingRequests, 0);
  assert.equal(typeof r.body.message, 'string');
  assert.equal(r.headers.get('x-ratelimit-limit'), '3');
  assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(Number(r.headers.get('x-ratelimit-reset')) > h.clock.now() / 1000);
  const bal = await h.call('GET', `/balance/${w}`, { key: 'quota-key' });
  assert.equal(bal.body.usdc.balance, '3000000', 'the refused mint credited nothing');
  h.clock.advance(3_600_000);
  assert.equal(
    (await h.call('POST', '/balance/mint-test-usdc', { key: 'quota-key', body: { address: w, amount: '1' } })).status,
    200,
    'the quota refills over the hour',
  );
});

test('after resolution: won, lost and claimable views', async () => {
  const maker = h.walletOf('maker-key');
  const taker = h.walletOf('taker-key');
  const host = h.ex.state.engine;
  const idx = host.marketIndex(market)!;
  const resolved = host.apply({ type: 'resolve', market: idx, payoutYes: 1_000_000, nowMs: h.clock.now() });
  assert.equal((resolved as { ok: boolean }).ok, true);
  const won = await h.call('GET', `/portfolio/${maker}?kind=won`, { key: 'maker-key' });
  assert.equal(won.body.portfolio.length, 1);
  assert.equal(won.body.portfolio[0].claimState, 'claimable');
  assert.equal(won.body.portfolio[0].claimableAmount, '4000000');
  assert.equal(won.body.portfolio[0].currentValue, '4000000', 'a winning share is worth 1 USDC');
  assert.equal((await h.call('GET', `/portfolio/${maker}?kind=active`, { key: 'maker-key' })).body.portfolio.length, 0);
  const lost = await h.call('GET', `/portfolio/${taker}?kind=lost`, { key: 'taker-key' });
  assert.equal(lost.body.portfolio.length, 1);
  assert.equal(lost.body.portfolio[0].currentValue, '0');
  const claim = await h.call('GET', `/portfolio/${maker}/claimable`, { key: 'maker-key' });
  assert.equal(claim.body.totalClaimable, '4000000');
  assert.deepEqual(claim.body.markets[0].payoutPcts, ['0', '1000000']);
  const pos = await h.call('GET', `/portfolio/${maker}/positions`, { key: 'maker-key' });
  assert.equal(pos.body.positions[0].status, 'closed', 'a resolved market closes the position');
  assert.equal(pos.body.positions[0].price, '1000000');
  const stats = await h.call('GET', `/portfolio/${maker}/stats`, { key: 'maker-key' });
  assert.equal(stats.body.allTimeWinLoss, '2400000', 'bought 4 YES for 1.6 USDC, worth 4 USDC');
  assert.equal(stats.body.allTimeReturnPct, 150);
});
