/**
 * The sim venue on the matching engine: reservations (an order the bot cannot afford is refused),
 * dead-man expiry, fees within maxFee, holdings reported as the engine booked them, match kinds,
 * price-time priority of fills among our own orders, and the engine's conservation invariants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBacktestSettings } from '../../src/backtest/backtest-config.ts';
import { ConfigFieldError } from '../../src/core/fields.ts';
import { SimVenue } from '../../src/backtest/sim-venue.ts';
import { latencyModel } from '../../src/backtest/latency-model.ts';
import { VirtualClock } from '../../src/backtest/virtual-clock.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import type { CreateOutcome } from '../../src/model/venue.ts';
import { book, order, simOver, trade } from './helpers.ts';

const S = 1_000_000;

const setup = (events: RecordedEvent[], o: Parameters<typeof simOver>[1] = {}) => simOver(events, o);

const quiet = () => book(0, [[400_000, 10 * S]], [[600_000, 10 * S]]);

test('an order the bot cannot afford is refused UNDER_COLLATERALIZED; an affordable one reserves its budget', () => {
  const { x, until } = setup([quiet()], { collateral: 1_000_000n }); // 1 USDC
  until(0);
  const big = x.place(order({ side: 0, price: 450_000, size: 10 * S }), 0); // 4.5 USDC + fee cap
  assert.equal(big.ok, false);
  assert.ok(!big.ok && big.code === 'UNDER_COLLATERALIZED' && /maxCollateralIn/.test(big.message), JSON.stringify(big));
  // selling tokens the bot does not hold (inventory mode REQUIRE_INVENTORY → SELL_INVENTORY)
  const sell = x.place(order({ side: 1, price: 550_000, size: S, inventoryMode: 1 }), 0);
  assert.ok(!sell.ok && sell.code === 'UNDER_COLLATERALIZED' && /maxShares/.test(sell.message), JSON.stringify(sell));
  // 2 shares at 40¢ = 0.8 USDC plus the default fee cap (1% of notional) = 0.808 USDC reserved
  assert.equal(x.place(order({ side: 0, price: 400_000, size: 2 * S }), 0).ok, true);
  assert.deepEqual(x.account().balance, { collateral: 1_000_000n, reserved: 808_000n, available: 192_000n });
  const more = x.place(order({ side: 0, price: 400_000, size: S }), 0);
  assert.ok(!more.ok && more.code === 'UNDER_COLLATERALIZED');
  assert.equal(x.rejected, 3);
  assert.equal(x.placed, 1);
  assert.deepEqual(x.checkInvariants(), []);
});

test('the sim venue answers a refused create as a non-retryable bad-request failure with the engine code beside it', async () => {
  const clock = new VirtualClock(0);
  const { x, until } = setup([quiet()], { collateral: 100_000n });
  until(0);
  const v = new SimVenue({
    clock,
    exchange: x,
    latency: latencyModel({ feedMs: 0, entryMs: 10, responseMs: 10 }),
    batchLimit: 10,
    onDelivered: () => undefined,
  });
  let out: CreateOutcome | undefined;
  void v.batch([order({ side: 0, price: 450_000, size: 10 * S })], []).then((r) => (out = r.creates[0]));
  while (clock.runNext()) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
  assert.ok(out && !out.ok);
  // the one failure vocabulary (docs/venue.md): a refusal of the request, the engine's code kept beside it
  assert.equal(out.code, 'bad-request');
  assert.equal(out.venueCode, 'UNDER_COLLATERALIZED');
  assert.equal(out.retryable, false);
});

test('a dead-man order fills until its expiry, then the engine expires it and it stops filling', () => {
  const t0 = 1_700_000_000_000;
  const { x, fills, until } = setup([
    book(t0, [[400_000, 10 * S]], [[600_000, 10 * S]]),
    trade(t0 + 5_000, 380_000, 2 * S, 'sell'), // through our bid: fills 2
    trade(t0 + 20_000, 380_000, 2 * S, 'sell'), // after the expiry: nothing
  ]);
  until(t0);
  const o = order({ side: 0, price: 420_000, size: 5 * S, expiry: t0 / 1000 + 10 });
  assert.equal(x.place(o, t0).ok, true);
  until(t0 + 5_000);
  assert.deepEqual(
    fills.map((f) => [f.size, f.cause]),
    [[2 * S, 'trade']],
  );
  until(t0 + 20_000);
  assert.equal(fills.length, 1, 'no fill after the expiry');
  assert.equal(x.get(o.nonce)!.state, 'expired');
  assert.equal(x.expired, 1);
  assert.equal(x.openOrders().length, 0);
  assert.equal(x.engine.openOrders({ trader: x.bot }).length, 0);
  assert.equal(x.account().balance.reserved, 0n, 'the reservation is released');
  // an order whose expiry has already passed is refused at entry
  const late = x.place(order({ side: 0, price: 420_000, size: S, expiry: t0 / 1000 + 10 }), t0 + 20_000);
  assert.ok(!late.ok && late.code === 'EXPIRED');
  assert.deepEqual(x.checkInvariants(), []);
});

test('maker fees are the configured bps of the fill collateral, never above the signed maxFee in total', () => {
  const { x, fills, after, until } = setup([quiet(), trade(10, 490_000, 2 * S, 'sell'), trade(20, 490_000, 2 * S, 'sell'), trade(30, 490_000, 1 * S, 'sell')], {
    fees: { makerBps: 100, takerBps: 0 },
  });
  until(0);
  assert.equal(x.place(order({ side: 0, price: 500_000, size: 5 * S, maxFee: 15_000 }), 0).ok, true);
  until(30);
  // 1 USDC of collateral per 2-share fill → 1% = 0.01 USDC; the cap of 0.015 leaves 0.005, then nothing
  assert.deepEqual(
    fills.map((f) => [f.size, f.fee, f.maker]),
    [
      [2 * S, 10_000, true],
      [2 * S, 5_000, true],
      [1 * S, 0, true],
    ],
  );
  assert.equal(after[2]!.collateral, 10_000_000_000n - 2_500_000n - 15_000n, 'paid the notional and the capped fees');
  assert.equal(x.get(fills[0]!.nonce)!.state, 'filled');
  assert.deepEqual(x.checkInvariants(), []);
});

test('taker fees on a take on arrival stay within maxFee across the levels taken', () => {
  const { x, fills, until } = setup(
    [
      book(
        0,
        [[400_000, 10 * S]],
        [
          [500_000, 2 * S],
          [510_000, 2 * S],
        ],
      ),
    ],
    { fees: { makerBps: 0, takerBps: 10_000 } },
  );
  until(0);
  x.place(order({ side: 0, price: 510_000, size: 4 * S, maxFee: 3 }), 0);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.size, f.price, f.fee]),
    [
      ['take', 2 * S, 500_000, 3],
      ['take', 2 * S, 510_000, 0],
    ],
  );
  assert.equal(x.books[0]!.sizeAt('ask', 500_000) + x.books[0]!.sizeAt('ask', 510_000), 0, 'both recorded levels taken');
  assert.deepEqual(x.checkInvariants(), []);
});

test('holdings after each fill are the engine ledger; the tape makes mints, merges and transfers', () => {
  const { x, fills, after, until } = setup([
    quiet(),
    trade(10, 390_000, 2 * S, 'sell'), // fills our YES bid: the tape holds no YES, so it buys NO → mint
    trade(20, 610_000, 1 * S, 'buy'), // fills our YES sale: the tape holds NO → it sells NO → merge
    trade(30, 610_000, 1 * S, 'buy'), // fills our no-inventory sale of YES (we get NO): the tape sells its NO → transfer
  ]);
  until(0);
  x.place(order({ side: 0, price: 400_000, size: 2 * S }), 0);
  until(10);
  x.place(order({ side: 1, price: 600_000, size: 1 * S, inventoryMode: 1 }), 10);
  until(20);
  x.place(order({ side: 1, price: 600_000, size: 1 * S, inventoryMode: 2 }), 20);
  until(30);
  assert.deepEqual(
    fills.map((f) => f.match),
    ['mint', 'merge', 'transfer'],
  );
  assert.deepEqual(
    after.map((a) => [a.yes, a.no]),
    [
      [2 * S, 0],
      [1 * S, 0],
      [1 * S, 1 * S],
    ],
  );
  const p = x.engine.position(x.bot, 0);
  assert.deepEqual([p.yes, p.no], [BigInt(after[2]!.yes), BigInt(after[2]!.no)]);
  assert.equal(x.account().balance.collateral, after[2]!.collateral);
  assert.deepEqual(x.checkInvariants(), []);
});

test('a crossing level is shared among our orders best price first, not counted for each', () => {
  const { x, fills, until } = setup([quiet(), book(10, [], [[440_000, 3 * S]])]);
  until(0);
  x.place(order({ side: 0, price: 450_000, size: 2 * S }), 0);
  x.place(order({ side: 0, price: 460_000, size: 2 * S }), 0);
  until(10);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.yesPrice, f.size, f.row]),
    [
      ['cross', 460_000, 2 * S, 2],
      ['cross', 450_000, 1 * S, 2],
    ],
  );
});

test('a take skips recorded levels our resting order already crosses', () => {
  const { x, fills, until } = setup([
    quiet(),
    book(
      10,
      [[400_000, 10 * S]],
      [
        [470_000, 2 * S],
        [490_000, 1 * S],
      ],
      true,
    ),
  ]);
  until(0);
  const old = order({ side: 0, price: 480_000, size: 2 * S });
  x.place(old, 0);
  until(10); // a snapshot restates the asks below our bid: no fill
  assert.equal(fills.length, 0);
  const o = order({ side: 0, price: 490_000, size: 5 * S });
  x.place(o, 10);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.yesPrice, f.size, f.nonce]),
    [['take', 490_000, 1 * S, o.nonce]],
  );
  assert.equal(x.get(old.nonce)!.remaining, 2 * S);
  assert.equal(x.get(o.nonce)!.remaining, 4 * S);
  assert.deepEqual(x.ownTop(0), { bid: 490_000, ask: -1 });
  assert.equal(x.engine.openOrders({ trader: x.tape }).length, 0, 'no tape order left resting');
});

test('a fill-or-kill order that the recorded book cannot fill entirely is voided without a fill', () => {
  const { x, fills, until } = setup([book(0, [[400_000, 10 * S]], [[500_000, 2 * S]])]);
  until(0);
  const o = order({ side: 0, price: 500_000, size: 3 * S, timeInForce: 2 });
  assert.equal(x.place(o, 0).ok, true);
  assert.equal(fills.length, 0);
  assert.equal(x.get(o.nonce)!.state, 'voided');
  assert.equal(x.books[0]!.bestAsk(), 500_000, 'nothing taken');
  assert.equal(x.account().balance.reserved, 0n);
});

test('an arriving order that would trade with our own resting order cancels that order (engine self-trade rule)', () => {
  const { x, fills, until } = setup([quiet()]);
  until(0);
  const ask = order({ side: 0, outcomeIndex: 0, price: 450_000, size: 2 * S }); // buy NO @ 45¢ = YES ask @ 55¢
  x.place(ask, 0);
  const bid = order({ side: 0, price: 560_000, size: 1 * S });
  assert.equal(x.place(bid, 0).ok, true);
  assert.equal(fills.length, 0, 'no trade with ourselves');
  assert.equal(x.get(ask.nonce)!.state, 'cancelled');
  assert.equal(x.selfTradeCancels, 1);
  assert.deepEqual(x.ownTop(0), { bid: 560_000, ask: -1 });
  assert.deepEqual(x.checkInvariants(), []);
});

test('the sim venue no longer lists an order the engine expired', async () => {
  const t0 = 1_700_000_000_000;
  const clock = new VirtualClock(t0);
  const { x, until } = setup([book(t0, [[400_000, 10 * S]], [[600_000, 10 * S]])]);
  until(t0);
  const v = new SimVenue({ clock, exchange: x, latency: latencyModel({ feedMs: 0, entryMs: 0, responseMs: 0 }), batchLimit: 10, onDelivered: () => undefined });
  x.place(order({ side: 0, price: 420_000, size: S, expiry: t0 / 1000 + 10 }), t0);
  const keep = order({ side: 0, price: 410_000, size: S });
  x.place(keep, t0);
  const listed: string[][] = [];
  for (const at of [t0 + 5_000, t0 + 10_000]) {
    clock.advanceTo(at);
    void v.openOrders().then((os) => listed.push(os.map((o) => `${o.price}:${o.status}`)));
    while (clock.runNext()) await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(listed, [['420000:open', '410000:open'], ['410000:open']]);
  assert.equal(x.expired, 1);
});

test('config: fees are whole basis points (the engine charges no fractions); the engine account is at most 1e9 USDC', () => {
  const bad = (raw: unknown, path: string) =>
    assert.throws(
      () => parseBacktestSettings(raw),
      (e: unknown) => e instanceof ConfigFieldError && e.path === path,
      path,
    );
  bad({ fees: { makerBps: 2.5 } }, 'backtest.fees.makerBps');
  bad({ fees: { takerBps: -1 } }, 'backtest.fees.takerBps');
  bad({ startingCollateral: 2e9 }, 'backtest.startingCollateral');
  const ok = parseBacktestSettings({ fees: { makerBps: 1, takerBps: 25 }, startingCollateral: 500 });
  assert.deepEqual([ok.fees, ok.startingCollateral], [{ makerBps: 1, takerBps: 25 }, 500_000_000n]);
});
