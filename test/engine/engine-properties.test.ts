/**
 * Property: long random command streams (orders of every kind and time in force with perturbed
 * signed limits, cancels, expiry sweeps, mints, merges, deposits, withdrawals, a final resolution and
 * claims) never break conservation or any ledger invariant, never leave a book crossed, never fill
 * beyond a signed limit, never trade with oneself, and never trade through a limit price.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { orderLimitErrors } from '../../src/engine/engine-invariants.ts';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import type { EngineEvent } from '../../src/engine/types.ts';
import { CENT, SHARE, limit } from './helpers.ts';

const TRADERS = 4;

const orderArb = fc.record({
  type: fc.constant('order' as const),
  trader: fc.nat(TRADERS - 1),
  outcome: fc.constantFrom('yes' as const, 'no' as const),
  side: fc.constantFrom('buy' as const, 'sell' as const),
  mode: fc.constantFrom('inventory' as const, 'mint' as const),
  cents: fc.integer({ min: 30, max: 70 }),
  offTick: fc.constantFrom(0, 0, 0, 0, 5_000),
  size: fc.integer({ min: 1, max: 40 }).map((n) => n * 250_000),
  tif: fc.constantFrom(0, 0, 0, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
  // perturb the signed limits: shrink budgets, raise floors, squeeze the fee cap
  budgetPct: fc.constantFrom(100, 100, 100, 80, 50, 10),
  floorPct: fc.constantFrom(100, 100, 100, 101, 110),
  feePct: fc.constantFrom(100, 100, 50, 0),
  expiryIn: fc.constantFrom(0, 0, 0, 5, 30),
});
const cmdArb = fc.oneof(
  { weight: 12, arbitrary: orderArb },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tick' as const), seconds: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('mint' as const), trader: fc.nat(TRADERS - 1), shares: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('merge' as const), trader: fc.nat(TRADERS - 1), shares: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('withdraw' as const), trader: fc.nat(TRADERS - 1), usd: fc.integer({ min: 1, max: 50 }) }) },
);

it('random order streams keep every invariant and every signed limit', () => {
  fc.assert(
    fc.property(
      fc.array(cmdArb, { minLength: 20, maxLength: 250 }),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.constantFrom(0, 20),
      fc.constantFrom(0, 50, 300),
      (cmds, payoutPct, _seed, makerFeeBps, takerFeeBps) => {
        try {
          runStream(cmds, payoutPct, makerFeeBps, takerFeeBps);
        } catch (err) {
          if (process.env.DEBUG_PROP)
            writeFileSync(process.env.DEBUG_PROP, JSON.stringify({ cmds, payoutPct, makerFeeBps, takerFeeBps, msg: (err as Error).message }));
          throw err;
        }
      },
    ),
    { numRuns: 500, seed: 20261121 },
  );
});

type Cmd = typeof cmdArb extends fc.Arbitrary<infer C> ? C : never;

function runStream(cmds: Cmd[], payoutPct: number, makerFeeBps: number, takerFeeBps: number): void {
  {
    {
      const events: EngineEvent[] = [];
      const e = new MatchingEngine({ sink: (ev) => events.push(ev) });
      const m = e.addMarket({ makerFeeBps, takerFeeBps, minOrderSize: 250_000, minFillSize: 100_000 });
      for (let i = 0; i < TRADERS; i++) {
        e.addTrader();
        e.deposit(i, 200n * BigInt(SHARE));
        e.mintSets(i, m, 20n * BigInt(SHARE));
      }
      const ids: number[] = [];
      const bookPrice = new Map<number, { side: string; price: number }>();
      let nowMs = 1_000_000;
      const check = (label: string) => {
        const errs = e.checkInvariants();
        assert.deepEqual(errs, [], label);
        for (const ev of events) {
          if (ev.type === 'accepted') bookPrice.set(ev.id, { side: ev.side, price: ev.bookPrice });
          if (ev.type === 'done') assert.deepEqual(orderLimitErrors(ev.order!), [], `${label}: done order ${ev.id}`);
          if (ev.type === 'fill') {
            assert.notEqual(ev.maker.trader, ev.taker.trader, 'self-trade');
            assert.ok(ev.size >= 100_000, 'fill below the minimum');
            const mk = bookPrice.get(ev.maker.id)!;
            const tk = bookPrice.get(ev.taker.id)!;
            assert.equal(ev.price, mk.price, 'match at the maker price');
            assert.ok(tk.side === 'bid' ? ev.price <= tk.price : ev.price >= tk.price, 'traded through the taker limit');
          }
        }
        events.length = 0;
        for (const o of e.openOrders()) assert.deepEqual(orderLimitErrors(o), [], `${label}: open order ${o.id}`);
      };
      for (const c of cmds) {
        if (c.type === 'order') {
          const o = limit(m, c.trader, c.outcome, c.side, c.cents * CENT + c.offTick, c.size, {
            mode: c.mode,
            tif: c.tif,
            nowMs,
            expiry: c.expiryIn ? Math.floor(nowMs / 1000) + c.expiryIn : 0,
          });
          o.maxFee = Math.floor((o.maxFee * c.feePct) / 100);
          o.maxCollateralIn = Math.floor((o.maxCollateralIn * c.budgetPct) / 100);
          o.minCollateralOut = Math.floor((o.minCollateralOut * c.floorPct) / 100);
          const r = e.submit(o);
          if (r.ok) ids.push(r.id);
        } else if (c.type === 'cancel') {
          if (ids.length) e.cancel(ids[c.pick % ids.length]!, nowMs);
        } else if (c.type === 'tick') {
          nowMs += c.seconds * 1000;
          e.expire(nowMs);
        } else if (c.type === 'mint') {
          e.mintSets(c.trader, m, BigInt(c.shares * SHARE));
        } else if (c.type === 'merge') {
          e.mergeSets(c.trader, m, BigInt(c.shares * SHARE));
        } else {
          e.withdraw(c.trader, BigInt(c.usd * SHARE));
        }
        check(c.type);
      }
      assert.equal(e.resolve(m, payoutPct * 10_000, nowMs).ok, true);
      check('resolve');
      for (let i = 0; i < TRADERS; i++) assert.equal(e.claim(i, m).ok, true);
      check('claims');
      assert.equal(e.market(m)!.status, 'resolved');
    }
  }
}

it('garbage commands are refused with a typed rejection, never a throw or a broken ledger', () => {
  const e = new MatchingEngine();
  const m = e.addMarket();
  e.addTrader();
  e.deposit(0, 100n * BigInt(SHARE));
  const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(NaN, Infinity, -1, 2 ** 60), fc.string(), fc.constant(undefined), fc.constant(null));
  const junkOrder = fc.record({
    market: fc.oneof(fc.constant(m), num),
    trader: fc.oneof(fc.constant(0), num),
    outcome: fc.oneof(fc.constantFrom(0, 1), num),
    kind: fc.oneof(fc.constantFrom(0, 1, 2), num),
    price: fc.oneof(fc.constantFrom(500_000, 10_000, 990_000), num),
    maxShares: num,
    minSharesOut: fc.oneof(fc.constant(SHARE), num),
    maxCollateralIn: fc.oneof(fc.constant(SHARE), num),
    minCollateralOut: num,
    maxFee: fc.oneof(fc.constant(1), num),
    timeInForce: fc.oneof(fc.constantFrom(0, 1, 2), num),
    makerRole: fc.oneof(fc.constantFrom(0, 1, 2), num),
    expiry: num,
    nowMs: fc.oneof(fc.constant(0), num),
  });
  const junkCmd = fc.oneof(
    junkOrder.map((order) => ({ type: 'submit', order })),
    fc.record({
      type: fc.constantFrom('cancel', 'void', 'expire', 'deposit', 'withdraw', 'mintSets', 'mergeSets', 'resolve', 'claim', 'transferTokens', 'bogus'),
      id: num,
      trader: num,
      market: num,
      amount: fc.oneof(fc.bigInt(), num),
      payoutYes: num,
      nowMs: num,
      reason: fc.string(),
      outcome: num,
      from: num,
      to: num,
    }),
    fc.anything(),
  );
  fc.assert(
    fc.property(junkCmd, (cmd) => {
      const r = e.apply(cmd as never);
      assert.equal(typeof r, 'object');
      if (!r.ok) assert.equal(typeof (r as { field: string }).field, 'string');
      assert.deepEqual(e.checkInvariants(), []);
    }),
    { numRuns: 3000, seed: 7 },
  );
});
