import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { L2Book, microprice } from '../../src/core/l2-book.ts';
import { BadInputError } from '../../src/model/errors.ts';

test('snapshot then levels, best prices and sizes', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applySnapshot({
    bids: [
      { price: 450_000, size: 5_000_000 },
      { price: 440_000, size: 2_000_000 },
    ],
    asks: [
      { price: 470_000, size: 1_000_000 },
      { price: 480_000, size: 3_000_000 },
    ],
  });
  assert.equal(b.bestBid(), 450_000);
  assert.equal(b.bestAsk(), 470_000);
  assert.equal(b.bestBidSize(), 5_000_000);
  assert.equal(b.bestAskSize(), 1_000_000);
  assert.equal(b.spread(), 20_000);
  assert.equal(b.mid(), 460_000);
  assert.deepEqual(b.levels('bid', 5), [
    { price: 450_000, size: 5_000_000 },
    { price: 440_000, size: 2_000_000 },
  ]);
  assert.deepEqual(b.levels('ask', 1), [{ price: 470_000, size: 1_000_000 }]);
  assert.equal(b.depth('bid'), 2);
  assert.equal(b.sizeAt('ask', 480_000), 3_000_000);
  assert.equal(b.sizeAt('ask', 490_000), 0);
});

test('removing the best level walks to the next one; emptying a side reports -1', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applyLevel('bid', 300_000, 1);
  b.applyLevel('bid', 100_000, 2);
  b.applyLevel('bid', 300_000, 0);
  assert.equal(b.bestBid(), 100_000);
  b.applyLevel('bid', 100_000, 0);
  assert.equal(b.bestBid(), -1);
  assert.equal(b.bestBidSize(), 0);
  assert.equal(b.spread(), -1);
  assert.ok(Number.isNaN(b.mid()));
  b.applyLevel('ask', 600_000, 4);
  b.applyLevel('ask', 700_000, 4);
  b.applyLevel('ask', 600_000, 0);
  assert.equal(b.bestAsk(), 700_000);
  // removing an empty level is a no-op
  b.applyLevel('ask', 650_000, 0);
  assert.equal(b.depth('ask'), 1);
  b.applyLevels('ask', [
    { price: 680_000, size: 5 },
    { price: 700_000, size: 0 },
  ]);
  b.applyLevels('bid', [{ price: 200_000, size: 9 }]);
  assert.deepEqual([b.bestAsk(), b.bestAskSize(), b.depth('ask'), b.bestBid()], [680_000, 5, 1, 200_000]);
});

test('a new snapshot replaces everything', () => {
  const b = new L2Book();
  b.applySnapshot({ bids: [{ price: 500_000, size: 1 }], asks: [{ price: 600_000, size: 1 }] });
  b.applySnapshot({ bids: [{ price: 100_000, size: 7 }], asks: [] });
  assert.equal(b.bestBid(), 100_000);
  assert.equal(b.bestAsk(), -1);
  assert.equal(b.sizeAt('bid', 500_000), 0);
  assert.equal(b.sizeAt('ask', 600_000), 0);
  assert.equal(b.depth('ask'), 0);
});

test('bad input is a BadInputError naming the field, and a bad snapshot leaves the book intact', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applyLevel('bid', 400_000, 10);
  assert.throws(() => b.applyLevel('bid', 405_000, 1), (e: unknown) => e instanceof BadInputError && e.field === 'bid.price');
  assert.throws(() => b.applyLevel('ask', 0, 1), BadInputError);
  assert.throws(() => b.applyLevel('ask', 1_000_000, 1), BadInputError);
  assert.throws(() => b.applyLevel('ask', 500_000, -1), (e: unknown) => e instanceof BadInputError && e.field === 'ask.size');
  assert.throws(() => b.applyLevel('ask', 500_000, NaN), BadInputError);
  assert.throws(() => b.applyLevel('ask', 500_000, 1.5), BadInputError);
  assert.throws(
    () => b.applySnapshot({ bids: [{ price: 300_000, size: 1 }], asks: [{ price: 123, size: 1 }] }),
    (e: unknown) => e instanceof BadInputError && e.field === 'asks[0].price',
  );
  assert.equal(b.bestBid(), 400_000);
  assert.throws(() => new L2Book({ tick: 3 }), (e: unknown) => e instanceof BadInputError && e.field === 'tick');
});

