import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PersistentMap } from '../../src/state/persistent-map.ts';

describe('PersistentMap', () => {
  it('behaves like a Map and never changes an old version', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.integer())), (ops) => {
        let p = PersistentMap.empty<number>();
        const ref = new Map<string, number>();
        const history: [PersistentMap<number>, Map<string, number>][] = [];
        for (const [k, v] of ops) {
          history.push([p, new Map(ref)]);
          p = p.set(k, v);
          ref.set(k, v);
        }
        const same = (a: PersistentMap<number>, b: Map<string, number>) => {
          assert.equal(a.size, b.size);
          for (const [k, v] of b) assert.equal(a.get(k), v);
          assert.deepEqual(new Map(a), b);
          assert.equal([...a.keys()].length, b.size);
        };
        same(p, ref);
        for (const [old, snap] of history) same(old, snap);
        assert.equal(p.has('\u0000missing'), ref.has('\u0000missing'));
      }),
      { numRuns: 300 },
    );
  });

  it('iterates in the same order for the same history (replay determinism)', () => {
    const keys = Array.from({ length: 100 }, (_, i) => '0x' + (i * 7919).toString(16).padStart(64, '0'));
    const build = () => keys.reduce((m, k, i) => m.set(k, i), PersistentMap.empty<number>());
    assert.deepEqual([...build().keys()], [...build().keys()]);
  });
});
