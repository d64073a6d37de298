/**
 * Orders that take liquidity across several levels, end to end over HTTP against the local exchange:
 * the fills poll (src/feeds/own-orders-feed.ts ownOrdersReader, the venue client) reads the wallet's
 * orders, and the account's books built from what it reports equal the venue's collateral and tokens
 * to the 1e-6 unit, fees included.
 *   1. a sale without inventory that crosses two bids and fills whole between two polls: only the
 *      recent-orders list shows it, and that list states no average fill price;
 *   2. a sale that crosses two bids, rests, and is then filled at its limit by a later buyer (two polls).
 * On the code before the fills poll read the average for such orders and priced parts from it, order 1
 * was booked at its limit (0.48 where it sold at 0.50 and 0.49: 0.120000 USDC) and both crossing parts
 * at the maker fee (0.040400 USDC of taker fees missing): the books' fees were 0 and their cash
 * −11.320000 against the venue's −11.240400.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { ownOrdersReader } from '../../src/feeds/own-orders-feed.ts';
import { Account } from '../../src/account/account.ts';
import { accountFill } from '../../src/account/account-fill.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import type { OrderFilled } from '../../src/state/events.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { StateStore } from '../../src/state/store.ts';
import { reservedCollateral } from '../../src/state/market-view.ts';
import { remainingShares } from '../../src/orders/venue-order-shares.ts';

const FEES = { makerBps: 0, takerBps: 50 }; // the local exchange's schedule

type Order = { outcomeIndex: 0 | 1; side: 0 | 1; price: number; size: number; inventoryMode?: 0 | 1 | 2 };

/** A local exchange with two traders; bob's fills are read by the fills poll into one account. */
async function twoTraders(opts: { arrival?: (nonce: Bytes32) => number | undefined } = {}) {
  const ex = createLocalExchange({ seed: 11, apiKeys: [{ key: 'alice-key' }, { key: 'bob-key' }], expirySweepMs: 0 });
  const base = await ex.start(0);
  const alice = createSigner({ privateKey: ex.state.keys.get('alice-key')!.privateKey!, chain: TESTNET });
  const bob = createSigner({ privateKey: ex.state.keys.get('bob-key')!.privateKey!, chain: TESTNET });
  const marketId = [...ex.state.stores.markets.values()][0]!.id;
  const aliceClient = createVenueClient({ baseUrl: base, chain: TESTNET, apiKey: 'alice-key' });
  const bobClient = createVenueClient({ baseUrl: base, chain: TESTNET, apiKey: 'bob-key' });
  const place = async (who: 'alice' | 'bob', o: Order) => {
    const c = who === 'alice' ? aliceClient : bobClient;
    const body = (who === 'alice' ? alice : bob).signOrder({ marketId, ...o });
    return c.orders.create(body);
  };
  const venue = async () => {
    const s = await bobClient.balance.summary(bob.address);
    const tokens = new Map(s.outcomeTokens.filter((t) => t.balance !== 0n).map((t) => [`${t.marketId.toLowerCase()}:${t.outcomeIndex}`, t.balance]));
    return { collateral: s.usdc.balance, tokens };
  };
  const read = ownOrdersReader({ client: bobClient, trader: bob.address, clock: systemClock, seed: [], fees: FEES, ...opts });
  const account = new Account();
  const poll = async () => {
    const fills: OrderFilled[] = [];
    for (const e of await read()) if (e.event.type === 'OrderFilled') fills.push(e.event as OrderFilled);
    for (const f of fills) account.applyFill(accountFill(f));
    return fills;
  };
  const cancel = (nonce: Bytes32) => bobClient.orders.cancel(bob.signCancel(nonce));
  const holdings = () => new Map(account.positions().map((p) => [`${p.marketId}:${p.outcomeIndex}`, BigInt(p.shares)]));
  return { ex, place, venue, poll, account, cancel, holdings, marketId, bob: bob.address, bobClient };
}

test('orders that took liquidity across levels: the books built from the fills poll equal the venue to the unit, fees included', async () => {
  const { ex, place, venue, poll, account } = await twoTraders();
  try {
    const v0 = await venue();
    const bid = (price: number, size: number) => place('alice', { outcomeIndex: 1, side: 0, price, size });

    // 1. crosses 0.50 × 4 and 0.49 × 4, fills whole before the next poll
    await bid(500_000, 4_000_000);
    await bid(490_000, 4_000_000);
    await poll();
    await place('bob', { outcomeIndex: 1, side: 1, price: 480_000, size: 8_000_000, inventoryMode: 2 });
    await poll();
    // 2. crosses 0.50 × 4 and 0.49 × 4 again, rests 6 @ 0.48 (poll), then a buyer fills the rest at 0.48 (poll)
    await bid(500_000, 4_000_000);
    await bid(490_000, 4_000_000);
    await place('bob', { outcomeIndex: 1, side: 1, price: 480_000, size: 14_000_000, inventoryMode: 2 });
    await poll();
    await bid(480_000, 6_000_000);
    await poll();

    const v1 = await venue();
    const f = account.figures();
    assert.equal(account.fillCount, 3, 'three parts: order 1 whole, order 2 in two');
    // the venue took the other side of 22 minted sets: 22 − (3.96 + 3.96 + 2.88) = 11.20 USDC, and the
    // taker fee on what the crossing parts paid: 50 bps of 4.04 USDC twice
    assert.equal(v0.collateral - v1.collateral, 11_200_000n + 40_400n);
    assert.equal(f.fees, 40_400n);
    assert.equal(f.cash, v1.collateral - v0.collateral, "the books' cash is the venue's collateral change, to the unit");
    const books = new Map(account.positions().map((p) => [`${p.marketId}:${p.outcomeIndex}`, BigInt(p.shares)]));
    assert.deepEqual([...books].sort(), [...v1.tokens].sort(), "the books' holdings are the venue's");
  } finally {
    await ex.close();
  }
});

