/** The store's mid history (src/state/mid-history.ts): a bounded immutable sequence whose copies share one buffer. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { midAtOrBefore } from '../../src/state/edge-state.ts';
import { MidHistory } from '../../src/state/mid-history.ts';
import { instantVariance } from '../../src/strategy/volatility.ts';
import type { MidSample } from '../../src/strategy/types.ts';
import { liveHeap } from '../support/retained-heap.ts';

/** The plain array the store kept before: the newest `max`, a new array per push. */
function pushBounded(list: readonly MidSample[], item: MidSample, max: number): MidSample[] {
  const keep = list.length >= max ? max - 1 : list.length;
  return [...list.slice(list.length - keep), item];
}

function same(h: MidHistory, want: readonly MidSample[], label: string): void {
  assert.equal(h.length, want.length, `${label}: length`);
  // equal samples (a read is a new object of the stored numbers)
  for (let i = -want.length - 1; i <= want.length; i++) assert.deepEqual(h.at(i), want.at(i), `${label}: at(${i})`);
  assert.deepEqual(h.last(), want.at(-1), `${label}: last`);
  assert.ok(Object.is(h.lastTs(), want.length === 0 ? Number.NaN : want.at(-1)!.ts), `${label}: lastTs`);
  assert.deepEqual([...h], want, `${label}: iteration`);
  assert.deepEqual(h.toArray(), want, `${label}: toArray`);
  assert.equal(JSON.stringify(h), JSON.stringify(want), `${label}: JSON`);
}

/** the buffer a history reads (a private field: how the test sees that pushes share it) */
const bufOf = (h: MidHistory): unknown => (h as unknown as { buf: unknown }).buf;

describe('MidHistory', () => {
  it('reads as the bounded array would, and no push changes an earlier history (forks included)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.array(fc.nat(), { maxLength: 80 }), (max, picks) => {
        // each step pushes onto a history picked among all made so far: mostly the newest, sometimes an older one (a fork)
        const versions: [MidHistory, MidSample[]][] = [[MidHistory.EMPTY, []]];
        picks.forEach((pick, n) => {
          const from = pick % 4 === 0 ? versions[pick % versions.length]! : versions[versions.length - 1]!;
          const s = { ts: n * 1000, mid: pick };
          versions.push([from[0].push(s, max), pushBounded(from[1], s, max)]);
        });
        versions.forEach(([h, want], i) => same(h, want, `version ${i}`));
      }),
      { numRuns: 300 },
    );
  });

  it('appends in place while it can: a run of pushes shares one buffer, and a copy when it is full', () => {
    let h = MidHistory.EMPTY.push({ ts: 0, mid: 1 }, 4);
    const first = bufOf(h);
    const bufs = new Set<unknown>([first]);
    for (let i = 1; i < 20; i++) {
      h = h.push({ ts: i, mid: i }, 4);
      bufs.add(bufOf(h));
    }
    // 20 pushes at a bound of 4: a new buffer at the first push (4 + a slack of 8), and one at the 13th
    assert.equal(bufs.size, 2, `${bufs.size} buffers for 20 pushes`);
    assert.deepEqual(
      h.toArray().map((s) => s.ts),
      [16, 17, 18, 19],
    );
    // a push from an older history copies, and leaves the newer one as it was
    const older = MidHistory.EMPTY.push({ ts: 0, mid: 0 }, 4);
    const a = older.push({ ts: 1, mid: 1 }, 4);
    const b = older.push({ ts: 2, mid: 2 }, 4);
    assert.equal(bufOf(a), bufOf(older));
    assert.notEqual(bufOf(b), bufOf(older));
    assert.deepEqual(
      a.toArray().map((s) => s.ts),
      [0, 1],
    );
    assert.deepEqual(
      b.toArray().map((s) => s.ts),
      [0, 2],
    );
  });

  it('isAppendedBy: true exactly for this history with one sample appended (the same samples before it)', () => {
    const s = Array.from({ length: 6 }, (_, i) => ({ ts: i, mid: i }));
    const h3 = MidHistory.of(s.slice(0, 3));
    const h4 = h3.push(s[3]!, 10);
    assert.equal(h3.isAppendedBy(h4), true, 'pushed from it');
    assert.equal(h3.isAppendedBy(s.slice(0, 4)), true, 'an array of the same samples');
    assert.equal(h3.isAppendedBy(MidHistory.of(s.slice(0, 4))), true, 'another buffer of the same samples');
    assert.equal(h3.isAppendedBy(h4.push(s[4]!, 10)), false, 'two more');
    assert.equal(h3.isAppendedBy(h3), false, 'itself');
    assert.equal(h3.isAppendedBy(h3.push(s[3]!, 3)), false, 'at the bound: the oldest dropped');
    assert.equal(h3.isAppendedBy([{ ts: 0, mid: 0 }, s[1]!, s[2]!, s[3]!]), true, 'equal samples that are other objects');
    assert.equal(h3.isAppendedBy([{ ts: 0, mid: 1 }, s[1]!, s[2]!, s[3]!]), false, 'another mid');
    assert.equal(h3.isAppendedBy([{ ts: -1, mid: 0 }, s[1]!, s[2]!, s[3]!]), false, 'another time');
  });
});

