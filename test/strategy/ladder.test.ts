import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ladder, type LadderSpec } from '../../src/strategy/ladder.ts';
import { maxPrice, snapPrice } from '../../src/strategy/snap-price.ts';
import type { DesiredQuote } from '../../src/strategy/types.ts';
import { mulberry32 } from '../../src/sim/rng.ts';

/** The ladder as the level loop makes it, for any number of levels (the reference for the one-level path). */
function byLoop(spec: LadderSpec): DesiredQuote[] {
  const out: DesiredQuote[] = [];
  const hi = maxPrice(spec.tick);
  const add = (side: 'bid' | 'ask', price: number, level: number): void => {
    if (out.some((q) => q.side === side && Object.is(q.price, price))) return;
    out.push(spec.tag === undefined ? { side, price, size: spec.size, level } : { side, price, size: spec.size, level, tag: spec.tag });
  };
  for (let i = 0; i < spec.levels; i++) {
    const off = spec.half + i * spec.spacing;
    const rawBid = Math.round((spec.center - off) * 1e6);
    const rawAsk = Math.round((spec.center + off) * 1e6);
    if (!(rawBid < spec.tick)) add('bid', snapPrice(rawBid, 'bid', spec.tick), i);
    if (!(rawAsk > hi)) add('ask', snapPrice(rawAsk, 'ask', spec.tick), i);
  }
  return out;
}

test('a one-level ladder is the level loop’s: centres inside, near and past the edges, with and without a tag', () => {
  const rnd = mulberry32(11);
  for (let k = 0; k < 5_000; k++) {
    const tick = [1_000, 10_000, 3_000][k % 3]!;
    const spec: LadderSpec = {
      center: -0.2 + 1.4 * rnd(),
      half: 0.2 * rnd(),
      spacing: 0.01,
      levels: 1,
      size: 25_000_000,
      tick,
      ...(k % 2 === 0 ? { tag: 'avellaneda' } : {}),
    };
    assert.deepEqual(ladder(spec), byLoop(spec), JSON.stringify(spec));
  }
});

test('a one-level ladder: bid down and ask up to the tick, a side past its bound left out', () => {
  const base = { half: 0.0123, spacing: 0.01, levels: 1, size: 5, tick: 10_000 };
  assert.deepEqual(ladder({ ...base, center: 0.5 }), [
    { side: 'bid', price: 480_000, size: 5, level: 0 },
    { side: 'ask', price: 520_000, size: 5, level: 0 },
  ]);
  // the bid's model price is below one tick: no bid
  assert.deepEqual(ladder({ ...base, center: 0.01 }), [{ side: 'ask', price: 30_000, size: 5, level: 0 }]);
  // the ask's model price is above 1 − tick: no ask
  assert.deepEqual(ladder({ ...base, center: 0.995 }), [{ side: 'bid', price: 980_000, size: 5, level: 0 }]);
  // both past: nothing
  assert.deepEqual(ladder({ ...base, half: 0.6, center: 0.5 }), []);
  // a NaN centre quotes at a NaN price, as the loop does (the risk gate denies it)
  assert.deepEqual(ladder({ ...base, center: Number.NaN }), byLoop({ ...base, center: Number.NaN }));
});
