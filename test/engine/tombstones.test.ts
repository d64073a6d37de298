/**
 * Lazy cancels (tombstones, see src/engine/price-ladder.ts): a cancelled resting order stays linked
 * until a walker frees it, yet must never trade, never count in a level's size or order count, and
 * never hold its slot forever. Checked case by case and against a plain reference book.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CENT, SHARE, limit, setup } from './helpers.ts';

const NO_FEES = { makerFeeBps: 0, takerFeeBps: 0 };

/** Resting YES bids of `trader` at `cents`, one share each; returns their ids. */
function bids(engine: ReturnType<typeof setup>['engine'], market: number, trader: number, cents: number, n: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = engine.submit(limit(market, trader, 'yes', 'buy', cents * CENT, SHARE));
    assert.ok(r.ok && r.status === 'open');
    ids.push(r.id);
  }
  return ids;
}

describe('tombstones', () => {
  it('a cancelled order is skipped by the taker that walks through it, and its id no longer answers', () => {
    const { engine, market, t, fills } = setup(NO_FEES);
    const ids = bids(engine, market, t[0]!, 50, 3);
    assert.equal(engine.cancel(ids[0]!, 1), true);
    assert.equal(engine.cancel(ids[0]!, 1), false, 'a second cancel of the same id');
    assert.equal(engine.order(ids[0]!), undefined);
    assert.deepEqual(engine.book(market).bids, [{ price: 50 * CENT, size: 2 * SHARE, orders: 2 }]);
    const r = engine.submit(limit(market, t[1]!, 'no', 'buy', 50 * CENT, SHARE, { tif: 1 }));
    assert.ok(r.ok && r.status === 'filled');
    assert.deepEqual(
      fills().map((f) => f.maker.id),
      [ids[1]],
    );
    assert.deepEqual(engine.checkInvariants(), []);
    // the taker's walk freed the tombstone: one slot left, one open order
    assert.deepEqual(engine.slotStats(), { slots: 1, open: 1, tombstones: 0 });
  });

  it('cancelling every order of the best level moves the best bid and frees the whole chain', () => {
    const { engine, market, t } = setup(NO_FEES);
    bids(engine, market, t[0]!, 40, 2);
    const top = bids(engine, market, t[0]!, 45, 4);
    for (const id of top.slice(0, 3)) engine.cancel(id, 1);
    assert.equal(engine.bestBid(market), 45 * CENT, 'one live order still holds the level');
    assert.equal(engine.slotStats().tombstones, 3);
    engine.cancel(top[3]!, 1);
    assert.equal(engine.bestBid(market), 40 * CENT);
    assert.deepEqual(engine.book(market).bids, [{ price: 40 * CENT, size: 2 * SHARE, orders: 2 }]);
    assert.deepEqual(engine.slotStats(), { slots: 2, open: 2, tombstones: 0 });
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('a sell that crosses into a level of tombstones only does not trade with them', () => {
    const { engine, market, t, fills } = setup(NO_FEES);
    const ids = bids(engine, market, t[0]!, 55, 2);
    bids(engine, market, t[0]!, 50, 1);
    // a walk empties 55¢ of live orders but stops before the tombstone behind them
    engine.cancel(ids[1]!, 1);
    const r = engine.submit(limit(market, t[1]!, 'no', 'buy', 45 * CENT, SHARE, { tif: 1 }));
    assert.ok(r.ok && r.status === 'filled');
    assert.deepEqual(
      fills().map((f) => [f.maker.id, f.price]),
      [[ids[0], 55 * CENT]],
    );
    assert.equal(engine.bestBid(market), 50 * CENT);
    // a new order at the emptied level rests behind nothing (the leftover tombstone is dropped)
    const again = bids(engine, market, t[2]!, 55, 1);
    assert.deepEqual(engine.slotStats(), { slots: 2, open: 2, tombstones: 0 });
    const r2 = engine.submit(limit(market, t[1]!, 'no', 'buy', 45 * CENT, SHARE, { tif: 1 }));
    assert.ok(r2.ok && r2.status === 'filled');
    assert.equal(fills().at(-1)!.maker.id, again[0]);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('freed slots are reused, and tombstones are compacted once they outnumber live orders', () => {
    const { engine, market, t } = setup(NO_FEES, 2, 100_000 * SHARE);
    const ids = bids(engine, market, t[0]!, 30, 300);
    // cancel every other order: tombstones pile up until they outnumber the live orders
    for (let i = 0; i < 300; i += 2) engine.cancel(ids[i]!, 1);
    let s = engine.slotStats();
    assert.equal(s.open, 150);
    assert.ok(s.tombstones <= 150, `compaction keeps tombstones at most the live count (${s.tombstones})`);
    for (let i = 1; i < 300 && i < 250; i += 2) engine.cancel(ids[i]!, 1);
    s = engine.slotStats();
    assert.equal(s.open, 25);
    assert.ok(s.slots <= 2 * 25 + 64, `slots bounded (${s.slots})`);
    assert.deepEqual(engine.checkInvariants(), []);
    // new orders take freed slots instead of growing the pool: the count of slots in use stays put
    const before = s.slots;
    bids(engine, market, t[1]!, 31, 10);
    assert.equal(engine.slotStats().slots, before + 10);
    assert.equal(engine.book(market).bids[1]!.orders, 25);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('open order listings, cancelAll, expiry and resolution ignore tombstones', () => {
    const { engine, market, t, dones } = setup(NO_FEES);
    const ids = bids(engine, market, t[0]!, 40, 3);
    engine.cancel(ids[1]!, 1);
    assert.deepEqual(
      engine.openOrders({ trader: t[0]! }).map((o) => o.id),
      [ids[0], ids[2]],
    );
    const n0 = dones().length;
    assert.equal(engine.cancelAll(t[0]!, market, 2), 2);
    assert.equal(dones().length, n0 + 2, 'no done event for the tombstone');
    assert.deepEqual(engine.slotStats(), { slots: 0, open: 0, tombstones: 0 });
    const more = bids(engine, market, t[0]!, 40, 2);
    engine.cancel(more[0]!, 3);
    assert.equal(engine.expire(10_000_000_000_000), 0);
    assert.ok(engine.resolve(market, SHARE, 4).ok);
    assert.equal(dones().filter((d) => d.cause === 'resolution').length, 1);
    assert.deepEqual(engine.slotStats(), { slots: 0, open: 0, tombstones: 0 });
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('a FOK dry run does not count tombstones as liquidity', () => {
    const { engine, market, t } = setup(NO_FEES);
    const ids = bids(engine, market, t[0]!, 50, 2);
    engine.cancel(ids[0]!, 1);
    const r = engine.submit(limit(market, t[1]!, 'no', 'buy', 50 * CENT, 2 * SHARE, { tif: 2 }));
    assert.ok(r.ok && r.status === 'voided');
    assert.deepEqual(engine.book(market).bids, [{ price: 50 * CENT, size: SHARE, orders: 1 }]);
    assert.deepEqual(engine.checkInvariants(), []);
  });

  it('matches a plain reference book under random adds, cancels and crossing orders', () => {
    type Op =
      | { type: 'add'; trader: number; cents: number; shares: number }
      | { type: 'cancel'; pick: number }
      | { type: 'take'; cents: number; shares: number };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          type: fc.constant('add' as const),
          trader: fc.nat(2),
          cents: fc.integer({ min: 45, max: 50 }),
          shares: fc.integer({ min: 1, max: 4 }),
        }),
      },
      { weight: 5, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat(10_000) }) },
      {
        weight: 2,
        arbitrary: fc.record({ type: fc.constant('take' as const), cents: fc.integer({ min: 44, max: 50 }), shares: fc.integer({ min: 1, max: 8 }) }),
      },
    );
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 300 }), (ops) => {
        const { engine, market, t, fills } = setup(NO_FEES, 4, 1_000_000 * SHARE);
        // the reference: live bids in arrival order, each with its level and remaining shares
        const ref: { id: number; cents: number; left: number }[] = [];
        const ids: number[] = [];
        for (const op of ops) {
          if (op.type === 'add') {
            const r = engine.submit(limit(market, t[op.trader]!, 'yes', 'buy', op.cents * CENT, op.shares * SHARE));
            assert.ok(r.ok && r.status === 'open');
            ids.push(r.id);
            ref.push({ id: r.id, cents: op.cents, left: op.shares * SHARE });
          } else if (op.type === 'cancel') {
            if (ids.length === 0) continue;
            const id = ids[op.pick % ids.length]!;
            const k = ref.findIndex((o) => o.id === id);
            assert.equal(engine.cancel(id, 1), k >= 0);
            if (k >= 0) ref.splice(k, 1);
          } else {
            // expected fills: best price first, then time
            const expected: [number, number][] = [];
            let want = op.shares * SHARE;
            const queue = ref.filter((o) => o.cents >= 100 - (100 - op.cents)).sort((a, b) => b.cents - a.cents);
            for (const o of queue) {
              if (want === 0) break;
              const n = Math.min(want, o.left);
              expected.push([o.id, n]);
              o.left -= n;
              want -= n;
            }
            for (let k = ref.length - 1; k >= 0; k--) if (ref[k]!.left === 0) ref.splice(k, 1);
            const n0 = fills().length;
            // trader 3 never rests, so no self-trade: a BUY NO at (100 − c)¢ sells YES down to c¢
            const r = engine.submit(limit(market, t[3]!, 'no', 'buy', (100 - op.cents) * CENT, op.shares * SHARE, { tif: 1 }));
            assert.ok(r.ok);
            assert.deepEqual(
              fills()
                .slice(n0)
                .map((f) => [f.maker.id, f.size]),
              expected,
            );
          }
          const levels = new Map<number, { size: number; orders: number }>();
          for (const o of ref) {
            const l = levels.get(o.cents) ?? { size: 0, orders: 0 };
            l.size += o.left;
            l.orders++;
            levels.set(o.cents, l);
          }
          const want = [...levels].sort((a, b) => b[0] - a[0]).map(([c, l]) => ({ price: c * CENT, ...l }));
          assert.deepEqual(engine.book(market).bids, want);
          assert.equal(engine.bestBid(market), want.length > 0 ? want[0]!.price : 0);
        }
        assert.deepEqual(engine.checkInvariants(), []);
        const s = engine.slotStats();
        assert.equal(s.open, ref.length);
        // tombstones bounded: per level at most max(live, COMPACT_MIN) of them, 12 levels here
        assert.ok(s.tombstones <= Math.max(ref.length, 12 * 64));
      }),
      { numRuns: 200, seed: 20261121 },
    );
  });
});
