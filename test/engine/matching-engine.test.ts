import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderLimitErrors } from '../../src/engine/engine-invariants.ts';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import type { EngineEvent, SubmitResult } from '../../src/engine/types.ts';
import { CENT, SHARE, limit, setup } from './helpers.ts';

function ok(r: SubmitResult): Extract<SubmitResult, { ok: true }> {
  assert.equal(r.ok, true, JSON.stringify(r));
  return r as Extract<SubmitResult, { ok: true }>;
}

describe('price-time priority', () => {
  it('fills the better price first, then earlier orders at the same price', () => {
    const { engine, market: m, t, fills } = setup();
    const a = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 40 * CENT, 2 * SHARE))).id;
    const b = ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 40 * CENT, 2 * SHARE))).id;
    const c = ok(engine.submit(limit(m, t[2]!, 'yes', 'buy', 41 * CENT, 2 * SHARE))).id;
    // a NO buyer at 60¢ = YES ask at 40¢: crosses all three bids
    const r = ok(engine.submit(limit(m, t[3]!, 'no', 'buy', 60 * CENT, 5 * SHARE)));
    assert.equal(r.status, 'filled');
    assert.deepEqual(
      fills().map((f) => [f.maker.id, f.price, f.size]),
      [
        [c, 41 * CENT, 2 * SHARE],
        [a, 40 * CENT, 2 * SHARE],
        [b, 40 * CENT, 1 * SHARE],
      ],
    );
    assert.equal(engine.order(b)!.remainingShares, 1 * SHARE);
    assert.deepEqual(engine.book(m).bids, [{ price: 40 * CENT, size: 1 * SHARE, orders: 1 }]);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('a partially filled maker keeps its place in the queue', () => {
    const { engine, market: m, t, fills } = setup();
    const a = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 45 * CENT, 5 * SHARE))).id;
    ok(engine.submit(limit(m, t[2]!, 'no', 'buy', 55 * CENT, 2 * SHARE)));
    const b = ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 45 * CENT, 5 * SHARE))).id;
    ok(engine.submit(limit(m, t[3]!, 'no', 'buy', 55 * CENT, 4 * SHARE)));
    assert.deepEqual(
      fills().map((f) => [f.maker.id, f.size]),
      [
        [a, 2 * SHARE],
        [a, 3 * SHARE],
        [b, 1 * SHARE],
      ],
    );
    assert.equal(engine.order(a), undefined);
    assert.equal(engine.order(b)!.filledShares, SHARE);
    assert.deepEqual(engine.book(m).bids, [{ price: 45 * CENT, size: 4 * SHARE, orders: 1 }]);
  });

  it('NO orders rest on the opposite side at 1 − p', () => {
    const { engine, market: m, t } = setup();
    ok(engine.submit(limit(m, t[0]!, 'no', 'buy', 30 * CENT, SHARE)));
    engine.mintSets(t[1]!, m, 5n * BigInt(SHARE));
    ok(engine.submit(limit(m, t[1]!, 'no', 'sell', 35 * CENT, SHARE)));
    const b = engine.book(m);
    assert.deepEqual(b.asks, [{ price: 70 * CENT, size: SHARE, orders: 1 }]);
    assert.deepEqual(b.bids, [{ price: 65 * CENT, size: SHARE, orders: 1 }]);
    assert.equal(engine.bestBid(m), 65 * CENT);
    assert.equal(engine.bestAsk(m), 70 * CENT);
  });
});

