import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KnownLevels, L2Book, microprice } from '../../src/core/l2-book.ts';
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
  assert.throws(
    () => b.applyLevel('bid', 405_000, 1),
    (e: unknown) => e instanceof BadInputError && e.field === 'bid.price',
  );
  assert.throws(() => b.applyLevel('ask', 0, 1), BadInputError);
  assert.throws(() => b.applyLevel('ask', 1_000_000, 1), BadInputError);
  assert.throws(
    () => b.applyLevel('ask', 500_000, -1),
    (e: unknown) => e instanceof BadInputError && e.field === 'ask.size',
  );
  assert.throws(() => b.applyLevel('ask', 500_000, NaN), BadInputError);
  assert.throws(() => b.applyLevel('ask', 500_000, 1.5), BadInputError);
  assert.throws(
    () => b.applySnapshot({ bids: [{ price: 300_000, size: 1 }], asks: [{ price: 123, size: 1 }] }),
    (e: unknown) => e instanceof BadInputError && e.field === 'asks[0].price',
  );
  assert.equal(b.bestBid(), 400_000);
  assert.throws(
    () => new L2Book({ tick: 3 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'tick',
  );
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

interface LevelOp {
  side: 'bid' | 'ask';
  idx: number;
  size: number;
}

/** Up to 300 level updates at indices minIdx…maxIdx, about half of them removals (size 0). */
function levelOps(minIdx: number, maxIdx: number, maxSize: number): fc.Arbitrary<LevelOp[]> {
  const op = fc.record({
    side: fc.constantFrom('bid' as const, 'ask' as const),
    idx: fc.integer({ min: minIdx, max: maxIdx }),
    size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: maxSize })),
  });
  return fc.array(op, { maxLength: 300 });
}

/**
 * Applies `ops` (level `idx` at `priceOf(idx)`) to `book` and to a Map per side; the book must agree with
 * the Maps on the levels (to `depth`), the best prices and the number of levels.
 */
function assertAgreesWithMaps(book: L2Book, ops: readonly LevelOp[], priceOf: (idx: number) => number, depth: number): void {
  const ref = { bid: new Map<number, number>(), ask: new Map<number, number>() };
  for (const o of ops) {
    const price = priceOf(o.idx);
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
}

test('property: agrees with a Map reference over random update sequences', () => {
  const tick = 10_000;
  fc.assert(
    fc.property(levelOps(1, 99, 1_000_000_000), fc.integer({ min: 1, max: 10 }), (ops, depth) => {
      assertAgreesWithMaps(new L2Book({ tick }), ops, (idx) => idx * tick, depth);
    }),
    { numRuns: 300, seed: 42 },
  );
});

test('property: snapshots interleaved with updates leave no stale level behind', () => {
  const tick = 100;
  const level = fc.record({ idx: fc.integer({ min: 1, max: 9_999 }), size: fc.integer({ min: 1, max: 1e12 }) });
  const step = fc.oneof(
    fc.record({ kind: fc.constant('snap' as const), bids: fc.array(level, { maxLength: 8 }), asks: fc.array(level, { maxLength: 8 }) }),
    fc.record({
      kind: fc.constant('lvl' as const),
      side: fc.constantFrom('bid' as const, 'ask' as const),
      idx: fc.integer({ min: 1, max: 9_999 }),
      size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1e12 })),
    }),
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
      const want = (m: Map<number, number>, desc: boolean) =>
        [...m].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([price, size]) => ({ price, size }));
      assert.deepEqual(book.levels('bid'), want(ref.bid, true));
      assert.deepEqual(book.levels('ask'), want(ref.ask, false));
    }),
    { numRuns: 300, seed: 11 },
  );
});

// Generic prices: a window { tick, minPrice, maxPrice } instead of (0, 1), e.g. BTCUSDT at ~61,700 USDT.
const W = { tick: 10_000, minPrice: 61_000_000_000, maxPrice: 62_000_000_000 };

