/**
 * The shortcuts of `submit` decide exactly as the general path: a fresh non-crossing GTC payer rests
 * at once only when its budget covers its whole quantity (else the general own-price check decides),
 * orders of different object shapes (the callers' several literals) are read the same, the field
 * checks on values agree with `validateOrder` on the object, and stale ids are refused from the
 * link entries alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import type { SubmitOrder } from '../../src/engine/types.ts';
import { DEFAULT_MARKET_CONFIG } from '../../src/engine/types.ts';
import { validateOrder } from '../../src/engine/validate-order.ts';
import { CENT, SHARE, limit, setup } from './helpers.ts';

describe('submit: the direct rest of a fresh non-crossing GTC payer', () => {
  it('rests with the same events and state as the general path', () => {
    const { engine, market, t, events } = setup();
    const r = engine.submit(limit(market, t[0]!, 'yes', 'buy', 40 * CENT, 5 * SHARE));
    assert.ok(r.ok);
    assert.equal(r.status, 'open');
    assert.equal(r.filledShares, 0);
    assert.deepEqual(
      events.map((e) => e.type),
      ['accepted', 'level'],
    );
    assert.deepEqual(events[1], { type: 'level', market, side: 'bid', price: 40 * CENT, size: 5 * SHARE });
    const o = engine.order(r.id)!;
    assert.equal(o.status, 'open');
    assert.equal(o.remainingShares, 5 * SHARE);
    assert.equal(engine.bestBid(market), 40 * CENT);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('leaves a budget below the whole quantity to the own-price check: rests if a minimum fill fits', () => {
    const { engine, market, t } = setup();
    // 5 shares at 40¢ cost 2 USDC; a budget of 1 USDC covers 2.5 shares, well above the minimum fill
    const o = { ...limit(market, t[0]!, 'yes', 'buy', 40 * CENT, 5 * SHARE), maxCollateralIn: SHARE, maxFee: 0 };
    const r = engine.submit(o);
    assert.ok(r.ok);
    assert.equal(r.status, 'open');
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('voids an order whose budget cannot buy even a minimum fill at its own price', () => {
    const { engine, market, t, dones } = setup();
    // 0.001 USDC buys 0.0025 shares at 40¢, below the 0.01-share minimum fill
    const o = { ...limit(market, t[0]!, 'yes', 'buy', 40 * CENT, 5 * SHARE), maxCollateralIn: 1_000, maxFee: 0 };
    const r = engine.submit(o);
    assert.ok(r.ok);
    assert.equal(r.status, 'voided');
    assert.equal(dones()[0]!.voidReason, 'BELOW_MIN_FILL_SIZE');
    assert.equal(engine.bestBid(market), 0);
    assert.equal(engine.balance(t[0]!).reserved, 0n);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('does not take IOC or taker-only orders, nor inventory sells, by the shortcut', () => {
    const { engine, market, t } = setup();
    const ioc = engine.submit(limit(market, t[0]!, 'yes', 'buy', 40 * CENT, SHARE, { tif: 1 }));
    assert.ok(ioc.ok && ioc.status === 'voided');
    const taker = engine.submit(limit(market, t[0]!, 'yes', 'buy', 40 * CENT, SHARE, { makerRole: 2 }));
    assert.ok(taker.ok && taker.status === 'voided');
    engine.mintSets(t[1]!, market, BigInt(10 * SHARE));
    const sell = engine.submit(limit(market, t[1]!, 'yes', 'sell', 60 * CENT, SHARE));
    assert.ok(sell.ok && sell.status === 'open');
    assert.equal(engine.bestAsk(market), 60 * CENT);
    assert.deepEqual(engine.checkInvariants(), []);
  });
});

describe('submit: orders of several object shapes', () => {
  it('reads the same order the same way whatever its property order or optional fields', () => {
    const base = limit(0, 0, 'no', 'buy', 30 * CENT, 3 * SHARE);
    const shapes: SubmitOrder[] = [
      base,
      {
        nowMs: base.nowMs,
        market: 0,
        trader: 0,
        outcome: 0,
        kind: 0,
        price: base.price,
        maxShares: 0,
        minSharesOut: 3 * SHARE,
        maxCollateralIn: base.maxCollateralIn,
        minCollateralOut: 0,
        maxFee: base.maxFee,
      },
      { ...base, expiry: undefined, makerRole: undefined, timeInForce: undefined, marketOrder: undefined },
    ];
    const states = shapes.map((o) => {
      const e = new MatchingEngine();
      e.addMarket();
      e.deposit(e.addTrader(), BigInt(100 * SHARE));
      const r = e.submit(o);
      assert.ok(r.ok);
      return e.order(r.id);
    });
    assert.deepEqual(states[1], states[0]);
    assert.deepEqual(states[2], states[0]);
  });
});

describe('validateOrder', () => {
  it('refuses every kind of bad order, naming a field it changed', () => {
    const cfg = { ...DEFAULT_MARKET_CONFIG };
    const good = limit(0, 0, 'yes', 'buy', 40 * CENT, 2 * SHARE);
    const bad: Partial<Record<keyof SubmitOrder, unknown>>[] = [
      { outcome: 2 },
      { kind: 3 },
      { price: -1 },
      { price: 40 * CENT + 1 },
      { price: 0 },
      { price: 1_000_000 },
      { price: 0.5 },
      { maxShares: -1 },
      { minSharesOut: 1.5 },
      { maxCollateralIn: NaN },
      { minCollateralOut: '1' },
      { maxFee: 2 ** 60 },
      { timeInForce: 3 },
      { makerRole: -1 },
      { expiry: 1.25 },
      { nowMs: Infinity },
      { minSharesOut: 1 },
      { minSharesOut: 2e15 },
      { maxCollateralIn: 0 },
      { expiry: 1, nowMs: 5_000 },
      {},
    ];
    for (const patch of bad) {
      const r = validateOrder({ ...good, ...patch } as SubmitOrder, cfg);
      const fields = Object.keys(patch);
      if (fields.length === 0) assert.equal(r, null);
      else assert.ok(r && fields.includes(r.field), `${JSON.stringify(patch)} → ${JSON.stringify(r)}`);
    }
    assert.equal(validateOrder(good, cfg), null);
  });
});

describe('submit: the inline field checks', () => {
  it('accept and refuse exactly as validateOrder, and never throw, whatever the field values', () => {
    const cfg = { ...DEFAULT_MARKET_CONFIG };
    const good = limit(0, 0, 'yes', 'buy', 40 * CENT, 2 * SHARE);
    const hostile = {
      valueOf() {
        throw new Error('valueOf called');
      },
    };
    const patches: Partial<Record<keyof SubmitOrder, unknown>>[] = [
      {},
      { expiry: undefined },
      { expiry: 2_000_000_000 },
      { expiry: 1, nowMs: 5_000 },
      { timeInForce: undefined, makerRole: undefined },
      { outcome: 0, price: 60 * CENT },
      { outcome: 2 },
      { outcome: '1' },
      { kind: 3 },
      { kind: 2, maxShares: 2 * SHARE, minSharesOut: 0 },
      { price: -1 },
      { price: 40 * CENT + 1 },
      { price: 1e6 + 0.5 },
      { price: 40n * 10_000n },
      { price: hostile },
      { price: Symbol('p') },
      { price: '400000' },
      { price: 0 },
      { price: 1_000_000 },
      { price: 0.5 },
      { maxShares: -1 },
      { minSharesOut: 1.5 },
      { minSharesOut: 2n },
      { minSharesOut: 2 ** 40 },
      { minSharesOut: 2e15 },
      { minSharesOut: 1 },
      { maxCollateralIn: NaN },
      { maxCollateralIn: hostile },
      { maxCollateralIn: 0 },
      { maxCollateralIn: 2 ** 31, maxFee: 2 ** 31 - 1 },
      { minCollateralOut: '1' },
      { minCollateralOut: -0.5 },
      { maxFee: 2 ** 60 },
      { maxFee: -1 },
      { timeInForce: 3 },
      { timeInForce: 2 },
      { makerRole: -1 },
      { makerRole: 1 },
      { expiry: 1.25 },
      { expiry: -1 },
      { nowMs: Infinity },
      { nowMs: NaN },
      { nowMs: -1 },
      { nowMs: '5' },
      { nowMs: 1.5 },
    ];
    for (const patch of patches) {
      const o = { ...good, ...patch } as SubmitOrder;
      const want = validateOrder(o, cfg);
      const e = new MatchingEngine();
      e.addMarket(cfg);
      e.deposit(e.addTrader(), 10n ** 15n);
      let r: ReturnType<MatchingEngine['submit']> | undefined;
      assert.doesNotThrow(
        () => {
          r = e.submit(o);
        },
        String(Object.keys(patch)),
      );
      const label = Object.entries(patch)
        .map(([k, v]) => `${k}=${typeof v === 'symbol' ? 'symbol' : typeof v === 'object' ? 'object' : String(v)}`)
        .join(',');
      if (want) assert.deepEqual(r, want, label);
      else assert.equal(r!.ok, true, `${label}: ${JSON.stringify(r)}`);
    }
  });
});

describe('cancel by id', () => {
  it('refuses stale, reused-slot and malformed ids without touching the book', () => {
    const { engine, market, t } = setup();
    const a = engine.submit(limit(market, t[0]!, 'yes', 'buy', 40 * CENT, SHARE));
    assert.ok(a.ok);
    assert.equal(engine.cancel(a.id, 1), true);
    assert.equal(engine.cancel(a.id, 2), false, 'cancelled already');
    // the freed slot is reused by the next order: the old id must not reach it
    const b = engine.submit(limit(market, t[0]!, 'yes', 'buy', 41 * CENT, SHARE));
    assert.ok(b.ok && b.status === 'open');
    assert.notEqual(b.id, a.id);
    assert.equal(engine.cancel(a.id, 3), false);
    for (const id of [0, -1, 1.5, NaN, 2 ** 60, b.id + 1]) assert.equal(engine.cancel(id, 4), false, String(id));
    assert.equal(engine.order(b.id)?.status, 'open');
    assert.equal(engine.feeBalance(), 0n);
    assert.deepEqual(engine.checkInvariants(), []);
  });
});