describe('match kinds and balances', () => {
  const table = [
    { name: 'YES buyer vs NO buyer mints', maker: ['yes', 'buy'], taker: ['no', 'buy'], match: 'mint' },
    { name: 'YES seller vs NO seller merges', maker: ['yes', 'sell'], taker: ['no', 'sell'], match: 'merge' },
    { name: 'YES buyer vs YES seller transfers', maker: ['yes', 'buy'], taker: ['yes', 'sell'], match: 'transfer' },
    { name: 'NO seller vs NO buyer transfers', maker: ['no', 'sell'], taker: ['no', 'buy'], match: 'transfer' },
    { name: 'YES buyer vs YES seller without inventory mints', maker: ['yes', 'buy'], taker: ['yes', 'sell', 'mint'], match: 'mint' },
    { name: 'NO seller without inventory vs YES seller transfers YES', maker: ['no', 'sell', 'mint'], taker: ['yes', 'sell'], match: 'transfer' },
  ] as const;
  for (const row of table) {
    it(row.name, () => {
      const { engine, market: m, t, fills } = setup({ takerFeeBps: 0 });
      for (const tr of t) engine.mintSets(tr, m, 10n * BigInt(SHARE));
      const priceOf = (o: string, s: string) => (o === 'yes' ? (s === 'buy' ? 60 : 40) : s === 'buy' ? 60 : 40) * CENT;
      const mo = row.maker[0];
      const mp = priceOf(mo, row.maker[1]);
      // the taker's price makes it cross the maker exactly
      const makerYes = mo === 'yes' ? mp : 1_000_000 - mp;
      const to = row.taker[0];
      const tp = to === 'yes' ? makerYes : 1_000_000 - makerYes;
      const mode = (r: readonly string[]) => (r[2] === 'mint' ? 'mint' : 'inventory');
      ok(engine.submit(limit(m, t[0]!, mo, row.maker[1], mp, 2 * SHARE, { mode: mode(row.maker) })));
      const before = engine.market(m)!.setsOutstanding;
      const r = ok(engine.submit(limit(m, t[1]!, to, row.taker[1], tp, 2 * SHARE, { mode: mode(row.taker) })));
      assert.equal(r.status, 'filled');
      const f = fills();
      assert.equal(f.length, 1);
      assert.equal(f[0]!.match, row.match);
      const delta = engine.market(m)!.setsOutstanding - before;
      assert.equal(delta, row.match === 'mint' ? 2n * BigInt(SHARE) : row.match === 'merge' ? -2n * BigInt(SHARE) : 0n);
      assert.deepEqual(engine.checkInvariants(), []);
    });
  }

  it('moves collateral and tokens exactly (mint at 37¢)', () => {
    const { engine, market: m, t, fills } = setup({ takerFeeBps: 50 });
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 37 * CENT, 3 * SHARE)));
    ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 63 * CENT, 3 * SHARE)));
    const f = fills()[0]!;
    assert.equal(f.maker.collateralDelta, -1_110_000);
    assert.equal(f.taker.fee, Math.ceil((1_890_000 * 50) / 10_000));
    assert.equal(f.taker.collateralDelta, -(1_890_000 + 9_450));
    assert.equal(engine.position(t[0]!, m).yes, 3_000_000n);
    assert.equal(engine.position(t[1]!, m).no, 3_000_000n);
    assert.equal(engine.feeBalance(), 9_450n);
    assert.equal(engine.balance(t[0]!).reserved, 0n);
  });

  it('rounds payers up and receivers down, the dust going to the fee account', () => {
    const { engine, market: m, t, fills } = setup({ takerFeeBps: 0, minOrderSize: 1, minFillSize: 1 });
    engine.mintSets(t[0]!, m, 10n);
    ok(engine.submit(limit(m, t[0]!, 'yes', 'sell', 33 * CENT, 1, { maxFee: 1 })));
    ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 33 * CENT, 1, { maxFee: 1 })));
    const f = fills()[0]!;
    assert.equal(f.maker.collateralDelta, 0); // ⌊0.33⌋
    assert.equal(f.taker.collateralDelta, -1); // ⌈0.33⌉
    assert.equal(f.dust, 1);
    assert.deepEqual(engine.checkInvariants(), []);
  });
});

