import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bytes32Window, UP_FRONT } from '../../src/core/bytes32-window.ts';
import { liveHeap } from '../support/retained-heap.ts';

/** distinct random-looking keys, from a seeded generator (randomBytes' buffers are retained for a while under the test runner) */
let z = 1;
const hex = (): string => {
  let s = '0x';
  for (let i = 0; i < 8; i++) {
    z = (Math.imul(z, 1103515245) + 12345) >>> 0;
    s += z.toString(16).padStart(8, '0');
  }
  return s;
};

/** what the window replaces: a Map in insertion order, its oldest dropped past the capacity */
class Reference {
  readonly m = new Map<string, number>();
  constructor(private readonly cap: number) {}
  add(k: string): boolean {
    if (this.m.has(k)) return false;
    this.m.set(k, 0);
    if (this.m.size > this.cap) this.m.delete(this.m.keys().next().value!);
    return true;
  }
}

test('answers as a Set of the newest keys would, across evictions, for canonical and other keys', () => {
  // keys that collide in the table's low bits, upper-case hex (another key than its lower case), short test names
  const pool: string[] = [];
  for (let i = 0; i < 200; i++) pool.push(hex());
  for (let i = 0; i < 60; i++) pool.push('0x' + i.toString(16).padStart(64, '0'));
  for (let i = 0; i < 20; i++) pool.push(pool[i]!.toUpperCase().replace('0X', '0x'));
  for (let i = 0; i < 20; i++) pool.push(`n${i}`);
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const cap of [1, 3, 64, 100]) {
    const w = new Bytes32Window(cap);
    const ref = new Reference(cap);
    for (let i = 0; i < 5_000; i++) {
      const k = pool[rnd(pool.length)]!;
      assert.equal(w.add(k), ref.add(k), `add ${k} at ${i} (capacity ${cap})`);
      assert.equal(w.size, ref.m.size);
      const probe = pool[rnd(pool.length)]!;
      assert.equal(w.has(probe), ref.m.has(probe), `has ${probe} at ${i} (capacity ${cap})`);
    }
    for (const k of pool) assert.equal(w.has(k), ref.m.has(k));
  }
});

test('values stay with their key; setting a key held keeps its place, as in a Map', () => {
  const w = new Bytes32Window(3, 2);
  const [a, b, c, d] = [hex(), hex(), hex(), hex()];
  w.setValue(w.set(a), 0, 1.5);
  w.setValue(w.set(b), 1, Number.NaN);
  w.set(c);
  assert.equal(w.set(a), w.find(a)); // held: not moved to the newest
  assert.equal(w.value(w.find(a), 0), 1.5);
  assert.ok(Number.isNaN(w.value(w.find(b), 1)));
  w.set(d); // drops a, the oldest
  assert.equal(w.find(a), -1);
  assert.equal(w.value(w.set(a), 0), 0); // added again (dropping b): new values
  assert.equal(w.has(b), false);
  assert.deepEqual([w.has(c), w.has(d), w.has(a)], [true, true, true]);
});

test('memory is allocated once: filling the window past its capacity retains no more', () => {
  const w = new Bytes32Window(10_000, 2);
  for (let i = 0; i < 10; i++) w.add(hex());
  const start = liveHeap();
  for (let i = 0; i < 30_000; i++) w.add(hex());
  const grown = liveHeap() - start;
  assert.equal(w.size, 10_000);
  // a Set of 10,000 such strings retains ~1.2 MB
  assert.ok(grown < 100_000, `retained ${grown} bytes more after 30,000 keys`);
  assert.ok(w.bytes < 700_000, `${w.bytes} bytes`);
});

test('a window larger than UP_FRONT grows to its capacity as it fills, then drops its oldest', () => {
  const cap = 2 * UP_FRONT + 5;
  const w = new Bytes32Window(cap, 1);
  const start = w.bytes;
  const keys: string[] = [];
  for (let i = 0; i < cap + 10; i++) {
    const k = hex();
    keys.push(k);
    w.setValue(w.set(k), 0, i);
  }
  assert.ok(w.bytes > 2 * start);
  assert.equal(w.size, cap);
  for (let i = 0; i < 10; i++) assert.equal(w.has(keys[i]!), false);
  for (let i = 10; i < keys.length; i++) assert.equal(w.value(w.find(keys[i]!), 0), i);
});

test('a capacity below one is refused', () => {
  assert.throws(() => new Bytes32Window(0), /at least one/);
});

test('addWords (a canonical key with its words given) answers and places as add does', () => {
  const words = (key: string): number[] => Array.from({ length: 8 }, (_, w) => Number.parseInt(key.slice(2 + 8 * w, 10 + 8 * w), 16) | 0);
  const hex = (i: number): string => '0x' + ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(8);
  const a = new Bytes32Window(64);
  const b = new Bytes32Window(64);
  for (let i = 0; i < 200; i++) {
    const key = hex(i % 150);
    const viaWords = b.addWords(key, words(key));
    assert.equal(viaWords, a.add(key), key);
    assert.equal(b.find(key), a.find(key), key);
  }
  for (let i = 0; i < 150; i++) assert.equal(b.has(hex(i)), a.has(hex(i)));
});
