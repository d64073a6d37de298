/** The books' fill ids (src/account/kept-fills.ts): IdMemory and the kept fills' ids, kept as numbers where their form allows. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IdMemory, KeptFills, type KeptFill } from '../../src/account/kept-fills.ts';
import { liveHeap } from '../support/retained-heap.ts';
import { FILL_ID_HORIZON_MS, FILL_IDS_KEPT } from '../../src/state/fill-ids.ts';

/**
 * The model: a queue of the id strings, oldest first, with their fills' times, and a Set of them. An
 * add first forgets the oldest beyond the cap, and those older than the horizon before the new fill's
 * time beyond the floor (the store's window's rule, src/state/fill-ids.ts).
 */
class StringIdMemory {
  private readonly set = new Set<string>();
  private ids: string[] = [];
  private ts: number[] = [];
  constructor(private capacity: number) {}
  get size(): number {
    return this.set.size;
  }
  has(id: string): boolean {
    return this.set.has(id);
  }
  add(id: string, ts: number): void {
    const floor = Math.min(FILL_IDS_KEPT, this.capacity);
    while (this.ids.length > 0 && (this.ids.length >= this.capacity || (this.ids.length >= floor && this.ts[0]! < ts - FILL_ID_HORIZON_MS))) {
      this.set.delete(this.ids.shift()!);
      this.ts.shift();
    }
    this.set.add(id);
    this.ids.push(id);
    this.ts.push(ts);
  }
  toRows(): { capacity: number; head: number; ids: string[]; ts: number[] } {
    return { capacity: this.capacity, head: 0, ids: [...this.ids], ts: [...this.ts] };
  }
  resize(n: number): void {
    if (n === this.capacity) return;
    const drop = Math.max(0, this.ids.length - n);
    for (const id of this.ids.slice(0, drop)) this.set.delete(id);
    this.ids = this.ids.slice(drop);
    this.ts = this.ts.slice(drop);
    this.capacity = n;
  }
}

const feedId = (k: number, filled: number): string => `0x${(k >>> 0).toString(16).padStart(8, '0').repeat(8)}:${filled}`;
/** canonical ids and others (upper-case hex, a leading zero, a backtest's) */
const idOf = (k: number): string => (k % 5 === 3 ? `sim-${k}` : k % 7 === 4 ? feedId(k, 1).toUpperCase().replace('0X', '0x') : feedId(k, (k % 3) * 1_000_000));
const MIN = 60_000;

describe('IdMemory', () => {
  it('remembers, forgets (by the cap, by age beyond the floor), resizes and writes its rows as the queue of strings does', () => {
    const check = (cap: number, pool: number, ops: ({ add: number; dt: number } | { resize: number })[], every = 1): void => {
      const m = new IdMemory(cap);
      const want = new StringIdMemory(cap);
      let ts = 1_800_000_000_000;
      let step = 0;
      for (const op of ops) {
        if ('resize' in op) {
          m.resize(op.resize);
          want.resize(op.resize);
        } else {
          // time moves on, or back (a late fill)
          ts += op.dt;
          const id = idOf(op.add);
          assert.equal(m.has(id), want.has(id));
          if (!want.has(id)) {
            m.add(id, ts);
            want.add(id, ts);
          }
        }
        assert.equal(m.size, want.size);
        assert.deepEqual(m.toRows(), want.toRows());
        if (++step % every !== 0) continue;
        for (let k = 0; k <= pool; k++) assert.equal(m.has(idOf(k)), want.has(idOf(k)), `has ${idOf(k)}`);
        // the rows restore the same memory
        const r = m.toRows();
        const back = IdMemory.fromRows(r.capacity, r.head, r.ids, r.ts);
        assert.deepEqual(back.toRows(), r);
        for (let k = 0; k <= pool; k++) assert.equal(back.has(idOf(k)), want.has(idOf(k)));
      }
    };
    const op = (pool: number, maxCap: number) =>
      fc.oneof(
        { weight: 12, arbitrary: fc.record({ add: fc.nat({ max: pool }), dt: fc.oneof(fc.constant(0), fc.integer({ min: -3 * MIN, max: 6 * MIN })) }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: maxCap }).map((n) => ({ resize: n })) },
      );
    // small caps (the count alone), and caps above the floor of 128, where age forgets too
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(op(30, 12), { maxLength: 120 }), (cap, ops) => check(cap, 30, ops)),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 129, max: 200 }), fc.array(op(400, 220), { minLength: 150, maxLength: 500 }), (cap, ops) => check(cap, 400, ops, 20)),
      { numRuns: 12 },
    );
  });

  it('reads the rows of an older bookmaker (the ring in slot order from its oldest at head, no times): kept until the cap forgets them', () => {
    const ids = Array.from({ length: 200 }, (_, k) => idOf(k));
    // slot order: the oldest (ids[0]) at slot 50
    const ring = [...ids.slice(150), ...ids.slice(0, 150)];
    const m = IdMemory.fromRows(200, 50, ring);
    assert.deepEqual(m.toRows().ids, ids);
    // hours later: no id of unknown time is forgotten by age, only by the cap (the oldest first)
    m.add(idOf(1_000), 1_800_000_000_000);
    assert.equal(m.size, 200);
    assert.equal(m.has(ids[0]!), false);
    assert.ok(ids.slice(1).every((id) => m.has(id)));
    assert.throws(() => IdMemory.fromRows(200, 50, ring.slice(1)), /damaged/);
    assert.throws(() => IdMemory.fromRows(200, 0, ring, [1, 2]), /damaged/);
  });

  it('a repeat inside the horizon (14.9 min later, after 1,000 newer ids) is remembered; beyond it, past the newest 128, it is forgotten', () => {
    const m = new IdMemory(1_024);
    const t0 = 1_800_000_000_000;
    m.add(idOf(0), t0);
    for (let i = 1; i <= 1_000; i++) m.add(feedId(10_000 + i, 1), t0 + Math.round((i * 14.9 * MIN) / 1_000));
    assert.equal(m.has(idOf(0)), true);
    // 20 minutes on: what is older than 15 minutes goes, down to the newest 128
    for (let i = 1; i <= 10; i++) m.add(feedId(20_000 + i, 1), t0 + 20 * MIN);
    assert.equal(m.has(idOf(0)), false);
    assert.ok(m.size < 1_000, `${m.size} held`);
    // a quiet hour: the newest 128 stay whatever their age
    for (let i = 1; i <= 200; i++) m.add(feedId(30_000 + i, 1), t0 + (80 + i) * MIN);
    assert.equal(m.size, 128);
    assert.equal(m.has(feedId(30_000 + 73, 1)), true);
    assert.equal(m.has(feedId(30_000 + 72, 1)), false);
  });

  it('retains under 90 bytes an id of the feeds, where the ring and Set of strings held ~240', () => {
    const books = Array.from({ length: 50 }, () => new IdMemory(1_024));
    const start = liveHeap();
    for (let i = 0; i < 400; i++) for (let m = 0; m < 50; m++) books[m]!.add(feedId(i * 50 + m, 1_000_000 * (1 + (i % 7))));
    const perId = (liveHeap() - start) / (400 * 50);
    assert.equal(books[7]!.size, 400);
    assert.ok(perId < 90, `retained ${perId.toFixed(0)} bytes an id`);
  });
});