describe('time in force', () => {
  it('IOC fills what crosses and voids the rest IOC_CLOSED', () => {
    const { engine, market: m, t, dones } = setup();
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 2 * SHARE)));
    const r = ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 5 * SHARE, { tif: 1 })));
    assert.equal(r.status, 'voided');
    assert.equal(r.filledShares, 2 * SHARE);
    const d = dones().find((e) => e.id === r.id)!;
    assert.equal(d.voidReason, 'IOC_CLOSED');
    assert.equal(d.order!.filledShares, 2 * SHARE);
    assert.equal(engine.book(m).asks.length, 0);
    assert.equal(engine.balance(t[1]!).reserved, 0n);
  });

  it('an unfilled market order is voided UNFILLED_MARKET_ORDER', () => {
    const { engine, market: m, t, dones } = setup();
    const r = ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 99 * CENT, SHARE, { tif: 1, marketOrder: true })));
    assert.equal(r.status, 'voided');
    assert.equal(dones()[0]!.voidReason, 'UNFILLED_MARKET_ORDER');
  });

  it('FOK is all or nothing, checked before any fill', () => {
    const { engine, market: m, t, fills, dones } = setup();
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 2 * SHARE)));
    const no = ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 3 * SHARE, { tif: 2 })));
    assert.equal(no.status, 'voided');
    assert.equal(fills().length, 0);
    assert.equal(dones()[0]!.voidReason, 'IOC_CLOSED');
    assert.deepEqual(engine.book(m).bids, [{ price: 50 * CENT, size: 2 * SHARE, orders: 1 }]);
    const yes = ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 2 * SHARE, { tif: 2 })));
    assert.equal(yes.status, 'filled');
    assert.equal(fills().length, 1);
  });

  it('TAKER_ONLY behaves as IOC; MAKER_ONLY that would cross is rejected', () => {
    const { engine, market: m, t } = setup();
    const r = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE, { makerRole: 2 })));
    assert.equal(r.status, 'voided');
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE)));
    const x = engine.submit(limit(m, t[1]!, 'yes', 'sell', 50 * CENT, SHARE, { mode: 'mint', makerRole: 1 }));
    assert.equal(x.ok, false);
    assert.equal(!x.ok && x.code, 'WOULD_CROSS');
    ok(engine.submit(limit(m, t[1]!, 'yes', 'sell', 51 * CENT, SHARE, { mode: 'mint', makerRole: 1 })));
  });
});

describe('expiry', () => {
  it('expires a resting order lazily when touched, and by the sweep', () => {
    const { engine, market: m, t, fills, dones } = setup();
    const a = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE, { expiry: 1_000, nowMs: 900_000 }))).id;
    const b = ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 49 * CENT, SHARE, { expiry: 2_000, nowMs: 900_000 }))).id;
    const r = ok(engine.submit(limit(m, t[2]!, 'no', 'buy', 51 * CENT, SHARE, { nowMs: 1_500_000 })));
    assert.equal(r.status, 'filled');
    assert.equal(dones()[0]!.id, a);
    assert.equal(dones()[0]!.status, 'expired');
    assert.equal(fills()[0]!.maker.id, b);
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 40 * CENT, SHARE, { expiry: 3_000, nowMs: 1_500_000 })));
    assert.equal(engine.expire(2_999_999), 0);
    assert.equal(engine.expire(3_000_000), 1);
    assert.equal(engine.book(m).bids.length, 0);
    assert.equal(engine.balance(t[0]!).reserved, 0n);
  });
});

describe('self-trade: cancel resting', () => {
  it('cancels the own resting order and keeps matching behind it', () => {
    const { engine, market: m, t, fills, dones } = setup();
    const own = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE))).id;
    const other = ok(engine.submit(limit(m, t[1]!, 'yes', 'buy', 50 * CENT, SHARE))).id;
    const r = ok(engine.submit(limit(m, t[0]!, 'no', 'buy', 50 * CENT, SHARE)));
    assert.equal(r.status, 'filled');
    const d = dones().find((e) => e.id === own)!;
    assert.equal(d.status, 'cancelled');
    assert.equal(d.cause, 'self_trade');
    assert.equal(fills().length, 1);
    assert.equal(fills()[0]!.maker.id, other);
    assert.ok(fills().every((f) => f.maker.trader !== f.taker.trader));
    assert.deepEqual(engine.checkInvariants(), []);
  });
});

describe('fees', () => {
  it('charges maker and taker rates and never more than maxFee', () => {
    const { engine, market: m, t, fills } = setup({ makerFeeBps: 20, takerFeeBps: 300 });
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 10 * SHARE)));
    ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 10 * SHARE, { maxFee: 7_000 })));
    const f = fills()[0]!;
    assert.equal(f.maker.fee, 10_000); // 20 bps of 5 USDC
    assert.equal(f.taker.fee, 7_000); // 300 bps would be 150 000: capped by maxFee
    assert.equal(engine.feeBalance(), 17_000n);
  });
});