test('microprice leans toward the thinner side', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applyLevel('bid', 400_000, 9_000_000);
  b.applyLevel('ask', 500_000, 1_000_000);
  // much more size on the bid: the ask is likely to go next, so the microprice is near the ask
  assert.equal(b.microprice(), 490_000);
  assert.equal(microprice(400_000, 1, 500_000, 1), 450_000);
  assert.ok(Number.isNaN(microprice(-1, 0, 500_000, 1)));
  assert.ok(!b.crossed());
  b.applyLevel('bid', 500_000, 1);
  assert.ok(b.crossed());
});

test('property: agrees with a Map reference over random update sequences', () => {
  const tick = 10_000;
  const op = fc.record({
    side: fc.constantFrom('bid' as const, 'ask' as const),
    idx: fc.integer({ min: 1, max: 99 }),
    size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000_000 })),
  });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 10 }), (ops, depth) => {
      const book = new L2Book({ tick });
      const ref = { bid: new Map<number, number>(), ask: new Map<number, number>() };
      for (const o of ops) {
        const price = o.idx * tick;
        book.applyLevel(o.side, price, o.size);
        if (o.size === 0) ref[o.side].delete(price);
        else ref[o.side].set(price, o.size);
      }
      const bids = [...ref.bid.entries()].sort((a, b) => b[0] - a[0]).map(([price, size]) => ({ price, size }));
      const asks = [...ref.ask.entries()].sort((a, b) => a[0] - b[0]).map(([price, size]) => ({ price, size }));
      assert.deepEqual(book.levels('bid', depth), bids.slice(0, depth));
      assert.deepEqual(book.levels('ask', depth), asks.slice(0, depth));
      assert.equal(book.bestBid(), bids[0]?.price ?? -1);
      assert.equal(book.bestAsk(), asks[0]?.price ?? -1);
      assert.equal(book.depth('bid'), bids.length);
      assert.equal(book.depth('ask'), asks.length);
    }),
    { numRuns: 300, seed: 42 },
  );
});

test('property: snapshots interleaved with updates leave no stale level behind', () => {
  const tick = 100;
  const level = fc.record({ idx: fc.integer({ min: 1, max: 9_999 }), size: fc.integer({ min: 1, max: 1e12 }) });
  const step = fc.oneof(
    fc.record({ kind: fc.constant('snap' as const), bids: fc.array(level, { maxLength: 8 }), asks: fc.array(level, { maxLength: 8 }) }),
    fc.record({ kind: fc.constant('lvl' as const), side: fc.constantFrom('bid' as const, 'ask' as const), idx: fc.integer({ min: 1, max: 9_999 }), size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1e12 })) }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const book = new L2Book({ tick });
      const ref = { bid: new Map<number, number>(), ask: new Map<number, number>() };
      for (const s of steps) {
        if (s.kind === 'snap') {
          const bids = s.bids.map((l) => ({ price: l.idx * tick, size: l.size }));
          const asks = s.asks.map((l) => ({ price: l.idx * tick, size: l.size }));
          book.applySnapshot({ bids, asks });
          ref.bid = new Map(bids.map((l) => [l.price, l.size]));
          ref.ask = new Map(asks.map((l) => [l.price, l.size]));
        } else {
          book.applyLevel(s.side, s.idx * tick, s.size);
          if (s.size === 0) ref[s.side].delete(s.idx * tick);
          else ref[s.side].set(s.idx * tick, s.size);
        }
      }
      const want = (m: Map<number, number>, desc: boolean) => [...m].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([price, size]) => ({ price, size }));
      assert.deepEqual(book.levels('bid'), want(ref.bid, true));
      assert.deepEqual(book.levels('ask'), want(ref.ask, false));
    }),
    { numRuns: 300, seed: 11 },
  );
});