describe("KeptFills' fill ids", () => {
  const fill = (fillId: string, ts: number): KeptFill => ({ fillId, ts, outcomeIndex: 1, side: 0, price: 500_000, size: 1_000_000, fee: 0, origin: 'own' });

  it('reads back the id of each fill through inserts and drops, orders ties by id, and writes the same rows', () => {
    const k = new KeptFills(20);
    const ids = Array.from({ length: 12 }, (_, i) => idOf(i));
    const want: KeptFill[] = [];
    ids.forEach((id, i) => {
      const f = fill(id, 100 - (i % 3));
      let at = want.length;
      while (at > 0 && k.before(f, at - 1)) at--;
      k.insert(at, f);
      want.splice(at, 0, f);
    });
    k.drop(3);
    want.splice(0, 3);
    assert.deepEqual(
      Array.from({ length: k.length }, (_, i) => k.at(i).fillId),
      want.map((f) => f.fillId),
    );
    // (ts, fill id) order: within one time, by the id's string
    for (let i = 1; i < want.length; i++)
      assert.ok(want[i - 1]!.ts < want[i]!.ts || (want[i - 1]!.ts === want[i]!.ts && want[i - 1]!.fillId < want[i]!.fillId));
    const r = k.toRows();
    assert.deepEqual(
      r.ids,
      want.map((f) => f.fillId),
    );
    assert.deepEqual(KeptFills.fromRows(r.most, r.capacity, r.nums, r.ids).toRows(), r);
  });

  it('an attached fill reads its id from the memory, and keeps it itself once the memory gives its slot to a newer id or moves', () => {
    const memory = new IdMemory(4);
    const k = new KeptFills(10);
    k.attach(memory);
    const ids = Array.from({ length: 7 }, (_, i) => idOf(i));
    // the memory remembers the newest 4: the first three kept fills' slots go to newer ids
    ids.forEach((id, i) => k.push(fill(id, i), memory.add(id)));
    assert.deepEqual(
      Array.from({ length: k.length }, (_, i) => k.idOf(i)),
      ids,
    );
    assert.deepEqual(k.toRows().ids, ids);
    memory.resize(2);
    k.drop(1);
    assert.deepEqual(
      Array.from({ length: k.length }, (_, i) => k.at(i).fillId),
      ids.slice(1),
    );
  });

  // ~130-140 bytes measured, ~130-150 since each id keeps its fill's time (8 bytes a slot, 256 slots for
  // 200 ids; 165 read once with other test files beside it at load 15); the id string made it ~290
  it('a kept fill and its remembered id retain under 180 bytes together, where the id string made it ~290', () => {
    const books = Array.from({ length: 50 }, () => {
      const memory = new IdMemory(1_024);
      const k = new KeptFills(257);
      k.attach(memory);
      return { memory, k };
    });
    const start = liveHeap();
    for (let i = 0; i < 200; i++)
      for (let m = 0; m < 50; m++) {
        const b = books[m]!;
        const id = feedId(i * 50 + m, 1_000_000 * (1 + (i % 7)));
        b.k.push(fill(id, i), b.memory.add(id));
      }
    const perFill = (liveHeap() - start) / (200 * 50);
    assert.equal(books[7]!.k.length, 200);
    assert.ok(perFill < 180, `retained ${perFill.toFixed(0)} bytes a fill`);
  });
});