describe('signed V2 limits', () => {
  it('BUY: cumulative collateral + fees never exceed maxCollateralIn (fill reduced)', () => {
    const { engine, market: m, t, dones } = setup({ takerFeeBps: 0 });
    ok(engine.submit(limit(m, t[0]!, 'no', 'buy', 50 * CENT, 10 * SHARE)));
    const o = limit(m, t[1]!, 'yes', 'buy', 50 * CENT, 10 * SHARE, { tif: 1 });
    o.maxCollateralIn = 2_000_000; // budget for 4 shares at 50¢
    const r = ok(engine.submit(o));
    assert.equal(r.filledShares, 4 * SHARE);
    const d = dones().find((e) => e.id === r.id)!;
    assert.ok(d.order!.collateralPaid + d.order!.fees <= 2_000_000);
    assert.deepEqual(orderLimitErrors(d.order!), []);
  });

  it('SELL_INVENTORY: sells at most maxShares and keeps the pro-rata floor, else no fill', () => {
    const { engine, market: m, t, fills } = setup({ takerFeeBps: 0 });
    engine.mintSets(t[1]!, m, 10n * BigInt(SHARE));
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 10 * SHARE)));
    const o = limit(m, t[1]!, 'yes', 'sell', 50 * CENT, 4 * SHARE, { tif: 1 });
    o.minCollateralOut = 2_000_001; // more than 4 shares at 50¢ can pay
    const r = ok(engine.submit(o));
    assert.equal(r.filledShares, 0);
    assert.equal(fills().length, 0);
    const r2 = ok(engine.submit(limit(m, t[1]!, 'yes', 'sell', 50 * CENT, 4 * SHARE, { tif: 1 })));
    assert.equal(r2.filledShares, 4 * SHARE);
    assert.equal(engine.position(t[1]!, m).yes, 6n * BigInt(SHARE));
  });

  it('SELL_NO_INVENTORY: puts in at most maxCollateralIn and ends holding the other outcome', () => {
    const { engine, market: m, t, dones } = setup({ takerFeeBps: 0 });
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 62 * CENT, 10 * SHARE)));
    // selling YES without inventory at 62¢ = buying NO at 38¢: it takes the YES bid and mints
    const o = limit(m, t[1]!, 'yes', 'sell', 62 * CENT, 10 * SHARE, { mode: 'mint', tif: 1 });
    o.maxCollateralIn = 1_900_000; // (1 − 0.62) per share: 5 shares
    const r = ok(engine.submit(o));
    assert.equal(r.filledShares, 5 * SHARE);
    const d = dones().find((e) => e.id === r.id)!;
    assert.ok(d.order!.collateralPaid + d.order!.fees <= 1_900_000);
    assert.equal(engine.position(t[1]!, m).no, 5n * BigInt(SHARE));
    assert.equal(engine.position(t[1]!, m).yes, 0n);
  });

  it('rejects an order whose reservation cannot be met (UNDER_COLLATERALIZED)', () => {
    const { engine, market: m, t } = setup({}, 2, 1 * SHARE);
    const r = engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 3 * SHARE));
    assert.equal(!r.ok && r.code, 'UNDER_COLLATERALIZED');
    const s = engine.submit(limit(m, t[0]!, 'yes', 'sell', 50 * CENT, SHARE));
    assert.equal(!s.ok && s.code, 'UNDER_COLLATERALIZED');
    assert.equal(!s.ok && s.field, 'maxShares');
  });
});

describe('minimum fill size', () => {
  it('voids a maker remainder below the minimum fill BELOW_MIN_FILL_SIZE', () => {
    const { engine, market: m, t, dones } = setup({ minOrderSize: SHARE, minFillSize: SHARE / 2 });
    const a = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 2 * SHARE))).id;
    ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 1.7 * SHARE)));
    const d = dones().find((e) => e.id === a)!;
    assert.equal(d.voidReason, 'BELOW_MIN_FILL_SIZE');
    assert.equal(d.order!.filledShares, 1.7 * SHARE);
    assert.equal(engine.book(m).bids.length, 0);
    assert.equal(engine.balance(t[0]!).reserved, 0n);
  });
});