test('window: slots, index mapping at both inclusive bounds, best prices, mid, spread', () => {
  const b = new L2Book(W);
  assert.equal(b.slots, 100_001);
  assert.equal(b.minPrice, W.minPrice);
  assert.equal(b.maxPrice, W.maxPrice);
  b.applySnapshot({
    bids: [
      { price: 61_700_000_000, size: 2_000_000 },
      { price: 61_699_990_000, size: 5_000_000 },
      { price: W.minPrice, size: 1 },
    ],
    asks: [
      { price: 61_700_010_000, size: 3_000_000 },
      { price: W.maxPrice, size: 7 },
    ],
  });
  assert.equal(b.bestBid(), 61_700_000_000);
  assert.equal(b.bestAsk(), 61_700_010_000);
  assert.equal(b.bestBidSize(), 2_000_000);
  assert.equal(b.spread(), 10_000);
  assert.equal(b.mid(), 61_700_005_000);
  assert.equal(b.microprice(), (61_700_000_000 * 3 + 61_700_010_000 * 2) / 5);
  // the lowest slot (index 0) is a real level with a window: levels() and sizeAt() must reach it
  assert.deepEqual(b.levels('bid'), [
    { price: 61_700_000_000, size: 2_000_000 },
    { price: 61_699_990_000, size: 5_000_000 },
    { price: W.minPrice, size: 1 },
  ]);
  assert.equal(b.sizeAt('bid', W.minPrice), 1);
  assert.equal(b.sizeAt('ask', W.maxPrice), 7);
  assert.equal(b.sizeAt('ask', W.maxPrice + W.tick), 0);
  assert.equal(b.sizeAt('ask', 61_700_015_000), 0);
  // emptying the best levels walks down to the bounds
  b.applyLevel('bid', 61_700_000_000, 0);
  b.applyLevel('bid', 61_699_990_000, 0);
  assert.equal(b.bestBid(), W.minPrice);
  b.applyLevel('ask', 61_700_010_000, 0);
  assert.equal(b.bestAsk(), W.maxPrice);
  b.applyLevel('bid', W.minPrice, 0);
  assert.equal(b.bestBid(), -1);
  assert.equal(b.depth('bid'), 0);
});

test('window: clear empties both sides and the book is reusable', () => {
  const b = new L2Book(W);
  b.applyLevel('bid', 61_500_000_000, 4);
  b.applyLevel('ask', 61_600_000_000, 4);
  b.clear();
  assert.deepEqual([b.bestBid(), b.bestAsk(), b.depth('bid'), b.depth('ask')], [-1, -1, 0, 0]);
  assert.equal(b.sizeAt('bid', 61_500_000_000), 0);
  b.applyLevel('ask', 61_550_000_000, 9);
  assert.equal(b.bestAsk(), 61_550_000_000);
  assert.deepEqual(b.levels('ask'), [{ price: 61_550_000_000, size: 9 }]);
});

test('window: off-grid, out-of-window and bad options are BadInputErrors naming the field', () => {
  const b = new L2Book(W);
  const named = (field: string) => (e: unknown) => e instanceof BadInputError && e.field === field;
  assert.throws(() => b.applyLevel('bid', W.minPrice - W.tick, 1), named('bid.price'));
  assert.throws(() => b.applyLevel('ask', W.maxPrice + W.tick, 1), named('ask.price'));
  assert.throws(() => b.applyLevel('ask', 61_500_005_000, 1), named('ask.price'));
  assert.throws(() => b.applyLevel('ask', NaN, 1), named('ask.price'));
  // a (0, 1) price is simply outside this window
  assert.throws(() => b.applyLevel('bid', 500_000, 1), named('bid.price'));
  assert.equal(b.depth('bid') + b.depth('ask'), 0);
  assert.ok(b.inRange(W.minPrice) && b.inRange(W.maxPrice) && !b.inRange(W.maxPrice + 1) && !b.inRange(NaN));
  assert.throws(() => new L2Book({ tick: 10_000, minPrice: 0, maxPrice: 1e10 }), named('minPrice'));
  assert.throws(() => new L2Book({ tick: 10_000, minPrice: 5_000, maxPrice: 1e10 }), named('minPrice'));
  assert.throws(() => new L2Book({ tick: 10_000, minPrice: 1e10 }), named('maxPrice'));
  assert.throws(() => new L2Book({ tick: 10_000, minPrice: 2e10, maxPrice: 1e10 }), named('maxPrice'));
  // the window that a blind 0..200,000 USDT range at the spot tick would need: refused, with its cost
  assert.throws(
    () => new L2Book({ tick: 10_000, minPrice: 10_000, maxPrice: 200_000_000_000 }),
    (e: unknown) => named('maxPrice')(e) && /MB/.test((e as Error).message),
  );
  // a window lifts the "tick divides 1e6" rule (it is about the (0, 1) grid); the default book keeps it
  assert.equal(new L2Book({ tick: 3, minPrice: 3, maxPrice: 30 }).slots, 10);
  assert.throws(() => new L2Book({ tick: 3 }), named('tick'));
});

