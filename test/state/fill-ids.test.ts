/** The store's fill-id window (src/state/fill-ids.ts): an immutable window whose copies share one append-only log. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FILL_ID_HORIZON_MS, FILL_IDS_KEPT, FillIds } from '../../src/state/fill-ids.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import type { StateEvent } from '../../src/state/events.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { recentWindow } from '../../src/feeds/own-orders-feed.ts';
import { liveHeap } from '../support/retained-heap.ts';

/** The plain array the store kept before: the newest `max`, a new array per push. */
function pushBounded(list: readonly string[], item: string, max: number): string[] {
  const keep = list.length >= max ? max - 1 : list.length;
  return [...list.slice(list.length - keep), item];
}

/** a fill id as the feeds make them: an order's nonce and its filled size */
const feedId = (k: number, filled: number): string => `0x${(k >>> 0).toString(16).padStart(8, '0').repeat(8)}:${filled}`;

/** ids of every form: the feeds' (canonical), upper-case hex, a leading zero, short strings */
const POOL = [feedId(1, 5_000_000), feedId(1, 10_000_000), feedId(2, 0), feedId(0xdeadbeef, 1), feedId(3, 2 ** 53 - 1)];
POOL.push(
  POOL[0]!.toUpperCase().replace('0X', '0x'),
  `${POOL[1]!.slice(0, 67)}010000000`,
  `${POOL[1]!.slice(0, 67)}${2 ** 53}`,
  'sim-1',
  'sim-2',
  'paper:x:1',
  '',
);

