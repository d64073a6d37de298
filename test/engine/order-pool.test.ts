/**
 * The order pool's records across chunk boundaries (a book of more than one 4096-slot chunk), id
 * generations on slot reuse, and the engine's position lookups across markets (the per-trader
 * last-market cache must never answer for the wrong market).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import { CHUNK_SLOTS, F_QTY, F_STRIDE, FL_KIND, I_FLAGS, I_STRIDE, OrderPool } from '../../src/engine/order-pool.ts';
import { CENT, SHARE, limit, setup } from './helpers.ts';

describe('order pool', () => {
  it('hands out slots across chunks, frees them LIFO and never repeats an id', () => {
    const p = new OrderPool(16);
    const n = CHUNK_SLOTS * 2 + 10;
    const slots: number[] = [];
    for (let i = 0; i < n; i++) slots.push(p.alloc());
    assert.deepEqual(slots.slice(0, 3), [0, 1, 2]);
    assert.equal(slots[n - 1], n - 1);
    assert.ok(p.capacity >= n);
    const ids = new Set(slots.map((s) => p.idOf(s)));
    const last = slots[n - 1]!;
    const oldId = p.idOf(last);
    assert.equal(p.slotOf(oldId), last);
    p.free(last);
    assert.equal(p.slotOf(oldId), -1, 'a freed slot answers its old id as unknown');
    const again = p.alloc();
    assert.equal(again, last, 'the last freed slot is reused first');
    const newId = p.idOf(again);
    assert.notEqual(newId, oldId);
    assert.ok(!ids.has(newId));
    assert.equal(p.slotOf(newId), again);
    assert.equal(p.slotOf(oldId), -1);
    assert.equal(p.live, n);
  });

  it('keeps all four signed limits of every kind, the non-binding ones only while the slot lives', () => {
    const p = new OrderPool(16);
    const cases = [
      { kind: 0, lim: { maxShares: 7, minSharesOut: 5_000_000, maxCollateralIn: 2_600_000, minCollateralOut: 2 ** 52 } },
      { kind: 1, lim: { maxShares: 5_000_000, minSharesOut: 3, maxCollateralIn: 11, minCollateralOut: 2_400_000 } },
      { kind: 2, lim: { maxShares: 5_000_000, minSharesOut: 0, maxCollateralIn: 2_600_000, minCollateralOut: 9 } },
      { kind: 0, lim: { maxShares: 0, minSharesOut: 5_000_000, maxCollateralIn: 2_600_000, minCollateralOut: 0 } },
    ];
    for (const c of cases) {
      const s = p.alloc();
      // the engine writes kind and quantity before the limits
      p.ic[0]![s * I_STRIDE + I_FLAGS] = p.ic[0]![s * I_STRIDE + I_FLAGS]! | (c.kind << FL_KIND);
      p.fc[0]![s * F_STRIDE + F_QTY] = c.kind === 0 ? c.lim.minSharesOut : c.lim.maxShares;
      p.setLimits(s, c.kind, c.lim);
      assert.deepEqual(p.limitsOf(s), c.lim);
    }
    assert.equal(p.extras.size, 3, 'all-zero non-binding limits take no side entry');
    p.free(0);
    assert.equal(p.extras.size, 2, 'freeing a slot drops its side entry');
  });

  it('answers -1 for ids that are not ids', () => {
    const p = new OrderPool(16);
    const s = p.alloc();
    for (const bad of [0, -1, 1.5, NaN, Infinity, 2 ** 60, p.idOf(s) + 1, p.idOf(s) - 2 ** 24]) assert.equal(p.slotOf(bad), -1, String(bad));
  });
});

describe('a book larger than one chunk', () => {
  it('rests, reads back, fills and cancels orders in every chunk with all invariants holding', () => {
    const { engine, market, t } = setup({ takerFeeBps: 30 }, 3, 100_000_000 * SHARE);
    const n = CHUNK_SLOTS * 2 + 500;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const price = (10 + (i % 30)) * CENT;
      const r = engine.submit(limit(market, t[i % 2]!, 'yes', 'buy', price, SHARE + i, { nowMs: 1_000 + i }));
      assert.ok(r.ok && r.status === 'open');
      ids.push(r.id);
    }
    assert.equal(engine.openOrders().length, n);
    // fields of an order in the last chunk read back exactly
    const k = n - 7;
    const o = engine.order(ids[k]!)!;
    assert.equal(o.quantity, SHARE + k);
    assert.equal(o.price, (10 + (k % 30)) * CENT);
    assert.equal(o.trader, t[k % 2]);
    assert.equal(o.createdAtMs, 1_000 + k);
    // cancel every third order, then sweep the best levels with a big NO buy (an ask in YES terms)
    let cancelled = 0;
    for (let i = 0; i < n; i += 3) if (engine.cancel(ids[i]!, 2_000)) cancelled++;
    assert.equal(cancelled, Math.ceil(n / 3));
    const sweep = engine.submit(limit(market, t[2]!, 'no', 'buy', 62 * CENT, 3_000 * SHARE, { tif: 1, nowMs: 3_000 }));
    assert.ok(sweep.ok && sweep.filledShares > 0);
    assert.deepEqual(engine.checkInvariants(), []);
    // refill freed slots (reused from the free list) and check again
    for (let i = 0; i < 1_000; i++) engine.submit(limit(market, t[i % 2]!, 'yes', 'buy', 20 * CENT, SHARE, { nowMs: 4_000 + i }));
    assert.deepEqual(engine.checkInvariants(), []);
    const live = new Set(engine.openOrders().map((x) => x.id));
    for (let i = 0; i < n; i += 3) assert.ok(!live.has(ids[i]!), 'a cancelled id never comes back');
  });
});

describe('positions in several markets', () => {
  it('fills alternating between markets land in the right market', () => {
    const e = new MatchingEngine();
    const m0 = e.addMarket({ takerFeeBps: 0 });
    const m1 = e.addMarket({ takerFeeBps: 0 });
    const a = e.addTrader();
    const b = e.addTrader();
    e.deposit(a, 1_000n * BigInt(SHARE));
    e.deposit(b, 1_000n * BigInt(SHARE));
    const shares = [0, 0];
    for (let i = 0; i < 20; i++) {
      const m = i % 3 === 0 ? m0 : m1;
      const size = (1 + i) * 100_000;
      assert.ok(e.submit(limit(m, a, 'yes', 'buy', 40 * CENT, size)).ok);
      const r = e.submit(limit(m, b, 'no', 'buy', 60 * CENT, size, { tif: 1 }));
      assert.ok(r.ok && r.filledShares === size);
      shares[m] += size;
    }
    assert.equal(e.position(a, m0).yes, BigInt(shares[m0]!));
    assert.equal(e.position(a, m1).yes, BigInt(shares[m1]!));
    assert.equal(e.position(b, m0).no, BigInt(shares[m0]!));
    assert.equal(e.position(b, m1).no, BigInt(shares[m1]!));
    assert.equal(e.position(a, m0).no, 0n);
    // a sale of YES from inventory in market 0 must not see market 1's tokens
    const tooMany = e.submit(limit(m0, a, 'yes', 'sell', 40 * CENT, shares[m0]! + 100_000));
    assert.ok(!tooMany.ok && tooMany.code === 'UNDER_COLLATERALIZED');
    assert.ok(e.submit(limit(m0, a, 'yes', 'sell', 40 * CENT, shares[m0]!)).ok);
    assert.deepEqual(e.checkInvariants(), []);
    // a fresh trader's queries for markets that are not markets answer empty
    const c = e.addTrader();
    for (const bad of [-1, 2, NaN, 0.5]) assert.deepEqual(e.position(c, bad), { market: bad, yes: 0n, no: 0n, yesReserved: 0n, noReserved: 0n, claimable: 0n });
    assert.deepEqual(e.position(a, -1).yes, 0n);
  });
});

describe('hot and cold records', () => {
  it('derive paid and received from the reservation left, and keep expiry and times in the cold record', () => {
    const { engine, market, t } = setup({ makerFeeBps: 0, takerFeeBps: 100 }, 3, 1_000 * SHARE);
    // a BUY maker with an expiry, partly filled twice: paid = maxCollateralIn − reserved − fees
    const buy = limit(market, t[0]!, 'yes', 'buy', 40 * CENT, 10 * SHARE, { expiry: 5_000_000, nowMs: 1_000 });
    const m = engine.submit(buy);
    assert.ok(m.ok && m.status === 'open');
    for (const [size, nowMs] of [
      [3 * SHARE, 2_000],
      [2 * SHARE, 3_000],
    ] as const) {
      const r = engine.submit(limit(market, t[1]!, 'no', 'buy', 60 * CENT, size, { tif: 1, nowMs }));
      assert.ok(r.ok && r.status === 'filled');
    }
    const o = engine.order(m.id)!;
    assert.equal(o.filledShares, 5 * SHARE);
    assert.equal(o.collateralPaid, 2 * SHARE, '5 shares at 40¢');
    assert.equal(o.fees, 0);
    assert.equal(o.maxCollateralIn, buy.maxCollateralIn);
    assert.equal(engine.balance(t[0]!).reserved, BigInt(buy.maxCollateralIn - o.collateralPaid - o.fees));
    assert.equal(o.expiry, 5_000_000);
    assert.equal(o.createdAtMs, 1_000);
    assert.equal(o.updatedAtMs, 3_000, 'the last fill');
    // a SELL_INVENTORY order (trader 1 holds NO now): received, its binding minCollateralOut
    const sell = limit(market, t[1]!, 'no', 'sell', 55 * CENT, 4 * SHARE, { nowMs: 4_000 });
    const s = engine.submit(sell);
    assert.ok(s.ok && s.status === 'open');
    const taker = engine.submit(limit(market, t[2]!, 'no', 'buy', 55 * CENT, SHARE, { tif: 1, nowMs: 5_000 }));
    assert.ok(taker.ok && taker.status === 'filled');
    const so = engine.order(s.id)!;
    assert.equal(so.collateralReceived, 550_000);
    assert.equal(so.collateralPaid, 0);
    assert.equal(so.minCollateralOut, sell.minCollateralOut);
    assert.equal(so.expiry, 0);
    assert.deepEqual(engine.checkInvariants(), []);
    // the expiry flag: the maker expires when a sweep meets it after its time, not before
    assert.equal(engine.expire(4_999_999_000), 0);
    assert.equal(engine.expire(5_000_000_000), 1);
    assert.equal(engine.order(m.id), undefined);
    assert.equal(engine.balance(t[0]!).reserved, 0n);
    assert.deepEqual(engine.checkInvariants(), []);
  });
});