test('the default book is unchanged: range (0, 1) exclusive, slot 0 is price 0', () => {
  const b = new L2Book({ tick: 10_000 });
  assert.deepEqual([b.slots, b.minPrice, b.maxPrice], [101, 10_000, 990_000]);
  b.applyLevel('bid', 10_000, 1);
  b.applyLevel('ask', 990_000, 1);
  assert.deepEqual([b.bestBid(), b.bestAsk(), b.sizeAt('bid', 0)], [10_000, 990_000, 0]);
  assert.throws(
    () => b.applyLevel('bid', 0, 1),
    (e: unknown) => e instanceof BadInputError && /strictly between 0 and 1000000/.test(e.message),
  );
});

test('property: a windowed book agrees with a Map reference', () => {
  const tick = 100_000;
  const minPrice = 60_000_000_000;
  fc.assert(
    fc.property(levelOps(0, 199, 1e12), (ops) => {
      assertAgreesWithMaps(new L2Book({ tick, minPrice, maxPrice: minPrice + 199 * tick }), ops, (idx) => minPrice + idx * tick, Infinity);
    }),
    { numRuns: 200, seed: 5 },
  );
});

test('levelsSince: the levels of levels(), sharing the unchanged ones with the previous result', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applySnapshot({
    bids: [
      { price: 450_000, size: 5 },
      { price: 440_000, size: 2 },
      { price: 430_000, size: 7 },
    ],
    asks: [{ price: 480_000, size: 3 }],
  });
  const first = b.levelsSince('bid', 10, []);
  assert.deepEqual(first, b.levels('bid', 10));
  assert.equal(b.levelsSince('bid', 10, first), first, 'nothing changed: the same array');
  b.applyBid(440_000, 4);
  const second = b.levelsSince('bid', 10, first);
  assert.deepEqual(second, b.levels('bid', 10));
  assert.notEqual(second, first);
  assert.equal(second[0], first[0], 'the unchanged top is the same object');
  assert.notEqual(second[1], first[1], 'the changed level is new');
  assert.equal(second[2], first[2], 'the unchanged level below is the same object');
  b.applyBid(460_000, 1); // a new best bid: every old level moves one down and keeps its object
  const third = b.levelsSince('bid', 10, second);
  assert.deepEqual(third, b.levels('bid', 10));
  assert.deepEqual(
    third.slice(1).map((l, i) => l === second[i]),
    [true, true, true],
  );
  b.applyBid(450_000, 0); // a level gone from the middle
  const fourth = b.levelsSince('bid', 2, third);
  assert.deepEqual(fourth, b.levels('bid', 2));
  assert.equal(fourth[0], third[0]);
  assert.equal(fourth[1], third[2]);
  b.applyBid(430_000, 0);
  const shorter = b.levelsSince('bid', 10, b.levelsSince('bid', 10, []));
  assert.deepEqual(shorter, b.levels('bid', 10));
  b.clear();
  assert.deepEqual(b.levelsSince('bid', 10, shorter), []);
  assert.deepEqual(b.levelsSince('ask', 10, [{ price: 460_000, size: 3 }]), []);
});