describe('MidHistory: memory', () => {
  it('a market history takes its whole buffer at the first sample: pushing past the bound retains no more', () => {
    // 50 markets at the store's bound of 600; a buffer is 600 + 150 samples of three numbers (18 KB)
    const markets = Array.from({ length: 50 }, (_, m) => MidHistory.EMPTY.push({ ts: 0, mid: m }, 600));
    const start = liveHeap();
    for (let i = 1; i <= 2_000; i++) for (let m = 0; m < 50; m++) markets[m] = markets[m]!.push({ ts: i * 1000, mid: 500_000 + ((i * 7 + m) % 97) }, 600);
    const grown = liveHeap() - start;
    assert.deepEqual(
      markets.map((h) => h.length),
      Array(50).fill(600),
    );
    assert.deepEqual(markets[3]!.at(-1), { ts: 2_000_000, mid: 500_000 + ((2_000 * 7 + 3) % 97) });
    // an array of sample objects grew to twice the bound: ~3 MB over these 50 markets
    assert.ok(grown < 150_000, `retained ${grown} bytes more after 2,000 samples a market`);
  });
});

describe('MidHistory.midAtOrBefore', () => {
  it("answers what edge-state's search answers on the same samples as an array (out-of-order times included)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.tuple(fc.integer({ min: -3, max: 20 }), fc.nat({ max: 1_000_000 })), { maxLength: 40 }),
        fc.array(fc.integer({ min: -50, max: 900 }), { minLength: 1, maxLength: 10 }),
        (max, steps, probes) => {
          let h = MidHistory.EMPTY;
          let arr: MidSample[] = [];
          let ts = 0;
          for (const [dt, mid] of steps) {
            ts += dt;
            h = h.push({ ts, mid }, max);
            arr = pushBounded(arr, { ts, mid }, max);
            for (const t of probes) assert.equal(h.midAtOrBefore(t), midAtOrBefore(arr, t), `t ${t} over ${JSON.stringify(arr)}`);
          }
          assert.equal(MidHistory.EMPTY.midAtOrBefore(0), null);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('MidHistory.midAtOrBefore, asked for times that move forward (the last answer reused)', () => {
  it('answers what the array search answers, over pushes, repeated times and steps back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.tuple(fc.integer({ min: -2, max: 6 }), fc.nat({ max: 1_000 }), fc.array(fc.integer({ min: -2, max: 5 }), { maxLength: 6 })), {
          maxLength: 50,
        }),
        (max, steps) => {
          let h = MidHistory.EMPTY;
          let arr: MidSample[] = [];
          let ts = 0;
          let t = -3;
          for (const [dt, mid, moves] of steps) {
            ts += dt;
            h = h.push({ ts, mid }, max);
            arr = pushBounded(arr, { ts, mid }, max);
            for (const m of moves) {
              t += m;
              assert.equal(h.midAtOrBefore(t), midAtOrBefore(arr, t), `t ${t} over ${JSON.stringify(arr)}`);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('MidHistory.ewmaVariance', () => {
  it('gives the bits of the walk over the same samples as an array (same-ms, out-of-order and NaN samples, forks)', () => {
    /** the walk of src/strategy/volatility.ts over a plain array: increments computed as it goes */
    const walk = (arr: readonly MidSample[], lambda: number): number => {
      let v = -1;
      for (let i = 1; i < arr.length; i++) {
        const x = instantVariance(arr[i - 1]!, arr[i]!);
        if (x < 0) continue;
        v = v < 0 ? x : lambda * v + (1 - lambda) * x;
      }
      return v;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.integer({ min: -3, max: 4000 }), fc.oneof(fc.nat({ max: 1_000_000 }), fc.constant(Number.NaN)), fc.nat()), { maxLength: 60 }),
        fc.double({ min: 0.01, max: 0.999, noNaN: true }),
        (max, steps, lambda) => {
          const versions: [MidHistory, MidSample[]][] = [[MidHistory.EMPTY, []]];
          let ts = 0;
          for (const [dt, mid, pick] of steps) {
            ts += dt;
            const from = pick % 5 === 0 ? versions[pick % versions.length]! : versions[versions.length - 1]!;
            versions.push([from[0].push({ ts, mid }, max), pushBounded(from[1], { ts, mid }, max)]);
          }
          for (const [h, arr] of versions) assert.ok(Object.is(h.ewmaVariance(lambda), walk(arr, lambda)), `${JSON.stringify(arr)}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('MidHistory: the search hints are not part of its value', () => {
  it('a history that was searched equals (deepStrictEqual) one of the same pushes that was not', () => {
    const build = () => {
      let h = MidHistory.EMPTY;
      for (let i = 0; i < 30; i++) h = h.push({ ts: i * 1000, mid: 500_000 + i }, 10);
      return h;
    };
    const a = build();
    const b = build();
    for (const t of [25_000, 26_500, 29_000, 21_000]) a.midAtOrBefore(t);
    assert.deepStrictEqual(a, b);
  });
});