describe('FillIds', () => {
  it('answers as the bounded array did, and no push changes an earlier window (forks included)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.array(fc.tuple(fc.nat(), fc.nat({ max: POOL.length - 1 })), { maxLength: 80 }), (max, steps) => {
        // each step pushes onto a window picked among all made so far: mostly the newest, sometimes an older one (a fork)
        const versions: [FillIds, string[]][] = [[FillIds.EMPTY, []]];
        for (const [pick, idx] of steps) {
          const from = pick % 4 === 0 ? versions[pick % versions.length]! : versions[versions.length - 1]!;
          const id = POOL[idx]!;
          versions.push([from[0].push(id, max, 0), pushBounded(from[1], id, max)]);
        }
        versions.forEach(([w, want], i) => {
          assert.deepEqual(w.toArray(), want, `version ${i}`);
          assert.equal(w.length, want.length);
          for (const id of POOL) assert.equal(w.has(id), want.includes(id), `version ${i} has ${JSON.stringify(id)}`);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the ids of the last 15 minutes by the fills' times, never fewer than the newest 128, never more than max", () => {
    /** the window as a plain array of (id, time): the rule of src/state/fill-ids.ts written out */
    const model = (list: readonly [string, number][], id: string, max: number, ts: number): [string, number][] => {
      let keep = Math.min(list.length, max - 1);
      while (keep >= FILL_IDS_KEPT && list[list.length - keep]![1] < ts - FILL_ID_HORIZON_MS) keep--;
      return [...list.slice(list.length - keep), [id, ts]];
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -60_000, max: 120_000 })), { minLength: 100, maxLength: 600 }),
        (max, steps) => {
          const versions: [FillIds, [string, number][]][] = [[FillIds.EMPTY, []]];
          let ts = 0;
          steps.forEach(([pick, dt], i) => {
            ts += dt; // mostly forward, sometimes a late fill
            const from = pick % 16 === 0 ? versions[pick % versions.length]! : versions[versions.length - 1]!;
            const id = feedId(i, 1_000_000);
            versions.push([from[0].push(id, max, ts), model(from[1], id, max, ts)]);
          });
          versions.forEach(([w, want], i) => {
            assert.deepEqual(
              w.toArray(),
              want.map((e) => e[0]),
              `version ${i}`,
            );
            for (const [id] of want) assert.equal(w.has(id), true);
          });
          // ids the newest window let go (or never had: a fork's) are not in it
          const [last, want] = versions.at(-1)!;
          const held = new Set(want.map((e) => e[0]));
          for (let i = 0; i < steps.length; i++) assert.equal(last.has(feedId(i, 1_000_000)), held.has(feedId(i, 1_000_000)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a canonical id as numbers and gives back the same string', () => {
    const w = FillIds.of(POOL, 100);
    assert.deepEqual(w.toArray(), POOL);
    assert.equal(JSON.stringify(w), JSON.stringify(POOL));
  });

  it('retains a fraction of the strings it replaced: under 120 bytes an id, where the array held each string (~230)', () => {
    const markets: FillIds[] = Array(50).fill(FillIds.EMPTY);
    const start = liveHeap();
    // ids made here and dropped: the window alone holds them
    for (let i = 0; i < 400; i++) for (let m = 0; m < 50; m++) markets[m] = markets[m]!.push(feedId(i * 50 + m, 1_000_000 * (1 + (i % 7))), 2_048, i);
    const perId = (liveHeap() - start) / (400 * 50);
    assert.deepEqual(
      markets.map((w) => w.length),
      Array(50).fill(400),
    );
    // 84-89 bytes an id here (load 6-13); the bound was 90, 40 KB over the 20,000 ids, and a reading crossed it
    // once at load 11-20: now half the array's, with room for the few hundred KB a reading may move
    assert.ok(perId < 120, `retained ${perId.toFixed(0)} bytes an id`);
  });

  it("holds a quarter hour of a busy market's ids, not 2,048: three hours of fills retain under 40 KB a market", () => {
    // 50 markets, a fill every 5.4 s each (~11 a minute, soak-memory's busiest) for 3 hours: 2,000 fills a market,
    // which the count bound alone kept whole (~130 KB a market)
    const markets: FillIds[] = Array(50).fill(FillIds.EMPTY);
    const start = liveHeap();
    for (let i = 0; i < 2_000; i++) for (let m = 0; m < 50; m++) markets[m] = markets[m]!.push(feedId(i * 50 + m, 1_000_000), 2_048, i * 5_400);
    const perMarket = (liveHeap() - start) / 50;
    const inWindow = Math.floor(FILL_ID_HORIZON_MS / 5_400) + 1;
    assert.deepEqual(
      markets.map((w) => w.length),
      Array(50).fill(inWindow),
    );
    assert.ok(perMarket < 40_000, `retained ${perMarket.toFixed(0)} bytes a market`);
  });
  it('its memory is reached with its window: from minute 20 to minute 60 of fills it retains no more (a soak reads that half)', () => {
    // 50 markets, a fill every 6 s each (10 a minute): the window holds 150 ids from minute 15 on
    const markets: FillIds[] = Array(50).fill(FillIds.EMPTY);
    const push = (from: number, to: number): void => {
      for (let i = from; i < to; i++) for (let m = 0; m < 50; m++) markets[m] = markets[m]!.push(feedId(i * 50 + m, 1_000_000), 2_048, i * 6_000);
    };
    push(0, 200);
    const at20 = liveHeap();
    push(200, 600);
    const perMarket = (liveHeap() - at20) / 50;
    assert.equal(markets[0]!.length, 151);
    // the log kept up to three times its window before (dead entries up to twice it), filling for an
    // hour: +2.7 KB a market over these 40 minutes; +57 bytes and less now
    assert.ok(perMarket < 1_000, `+${perMarket.toFixed(0)} bytes a market from minute 20 to 60`);
  });
});

describe("the store's de-duplication window (DEFAULT_LIMITS.fillIds)", () => {
  const M = `0x${'ab'.repeat(32)}` as Bytes32;
  const fill = (fillId: string, ts: number): StateEvent => ({
    type: 'OrderFilled',
    marketId: M,
    nonce: null,
    outcomeIndex: 1,
    side: 0,
    price: 500_000,
    size: 1_000_000,
    fee: 0,
    fillId,
    ts,
  });
  const fills = (s: StoreState): number => s.markets.get(M)!.position.fills;

  it('drops a repeated id within the newest 2,048 of its market and takes one beyond them again', () => {
    const max = DEFAULT_LIMITS.fillIds;
    assert.equal(max, 2_048);
    let s = emptyState();
    for (let i = 0; i < max; i++) s = reduce(s, fill(feedId(i, 1_000_000), i), DEFAULT_LIMITS);
    assert.equal(fills(s), max);
    // the oldest of the window and the newest: both dropped, nothing changes
    for (const id of [feedId(0, 1_000_000), feedId(max - 1, 1_000_000)]) {
      const again = reduce(s, fill(id, max), DEFAULT_LIMITS);
      assert.equal(again.markets.get(M), s.markets.get(M), `${id} dropped`);
    }
    // one more fill: the oldest id leaves the window, and is taken again as a new fill
    s = reduce(s, fill(feedId(max, 1_000_000), max), DEFAULT_LIMITS);
    s = reduce(s, fill(feedId(0, 1_000_000), max + 1), DEFAULT_LIMITS);
    assert.equal(fills(s), max + 2);
    // that pushed id 1 out too (2,048 newest: 2 … 2,048 and 0), while 2 is still in it
    const again = reduce(s, fill(feedId(2, 1_000_000), max + 2), DEFAULT_LIMITS);
    assert.equal(again.markets.get(M), s.markets.get(M));
    assert.equal(fills(reduce(s, fill(feedId(1, 1_000_000), max + 2), DEFAULT_LIMITS)), max + 3);
  });

  it('drops a repeated id within 15 minutes of fills; one older, beyond the newest 128, is a new fill', () => {
    let s = emptyState();
    const MIN = 60_000;
    // 400 fills, one every 6 s: 40 minutes
    for (let i = 0; i < 400; i++) s = reduce(s, fill(feedId(i, 1_000_000), i * 6_000), DEFAULT_LIMITS);
    const now = 399 * 6_000;
    const w = s.markets.get(M)!.fillIds;
    // the window: the fills of the last 15 minutes (151 of them), more than the 128 kept whatever their age
    assert.equal(w.length, 15 * 10 + 1);
    // a repeat of a fill 14.9 minutes old: dropped, nothing changes
    const recent = 399 - 149;
    assert.ok(now - recent * 6_000 < 15 * MIN);
    assert.equal(reduce(s, fill(feedId(recent, 1_000_000), now + 1), DEFAULT_LIMITS).markets.get(M), s.markets.get(M));
    // a repeat of a fill 20 minutes old: beyond the window, counted as a new fill (the ledger's unique id is the durable guard)
    const old = 399 - 200;
    assert.equal(fills(reduce(s, fill(feedId(old, 1_000_000), now + 1), DEFAULT_LIMITS)), 401);
  });

  it("covers the own-orders feed's longest re-read: its recent-orders window after reads failed for hours", () => {
    const longest = recentWindow(10 * 3_600_000, 0, 600) * 1_000;
    assert.equal(longest, 600_000);
    // with room for the polls around it (the bench's and the default's are seconds)
    assert.ok(FILL_ID_HORIZON_MS >= longest + 5 * 60_000);
  });

  it('a quiet market keeps its newest 128 ids whatever their age', () => {
    let s = emptyState();
    // 200 fills an hour apart
    for (let i = 0; i < 200; i++) s = reduce(s, fill(feedId(i, 1_000_000), i * 3_600_000), DEFAULT_LIMITS);
    const w = s.markets.get(M)!.fillIds;
    assert.equal(w.length, FILL_IDS_KEPT);
    assert.equal(w.has(feedId(200 - FILL_IDS_KEPT, 1_000_000)), true);
    assert.equal(w.has(feedId(199 - FILL_IDS_KEPT, 1_000_000)), false);
  });

  it('an earlier state still answers as it did after later fills (the metrics read the state before a change)', () => {
    let s = emptyState();
    s = reduce(s, fill('a', 1), DEFAULT_LIMITS);
    const before = s;
    s = reduce(s, fill('b', 2), DEFAULT_LIMITS);
    assert.equal(before.markets.get(M)!.fillIds.has('b'), false);
    assert.equal(s.markets.get(M)!.fillIds.has('b'), true);
    // a fork from the earlier state
    const fork = reduce(before, fill('c', 3), DEFAULT_LIMITS);
    assert.deepEqual(fork.markets.get(M)!.fillIds.toArray(), ['a', 'c']);
    assert.deepEqual(s.markets.get(M)!.fillIds.toArray(), ['a', 'b']);
  });
});