test('property: levelsSince equals levels() after any changes, whatever the previous result', () => {
  fc.assert(
    fc.property(levelOps(1, 99, 20), levelOps(1, 99, 20), fc.integer({ min: 1, max: 12 }), (ops1, ops2, depth) => {
      const b = new L2Book({ tick: 10_000 });
      const apply = (ops: readonly { side: 'bid' | 'ask'; idx: number; size: number }[]): void => {
        for (const o of ops) b.applyLevel(o.side, o.idx * 10_000, o.size);
      };
      apply(ops1);
      const bids = b.levelsSince('bid', depth, []);
      const asks = b.levelsSince('ask', depth, []);
      apply(ops2);
      assert.deepEqual(b.levelsSince('bid', depth, bids), b.levels('bid', depth));
      assert.deepEqual(b.levelsSince('ask', depth, asks), b.levels('ask', depth));
    }),
    { numRuns: 300, seed: 11 },
  );
});

test('setBid / setAsk: the previous size of the level, -1 for a level the book refuses (left unchanged)', () => {
  const b = new L2Book({ tick: 1_000 });
  assert.equal(b.setBid(400_000, 5_000_000), 0, 'an empty level held 0');
  assert.equal(b.setBid(400_000, 7_000_000), 5_000_000);
  assert.equal(b.setAsk(500_000, 1_000_000), 0);
  assert.equal(b.setAsk(500_000, 0), 1_000_000, 'a removal returns what was there');
  assert.equal(b.bestAsk(), -1);
  for (const [price, size] of [
    [400_500, 1], // off the grid
    [0, 1], // outside (0, 1)
    [1_000_000, 1],
    [Number.NaN, 1],
    [400_000, -1], // bad sizes
    [400_000, 1.5],
    [400_000, Number.NaN],
  ] as const) {
    assert.equal(b.setBid(price, size), -1, `bid ${price} ${size}`);
    assert.equal(b.setAsk(price, size), -1, `ask ${price} ${size}`);
  }
  assert.deepEqual(b.levels('bid'), [{ price: 400_000, size: 7_000_000 }], 'refused levels changed nothing');
  assert.deepEqual(b.levels('ask'), []);
  const w = new L2Book({ tick: 10, minPrice: 1_000, maxPrice: 2_000 });
  assert.equal(w.setAsk(1_000, 3), 0, 'a window: its inclusive lower bound');
  assert.equal(w.setAsk(2_000, 4), 0, 'and upper bound');
  assert.equal(w.setAsk(2_010, 1), -1, 'beyond the window');
  assert.equal(w.setBid(995, 1), -1, 'off the window grid');
  assert.deepEqual(w.levels('ask'), [
    { price: 1_000, size: 3 },
    { price: 2_000, size: 4 },
  ]);
});

test('property: setBid / setAsk leave the book applyLevel leaves, and return what sizeAt read before', () => {
  const tick = 10_000;
  fc.assert(
    fc.property(levelOps(0, 100, 1_000_000_000), (ops) => {
      const set = new L2Book({ tick });
      const ref = new L2Book({ tick });
      for (const o of ops) {
        const price = o.idx * tick; // idx 0 and 100 are prices 0 and 1e6, outside the book
        const before = ref.sizeAt(o.side, price);
        let refused = false;
        try {
          ref.applyLevel(o.side, price, o.size);
        } catch {
          refused = true;
        }
        const got = o.side === 'bid' ? set.setBid(price, o.size) : set.setAsk(price, o.size);
        assert.equal(got, refused ? -1 : before);
      }
      for (const side of ['bid', 'ask'] as const) {
        assert.deepEqual(set.levels(side), ref.levels(side));
        assert.equal(set.depth(side), ref.depth(side));
      }
      assert.equal(set.bestBid(), ref.bestBid());
      assert.equal(set.bestAsk(), ref.bestAsk());
    }),
    { numRuns: 300, seed: 7 },
  );
});

