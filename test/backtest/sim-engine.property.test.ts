/**
 * Property: whatever the recorded flow and the bot's orders (any side, outcome, inventory mode, time
 * in force, size, expiry, budget), the engine-backed exchange model never throws, its engine keeps
 * its invariants, the holdings reported with each fill are the engine's ledger, the collateral moved
 * by exactly the fills' cash, and no fill exceeds its order or happens after the order's expiry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { QUEUE_MODELS } from '../../src/backtest/queue-model.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import { orderKindOf } from '../../src/exchange/signing/orderMapping.ts';
import { notionalCeil, notionalFloor, ONE } from '../../src/model/units.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { book, order, simOver, trade } from './helpers.ts';

const S = 1_000_000;
const T0 = 1_700_000_000_000;
const cents = fc.integer({ min: 1, max: 99 }).map((c) => c * 10_000);
const shares = fc.integer({ min: 1, max: 40 }).map((n) => (n * S) / 4);

const recorded = fc.oneof(
  fc.record({ kind: fc.constant('level' as const), bid: fc.boolean(), price: cents, size: fc.oneof(fc.constant(0), shares) }),
  fc.record({ kind: fc.constant('trade' as const), buy: fc.boolean(), price: cents, size: shares }),
);
const own = fc.record({
  kind: fc.constant('order' as const),
  side: fc.constantFrom(0 as const, 1 as const),
  outcomeIndex: fc.constantFrom(0 as const, 1 as const),
  inventoryMode: fc.constantFrom(0 as const, 1 as const, 2 as const),
  timeInForce: fc.constantFrom(0 as const, 0 as const, 1 as const, 2 as const),
  price: cents,
  size: shares,
  maxFee: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: undefined }),
  expiresInS: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
});
const cancel = fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() });
const scenario = fc.record({
  steps: fc.array(fc.oneof({ weight: 3, arbitrary: recorded }, { weight: 2, arbitrary: own }, { weight: 1, arbitrary: cancel }), {
    minLength: 5,
    maxLength: 60,
  }),
  collateral: fc.integer({ min: 0, max: 200 }).map((usdc) => BigInt(usdc) * 1_000_000n),
  fees: fc.record({ makerBps: fc.integer({ min: 0, max: 200 }), takerBps: fc.integer({ min: 0, max: 500 }) }),
  queue: fc.constantFrom(...QUEUE_MODELS),
});

test('the engine-backed exchange model keeps the ledger exact under any flow and orders', () => {
  const seen = new Map<string, number>();
  fc.assert(
    fc.property(scenario, (sc) => {
      // every step happens one second after the previous one; recorded steps become rows at that time
      const events: RecordedEvent[] = [book(T0, [[300_000, 10 * S]], [[700_000, 10 * S]])];
      sc.steps.forEach((st, k) => {
        const t = T0 + (k + 1) * 1000;
        if (st.kind === 'level') events.push(book(t, st.bid ? [[st.price, st.size]] : [], st.bid ? [] : [[st.price, st.size]]));
        else if (st.kind === 'trade') events.push(trade(t, st.price, st.size, st.buy ? 'buy' : 'sell'));
      });
      const { x, fills, after, until, c } = simOver(events, { queue: sc.queue, fees: sc.fees, collateral: sc.collateral });
      const placed: PlannedOrder[] = [];
      until(T0);
      sc.steps.forEach((st, k) => {
        const t = T0 + (k + 1) * 1000;
        if (st.kind === 'order') {
          const { kind: _k, expiresInS, maxFee, ...o } = st;
          const p = order({
            ...o,
            ...(maxFee !== undefined ? { maxFee } : {}),
            ...(expiresInS !== undefined ? { expiry: Math.floor(t / 1000) + expiresInS } : {}),
          });
          if (x.place(p, t).ok) placed.push(p);
        } else if (st.kind === 'cancel') {
          if (placed.length > 0) x.cancel(placed[st.pick % placed.length]!.nonce, t);
        } else until(t);
        assert.deepEqual(x.checkInvariants(), []);
      });
      let cash = 0n;
      const filled = new Map<Bytes32, number>();
      fills.forEach((f, i) => {
        const o = x.get(f.nonce)!;
        const p = o.planned;
        const kind = orderKindOf(p.side, p.inventoryMode ?? 0);
        if (kind === 0) cash -= BigInt(notionalCeil(f.price, f.size) + f.fee);
        else if (kind === 1) cash += BigInt(notionalFloor(f.price, f.size) - f.fee);
        else cash -= BigInt(notionalCeil(ONE - f.price, f.size) + f.fee);
        filled.set(o.key, (filled.get(o.key) ?? 0) + f.size);
        seen.set(`${f.cause}/${f.match}`, (seen.get(`${f.cause}/${f.match}`) ?? 0) + 1);
        if (p.expiry) assert.ok(f.at < p.expiry * 1000, 'no fill at or after the expiry');
        assert.ok(f.size > 0 && (f.cause === 'take') === !f.maker);
        const pos = after[i]!;
        assert.ok(pos.yes >= 0 && pos.no >= 0 && pos.collateral >= 0n);
      });
      // a recorded row is shared among our orders: what it filled never exceeds what it printed
      const byRow = new Map<number, number>();
      for (const f of fills) if (f.cause !== 'take') byRow.set(f.row, (byRow.get(f.row) ?? 0) + f.size);
      for (const [r, n] of byRow) assert.ok(n <= c.size[r]!, `row ${r} filled ${n} > ${c.size[r]}`);
      const { balance } = x.account();
      assert.equal(balance.collateral, sc.collateral + cash, 'collateral moved by exactly the fills');
      for (const [key, n] of filled) {
        const o = x.get(key)!;
        assert.ok(n <= o.planned.size, 'never more than the order');
        assert.equal(n, o.filled);
        const fees = fills.filter((f) => f.nonce.toLowerCase() === key).reduce((a, f) => a + f.fee, 0);
        assert.ok(o.planned.maxFee === undefined || fees <= o.planned.maxFee, 'fees within maxFee');
      }
      if (after.length > 0) {
        const last = after[after.length - 1]!;
        const p = x.engine.position(x.bot, 0);
        assert.deepEqual([p.yes, p.no], [BigInt(last.yes), BigInt(last.no)]);
      }
    }),
    { numRuns: 300, seed: 21 },
  );
  // the generator reaches every path: each cause and each match kind
  const kinds = [...seen.keys()].join(' ');
  for (const k of ['trade/', 'cross/', 'take/', '/mint', '/merge', '/transfer']) assert.ok(kinds.includes(k), `no ${k} fill: ${kinds}`);
});