test('a buy that took liquidity and rests part filled: its shares from the average and the taker fee, to the unit', async () => {
  const { ex, place, venue, poll, account, cancel, holdings } = await twoTraders();
  try {
    const v0 = await venue();
    await place('alice', { outcomeIndex: 1, side: 1, price: 500_000, size: 4_000_000, inventoryMode: 2 });
    // bob buys 10 @ 0.60: takes 4 @ 0.50 (2.00 + 50 bps), rests 6; the poll reads it part filled
    const buy = await place('bob', { outcomeIndex: 1, side: 0, price: 600_000, size: 10_000_000 });
    await poll();
    await cancel(buy.nonce);
    await poll();
    const v1 = await venue();
    const f = account.figures();
    assert.equal(v0.collateral - v1.collateral, 2_010_000n);
    assert.equal(f.cash, v1.collateral - v0.collateral, "the books' cash is the venue's");
    // old code: 2.01 spent / 0.60 = 3.35 shares held where the venue holds 4
    assert.deepEqual([...holdings()], [...v1.tokens]);
  } finally {
    await ex.close();
  }
});

test('orders that crossed on arrival at exactly their limit: taker parts by how they filled (the create answer), not by price', async () => {
  // what the create answers stated filled (the bot ledger keeps this from OrderAccepted: src/ledger/bot-ledger.ts arrival)
  const arrivals = new Map<string, number>();
  const { ex, place, venue, poll, account, cancel, holdings } = await twoTraders({ arrival: (n) => arrivals.get(n) });
  try {
    const v0 = await venue();
    const bob = async (o: Order) => {
      const r = await place('bob', o);
      if (r.order && r.order.filledSize > 0) arrivals.set(r.nonce, r.order.filledSize);
      return r;
    };
    // a buy of 10 @ 0.60 takes 4 @ 0.60 (its own limit) and rests 6
    await place('alice', { outcomeIndex: 1, side: 1, price: 600_000, size: 4_000_000, inventoryMode: 2 });
    const buy = await bob({ outcomeIndex: 1, side: 0, price: 600_000, size: 10_000_000 });
    // a sale without inventory of 5 NO @ 0.30 takes 3 @ 0.30 (its own limit) and rests 2
    await place('alice', { outcomeIndex: 0, side: 0, price: 300_000, size: 3_000_000 });
    const sale = await bob({ outcomeIndex: 0, side: 1, price: 300_000, size: 5_000_000, inventoryMode: 2 });
    await poll();
    await cancel(buy.nonce);
    await cancel(sale.nonce);
    await poll();
    const v1 = await venue();
    const f = account.figures();
    // old code: both parts at the maker rate (0): fees 0, and the buy's 2.412 spent over 0.60 = 4.02 shares
    assert.equal(f.fees, v0.collateral - v1.collateral - 2_400_000n - (3_000_000n - 900_000n), 'the taker fees the venue charged');
    assert.equal(f.cash, v1.collateral - v0.collateral, "the books' cash is the venue's");
    assert.deepEqual([...holdings()].sort(), [...v1.tokens].sort(), "the books' holdings are the venue's");
  } finally {
    await ex.close();
  }
});

test('a buy that took liquidity and rests: the bot counts the shares and the collateral the venue keeps resting, to the unit', async () => {
  const { ex, place, poll, bob, marketId, bobClient } = await twoTraders();
  try {
    await place('alice', { outcomeIndex: 1, side: 1, price: 500_000, size: 4_000_000, inventoryMode: 2 });
    await poll();
    // bob buys 10 @ 0.60 (budget 6.00 + fee cap 0.06): takes 4 @ 0.50 (2.00 + 50 bps), rests 6 @ 0.60
    const buy = await place('bob', { outcomeIndex: 1, side: 0, price: 600_000, size: 10_000_000 });
    const planned = { marketId, outcomeIndex: 1 as const, side: 0 as const, price: 600_000, size: 10_000_000, nonce: buy.nonce, inventoryMode: 0 as const };
    const store = new StateStore();
    store.dispatch({ type: 'OrderSubmitted', marketId, slot: 'b0', nonce: buy.nonce, order: planned, retry: false, ts: 1 });
    store.dispatch({ type: 'OrderAccepted', marketId, nonce: buy.nonce, duplicate: false, ts: 2 });
    store.dispatchAll(await poll());
    const host = ex.state.engine;
    const resting = host.engine.openOrders({ trader: host.traderIndex(bob.toLowerCase() as never)! });
    assert.equal(resting.length, 1);
    const venueShares = resting[0]!.remainingShares;
    const venueReserved = host.balance(bob)!.reserved;
    assert.equal(venueShares, 6_000_000);
    const m = store.state.markets.get(marketId)!;
    assert.equal(m.orders.get(buy.nonce)?.remaining, venueShares, "the store's remaining shares are the venue's");
    // old code: ⌈0.60 × 6⌉ + no fee cap = 3.600000 where the venue keeps 6.06 − 2.01 = 4.050000 reserved
    assert.equal(reservedCollateral(m), venueReserved, "the store's reserved collateral is the venue's");
    // the venue's order read back: 6 shares rest (old code: the budget's unspent fraction, 6.683168)
    const open = [];
    for await (const o of bobClient.orders.iterate({ trader: bob, status: ['open'], limit: 100 })) open.push(o);
    assert.equal(open.length, 1);
    assert.equal(remainingShares(open[0]!, FEES), venueShares);
    assert.equal(BigInt(open[0]!.remainingSize), venueReserved, 'the venue states the reserved budget as the remaining size');
  } finally {
    await ex.close();
  }
});