test('property: set(side, price, size) is setBid for side 0 and setAsk for side 1, refusals and all', () => {
  const tick = 10_000;
  fc.assert(
    fc.property(levelOps(0, 100, 1_000_000_000), (ops) => {
      const one = new L2Book({ tick });
      const two = new L2Book({ tick });
      for (const o of ops) {
        const price = o.idx * tick; // idx 0 and 100 are prices 0 and 1e6, outside the book: refused
        const want = o.side === 'bid' ? two.setBid(price, o.size) : two.setAsk(price, o.size);
        assert.equal(one.set(o.side === 'bid' ? 0 : 1, price, o.size), want);
      }
      // a size that is not a non-negative safe integer is refused on either side
      assert.equal(one.set(0, 500_000, -1), -1);
      assert.equal(one.set(1, 500_000, 0.5), -1);
      for (const side of ['bid', 'ask'] as const) {
        assert.deepEqual(one.levels(side), two.levels(side));
        assert.equal(one.depth(side), two.depth(side));
      }
      assert.equal(one.bestBid(), two.bestBid());
      assert.equal(one.bestAsk(), two.bestAsk());
    }),
    { numRuns: 300, seed: 13 },
  );
});

test('property: a book on a coarse tick with a fineTick answers as a book made on the fine tick, before and after it regrids', () => {
  // prices on a 0.1-cent grid (slot idx · 1,000), most on the 1-cent tick; op 'x' is a take through applyLevel,
  // 'c' a clear, 's' a snapshot: the coarse book moves to the fine grid at the first price only that holds
  const op = fc.record({
    kind: fc.constantFrom('set' as const, 'set' as const, 'set' as const, 'x' as const, 'c' as const, 's' as const),
    side: fc.constantFrom(0, 1),
    idx: fc.oneof(
      fc.integer({ min: 0, max: 100 }).map((c) => c * 10),
      fc.integer({ min: 0, max: 1_000 }),
    ),
    size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000_000_000 })),
  });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      const coarse = new L2Book({ tick: 10_000, fineTick: 1_000 });
      const fine = new L2Book({ tick: 1_000 });
      const known = { coarse: new KnownLevels(10), fine: new KnownLevels(10) };
      let last = { coarse: [] as ReturnType<L2Book['levels']>, fine: [] as ReturnType<L2Book['levels']> };
      for (const o of ops) {
        const price = o.idx * 1_000; // idx 0 and 1,000 are prices 0 and 1e6: refused by both
        const side = o.side === 0 ? 'bid' : 'ask';
        assert.equal(coarse.accepts(price, o.size), fine.accepts(price, o.size));
        assert.equal(coarse.inRange(price), fine.inRange(price));
        if (o.kind === 'set') assert.equal(coarse.set(o.side, price, o.size), fine.set(o.side, price, o.size));
        else if (o.kind === 'c') {
          coarse.clear();
          fine.clear();
        } else {
          const run = (b: L2Book): string => {
            try {
              if (o.kind === 'x') b.applyLevel(side, price, o.size);
              else b.applySnapshot({ bids: o.side === 0 ? [{ price, size: o.size }] : [], asks: o.side === 1 ? [{ price, size: o.size }] : [] });
              return 'ok';
            } catch (e) {
              return (e as Error).message;
            }
          };
          assert.equal(run(coarse), run(fine));
        }
        for (const s of ['bid', 'ask'] as const) {
          assert.deepEqual(coarse.levels(s), fine.levels(s));
          assert.equal(coarse.depth(s), fine.depth(s));
          assert.equal(coarse.sizeAt(s, price), fine.sizeAt(s, price));
        }
        assert.equal(coarse.bestBid(), fine.bestBid());
        assert.equal(coarse.bestAsk(), fine.bestAsk());
        assert.equal(coarse.bestBidSize(), fine.bestBidSize());
        assert.equal(coarse.bestAskSize(), fine.bestAskSize());
        assert.ok(Object.is(coarse.mid(), fine.mid()));
        assert.equal(coarse.spread(), fine.spread());
        const a = coarse.levelsSinceKnown('bid', 10, last.coarse, known.coarse);
        const b = fine.levelsSinceKnown('bid', 10, last.fine, known.fine);
        assert.deepEqual(a, b);
        last = { coarse: a, fine: b };
      }
      // the coarse book is on the fine grid exactly when a price only that grid holds reached it (accepts
      // asked about each op's price: a book that takes a price moves to the grid that holds it)
      const moved = ops.some((o) => o.idx % 10 !== 0 && o.idx > 0 && o.idx < 1_000);
      assert.equal(coarse.tick, moved ? 1_000 : 10_000);
    }),
    { numRuns: 300, seed: 17 },
  );
});

