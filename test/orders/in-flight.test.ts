import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlight } from '../../src/orders/in-flight.ts';

/** A Set of promises, the structure InFlight replaces: the reference for the property below. */
function reference(ops: readonly (readonly ['add' | 'delete', number])[], ps: readonly Promise<void>[]): Set<Promise<void>> {
  const s = new Set<Promise<void>>();
  for (const [op, i] of ops) {
    if (op === 'add') {
      if (!s.has(ps[i]!)) s.add(ps[i]!);
    } else s.delete(ps[i]!);
  }
  return s;
}

test('InFlight holds what a Set of the same promises holds, whatever the order of adds and deletes', () => {
  const ps = Array.from({ length: 8 }, () => Promise.resolve());
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 500; round++) {
    const f = new InFlight();
    const ops: ['add' | 'delete', number][] = [];
    const inSet = new Set<number>();
    for (let k = 0; k < 1 + rnd(30); k++) {
      const i = rnd(ps.length);
      // each promise is added once while held, as the kernel and the order manager add them (a fresh one per call)
      if (rnd(2) === 0 && !inSet.has(i)) {
        ops.push(['add', i]);
        inSet.add(i);
        f.add(ps[i]!);
      } else {
        ops.push(['delete', i]);
        inSet.delete(i);
        f.delete(ps[i]!);
      }
      const want = reference(ops, ps);
      assert.equal(f.size, want.size);
      assert.deepEqual(new Set(f.snapshot()), want);
      assert.equal(f.snapshot().length, want.size, 'no promise twice');
    }
  }
});

test('a snapshot is its own list: later adds and deletes do not change it', () => {
  const f = new InFlight();
  const a = Promise.resolve();
  const b = Promise.resolve();
  f.add(a);
  const snap = f.snapshot();
  f.add(b);
  f.delete(a);
  assert.deepEqual(snap, [a]);
  assert.deepEqual(f.snapshot(), [b]);
  f.delete(a); // not held: nothing
  assert.equal(f.size, 1);
});