describe('resolution', () => {
  it('voids open orders MARKET_RESOLVED and pays claims by payoutPcts', () => {
    const { engine, market: m, t, dones } = setup({ takerFeeBps: 0 });
    ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 30 * CENT, 10 * SHARE)));
    ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 70 * CENT, 4 * SHARE)));
    ok(engine.submit(limit(m, t[2]!, 'yes', 'buy', 20 * CENT, SHARE)));
    assert.equal(engine.resolve(m, 1_000_000, 2_000_000).ok, true);
    assert.ok(dones().filter((d) => d.voidReason === 'MARKET_RESOLVED').length === 2);
    assert.equal(engine.openOrders({ market: m }).length, 0);
    assert.equal(engine.position(t[0]!, m).claimable, 4n * BigInt(SHARE));
    const before = engine.balance(t[0]!).collateral;
    const c = engine.claim(t[0]!, m);
    assert.deepEqual(c, { ok: true, paid: 4n * BigInt(SHARE) });
    assert.equal(engine.balance(t[0]!).collateral - before, 4n * BigInt(SHARE));
    assert.deepEqual(engine.claim(t[1]!, m), { ok: true, paid: 0n });
    const late = engine.submit(limit(m, t[0]!, 'yes', 'buy', 30 * CENT, SHARE));
    assert.equal(!late.ok && late.code, 'MARKET_NOT_OPEN');
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('splits a 50/50 payout with floor rounding', () => {
    const { engine, market: m, t } = setup();
    engine.mintSets(t[0]!, m, 3n);
    engine.transferTokens(t[0]!, t[1]!, m, 0, 3n);
    engine.resolve(m, 500_000, 0);
    assert.deepEqual(engine.claim(t[0]!, m), { ok: true, paid: 1n });
    assert.deepEqual(engine.claim(t[1]!, m), { ok: true, paid: 1n });
    assert.deepEqual(engine.checkInvariants(), []);
  });
});

describe('bad commands are rejected with a reason naming the field', () => {
  const table: [string, (o: ReturnType<typeof limit>) => void, string, string][] = [
    ['off tick', (o) => (o.price = 505_000), 'OFF_TICK', 'price'],
    ['price 0', (o) => (o.price = 0), 'PRICE_OUT_OF_RANGE', 'price'],
    ['price 1e6', (o) => (o.price = 1_000_000), 'PRICE_OUT_OF_RANGE', 'price'],
    ['fractional price', (o) => (o.price = 500_000.5), 'BAD_INPUT', 'price'],
    ['negative size', (o) => (o.minSharesOut = -1), 'BAD_INPUT', 'minSharesOut'],
    ['below min size', (o) => (o.minSharesOut = 1), 'BELOW_MIN_ORDER_SIZE', 'minSharesOut'],
    ['NaN budget', (o) => (o.maxCollateralIn = NaN), 'BAD_INPUT', 'maxCollateralIn'],
    ['outcome 2', (o) => ((o as { outcome: number }).outcome = 2), 'BAD_INPUT', 'outcome'],
    ['kind 3', (o) => ((o as { kind: number }).kind = 3), 'BAD_INPUT', 'kind'],
    ['tif 5', (o) => ((o as { timeInForce: number }).timeInForce = 5), 'BAD_INPUT', 'timeInForce'],
    ['unknown market', (o) => (o.market = 99), 'UNKNOWN_MARKET', 'market'],
    ['unknown trader', (o) => (o.trader = 99), 'UNKNOWN_TRADER', 'trader'],
    ['expired', (o) => (o.expiry = 10), 'EXPIRED', 'expiry'],
    ['string market', (o) => ((o as { market: unknown }).market = '0'), 'UNKNOWN_MARKET', 'market'],
  ];
  for (const [name, mutate, code, field] of table) {
    it(name, () => {
      const { engine, market: m, t, events } = setup();
      const o = limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE);
      mutate(o);
      const r = engine.submit(o);
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.code, code);
      assert.equal(!r.ok && r.field, field);
      assert.equal(events.length, 0);
      assert.deepEqual(engine.checkInvariants(), []);
    });
  }

  it('ledger commands refuse bad amounts, unknown ids and overdrafts', () => {
    const { engine, market: m, t } = setup({}, 2, SHARE);
    assert.equal((engine.deposit(t[0]!, -5n) as { code: string }).code, 'BAD_INPUT');
    assert.equal((engine.deposit(t[0]!, 2n ** 60n) as { code: string }).code, 'LIMIT_OVERFLOW');
    assert.equal((engine.withdraw(t[0]!, 2n * BigInt(SHARE)) as { code: string }).code, 'INSUFFICIENT_BALANCE');
    assert.equal((engine.mintSets(t[0]!, 7, 1n) as { code: string }).code, 'UNKNOWN_MARKET');
    assert.equal((engine.mergeSets(t[0]!, m, 1n) as { code: string }).code, 'INSUFFICIENT_BALANCE');
    assert.equal((engine.resolve(m, 1_000_001, 0) as { code: string }).code, 'BAD_INPUT');
    assert.equal((engine.claim(t[0]!, m) as { code: string }).code, 'MARKET_NOT_RESOLVED');
    assert.equal(engine.cancel(12345, 0), false);
    assert.equal((engine.apply({ type: 'nope' } as never) as { code: string }).code, 'BAD_INPUT');
    assert.throws(() => engine.addMarket({ tick: 3 }), /tick/);
    assert.deepEqual(engine.checkInvariants(), []);
  });
});

