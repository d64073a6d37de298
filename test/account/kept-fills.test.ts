/** The books' fill ids (src/account/kept-fills.ts): IdMemory and the kept fills' ids, kept as numbers where their form allows. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IdMemory, KeptFills, type KeptFill } from '../../src/account/kept-fills.ts';
import { liveHeap } from '../support/retained-heap.ts';

/** The memory as it was: a ring of the id strings and a Set of them (the model). */
class StringIdMemory {
  private readonly set = new Set<string>();
  private ring: string[] = [];
  private head = 0;
  constructor(private capacity: number) {}
  get size(): number {
    return this.set.size;
  }
  has(id: string): boolean {
    return this.set.has(id);
  }
  add(id: string): void {
    this.set.add(id);
    if (this.ring.length < this.capacity) {
      this.ring.push(id);
      return;
    }
    this.set.delete(this.ring[this.head]!);
    this.ring[this.head] = id;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
  }
  toRows(): { capacity: number; head: number; ids: string[] } {
    return { capacity: this.capacity, head: this.head, ids: [...this.ring] };
  }
  resize(n: number): void {
    if (n === this.capacity) return;
    const r = this.ring;
    const ordered = this.head === 0 ? r : [...r.slice(this.head), ...r.slice(0, this.head)];
    const drop = Math.max(0, ordered.length - n);
    for (let i = 0; i < drop; i++) this.set.delete(ordered[i]!);
    this.ring = drop === 0 ? ordered : ordered.slice(drop);
    this.head = 0;
    this.capacity = n;
  }
}

const feedId = (k: number, filled: number): string => `0x${(k >>> 0).toString(16).padStart(8, '0').repeat(8)}:${filled}`;
/** canonical ids and others (upper-case hex, a leading zero, a backtest's) */
const idOf = (k: number): string => (k % 5 === 3 ? `sim-${k}` : k % 7 === 4 ? feedId(k, 1).toUpperCase().replace('0X', '0x') : feedId(k, (k % 3) * 1_000_000));

describe('IdMemory', () => {
  it('remembers, forgets, resizes and writes its rows as the ring of strings did', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.oneof(
            fc.nat({ max: 30 }).map((k) => ({ add: k })),
            fc.integer({ min: 1, max: 12 }).map((n) => ({ resize: n })),
          ),
          { maxLength: 120 },
        ),
        (cap, ops) => {
          const m = new IdMemory(cap);
          const want = new StringIdMemory(cap);
          for (const op of ops) {
            if ('resize' in op) {
              m.resize(op.resize);
              want.resize(op.resize);
            } else {
              const id = idOf(op.add);
              assert.equal(m.has(id), want.has(id));
              if (!want.has(id)) {
                m.add(id);
                want.add(id);
              }
            }
            assert.equal(m.size, want.size);
            assert.deepEqual(m.toRows(), want.toRows());
            for (let k = 0; k <= 30; k++) assert.equal(m.has(idOf(k)), want.has(idOf(k)), `has ${idOf(k)}`);
            // the rows restore the same memory
            const back = IdMemory.fromRows(m.toRows().capacity, m.toRows().head, m.toRows().ids);
            assert.deepEqual(back.toRows(), m.toRows());
            for (let k = 0; k <= 30; k++) assert.equal(back.has(idOf(k)), want.has(idOf(k)));
          }
        },
      ),
      { numRuns: 200 },
    );
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

  // ~140 bytes measured (the bound had no room: 1 run in 4 read 140.x on a loaded machine); the id string made it ~290
  it('a kept fill and its remembered id retain under 160 bytes together, where the id string made it ~290', () => {
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
    assert.ok(perFill < 160, `retained ${perFill.toFixed(0)} bytes a fill`);
  });
});