test('fineTick: a divisor of the tick and of 1e6, not with a price window; equal to the tick it is no finer grid', () => {
  assert.throws(() => new L2Book({ tick: 10_000, fineTick: 3_000 }), BadInputError);
  assert.throws(() => new L2Book({ tick: 10_000, fineTick: 0 }), BadInputError);
  assert.throws(() => new L2Book({ tick: 10, minPrice: 1_000, maxPrice: 2_000, fineTick: 5 }), BadInputError);
  const same = new L2Book({ tick: 10_000, fineTick: 10_000 });
  assert.equal(same.set(0, 455_000, 1), -1, 'off the only grid it has');
  const b = new L2Book({ tick: 10_000, fineTick: 1_000 });
  assert.equal(b.set(0, 450_000, 5), 0);
  assert.equal(b.tick, 10_000, 'prices on the tick keep it');
  assert.equal(b.set(1, 455_000, 7), 0);
  assert.equal(b.tick, 1_000, 'a price only the fine grid holds moves it there');
  assert.deepEqual(b.levels('bid'), [{ price: 450_000, size: 5 }]);
  assert.deepEqual(b.levels('ask'), [{ price: 455_000, size: 7 }]);
  assert.equal(b.mid(), 452_500);
});

test('property: levelsSinceKnown answers as levelsSince, sharing the same objects, over random updates between calls', () => {
  const tick = 10_000;
  fc.assert(
    fc.property(fc.array(levelOps(1, 40, 5), { minLength: 1, maxLength: 20 }), fc.integer({ min: 1, max: 10 }), (rounds, depth) => {
      const b = new L2Book({ tick });
      const last = { bid: [] as ReturnType<L2Book['levels']>, ask: [] as ReturnType<L2Book['levels']> };
      const known = { bid: new KnownLevels(depth), ask: new KnownLevels(depth) };
      for (const ops of rounds) {
        for (const o of ops) b.applyLevel(o.side, o.idx * tick, o.size);
        for (const side of ['bid', 'ask'] as const) {
          const want = b.levelsSince(side, depth, last[side]);
          const got = b.levelsSinceKnown(side, depth, last[side], known[side]);
          assert.deepEqual(got, b.levels(side, depth));
          // the same sharing: prev itself when nothing changed, prev's object wherever levelsSince reused it
          assert.equal(got === last[side], want === last[side]);
          assert.deepEqual(
            got.map((l) => last[side].indexOf(l)),
            want.map((l) => last[side].indexOf(l)),
          );
          assert.deepEqual(
            [...known[side].price.subarray(0, known[side].n)],
            got.map((l) => l.price),
          );
          last[side] = got;
        }
      }
    }),
    { numRuns: 300, seed: 11 },
  );
});

test('levelsSinceKnown falls back to levelsSince when its numbers do not describe prev', () => {
  const b = new L2Book({ tick: 10_000 });
  b.applySnapshot({ bids: [{ price: 450_000, size: 5 }], asks: [] });
  const known = new KnownLevels(10);
  const prev = [{ price: 450_000, size: 5 }];
  // known says nothing (n 0) about a prev of one level: the walk reads prev's objects, then describes the result
  assert.equal(b.levelsSinceKnown('bid', 10, prev, known), prev);
  assert.equal(known.n, 1);
  const small = new KnownLevels(1);
  b.applyBid(440_000, 3);
  assert.deepEqual(b.levelsSinceKnown('bid', 10, [], small), b.levels('bid', 10));
  assert.equal(small.n, -1, 'two levels do not fit a room of one');
});