describe('cancel and events', () => {
  it('cancel releases the reservation and emits level removal', () => {
    const { engine, market: m, t, events } = setup();
    const id = ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, SHARE))).id;
    assert.equal(engine.balance(t[0]!).reserved > 0n, true);
    events.length = 0;
    assert.equal(engine.cancel(id, 5), true);
    assert.equal(engine.cancel(id, 5), false);
    assert.deepEqual(
      events.map((e) => e.type),
      ['done', 'level'],
    );
    assert.deepEqual(events[1], { type: 'level', market: m, side: 'bid', price: 50 * CENT, size: 0 });
    assert.equal(engine.balance(t[0]!).reserved, 0n);
    assert.equal(engine.order(id), undefined);
  });
});

describe('queries with bad ids', () => {
  it('answer empty rather than throw', () => {
    const { engine, market: m } = setup();
    for (const bad of [-1, 99, 1.5, NaN, 'constructor', '__proto__'] as unknown as number[]) {
      assert.deepEqual(engine.positions(bad), []);
      assert.equal(engine.position(bad, m).yes, 0n);
      assert.equal(engine.balance(bad).collateral, 0n);
      assert.equal(engine.order(bad), undefined);
      assert.equal(engine.market(bad), undefined);
      assert.deepEqual(engine.book(bad), { market: bad, bids: [], asks: [] });
      assert.equal(engine.bestBid(bad), 0);
    }
  });
});

describe('done events without the final state (doneOrders: false)', () => {
  it('carry the same id, status, reason and cause, and order null', () => {
    const run = (doneOrders: boolean) => {
      const { engine, market: m, t, dones } = setup({}, 4, 1_000 * SHARE, doneOrders);
      ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 2 * SHARE)));
      ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 5 * SHARE, { tif: 1 })));
      const rest = ok(engine.submit(limit(m, t[2]!, 'yes', 'buy', 40 * CENT, 3 * SHARE)));
      engine.cancel(rest.id, 1_000_001);
      return dones();
    };
    const full = run(true);
    const lean = run(false);
    assert.equal(full.length, 3);
    assert.ok(full.every((d) => d.order !== null));
    assert.deepEqual(
      lean,
      full.map((d) => ({ ...d, order: null })),
    );
  });
});

describe('without level events (levelEvents: false)', () => {
  it('emits every other event as with them, in the same order, and no level event', () => {
    const run = (levelEvents: boolean) => {
      const events: EngineEvent[] = [];
      const engine = new MatchingEngine({ sink: (e) => events.push(e), levelEvents });
      const m = engine.addMarket({});
      const t = [0, 1, 2].map(() => engine.addTrader());
      for (const x of t) engine.deposit(x, BigInt(1_000 * SHARE));
      ok(engine.submit(limit(m, t[0]!, 'yes', 'buy', 50 * CENT, 2 * SHARE)));
      ok(engine.submit(limit(m, t[1]!, 'no', 'buy', 50 * CENT, 5 * SHARE, { tif: 1 })));
      const rest = ok(engine.submit(limit(m, t[2]!, 'yes', 'buy', 40 * CENT, 3 * SHARE)));
      ok(engine.submit(limit(m, t[0]!, 'yes', 'sell', 60 * CENT, 1 * SHARE, { mode: 'mint' })));
      engine.cancel(rest.id, 1_000_001);
      engine.cancelAll(t[0]!, m, 1_000_002);
      return { events, book: engine.book(m) };
    };
    const full = run(true);
    const lean = run(false);
    assert.ok(full.events.some((e) => e.type === 'level'));
    assert.ok(full.events.some((e) => e.type === 'fill'));
    assert.equal(lean.events.filter((e) => e.type === 'level').length, 0);
    assert.deepEqual(
      lean.events,
      full.events.filter((e) => e.type !== 'level'),
    );
    assert.deepEqual(lean.book, full.book);
  });
});
