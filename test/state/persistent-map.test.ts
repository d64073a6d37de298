import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bucketOf, PersistentMap } from '../../src/state/persistent-map.ts';

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

  // thousands of keys: buckets of several chunks, with deletes and re-inserts between two versions
  const ids = Array.from({ length: 1_200 }, (_, i) => '0x' + (i * 104_729 + 17).toString(16).padStart(64, '0'));
  const op = fc.tuple(fc.integer({ min: 0, max: ids.length - 1 }), fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(-1)));

  it('iterates by bucket, then in insertion order (a deleted key re-inserted goes last), at thousands of keys', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        let p = ids.reduce((m, k, i) => m.set(k, i), PersistentMap.empty<number>());
        // the model: per bucket, the keys in insertion order
        const model: string[][] = Array.from({ length: 32 }, () => []);
        for (const k of ids) model[bucketOf(k)]!.push(k);
        const values = new Map(ids.map((k, i) => [k, i]));
        for (const [i, v] of ops) {
          const k = ids[i]!;
          const b = model[bucketOf(k)]!;
          if (v < 0) {
            p = p.delete(k);
            if (values.delete(k)) b.splice(b.indexOf(k), 1);
          } else {
            p = p.set(k, v);
            if (!values.has(k)) b.push(k);
            values.set(k, v);
          }
        }
        assert.deepEqual([...p.keys()], model.flat());
        assert.deepEqual(
          p.valueList(),
          model.flat().map((k) => values.get(k)),
        );
        assert.equal(p.size, values.size);
        for (const k of ids) assert.equal(p.get(k), values.get(k));
      }),
      { numRuns: 60 },
    );
  });

  it('forEachChangeSince reports exactly the keys set, replaced or deleted between two versions, each once', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.array(op, { maxLength: 40 }), (setup, ops) => {
        let from = ids.slice(0, 900).reduce((m, k, i) => m.set(k, { i }), PersistentMap.empty<{ i: number }>());
        for (const [i, v] of setup) from = v < 0 ? from.delete(ids[i]!) : from.set(ids[i]!, { i: v });
        let to = from;
        for (const [i, v] of ops) to = v < 0 ? to.delete(ids[i]!) : to.set(ids[i]!, { i: v });
        const seen = new Map<string, [unknown, unknown]>();
        to.forEachChangeSince(from, (k, before, after) => {
          assert.ok(!seen.has(k), `reported twice: ${k}`);
          seen.set(k, [before, after]);
        });
        const expected = new Map<string, [unknown, unknown]>();
        for (const k of ids) if (from.get(k) !== to.get(k)) expected.set(k, [from.get(k), to.get(k)]);
        assert.deepEqual(seen, expected);
        // two versions one update apart: one bucket, one chunk of it
        if (ops.length === 0) assert.equal(seen.size, 0);
      }),
      { numRuns: 150 },
    );
  });
  // a handful of keys: the flat form, turning bucketed at the ninth key (and staying so below it)
  const few = ids.slice(0, 14);
  const fewOp = fc.tuple(fc.integer({ min: 0, max: few.length - 1 }), fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(-1)));

  it('a map of few keys iterates by bucket, then in insertion order, as the bucketed one does, and never changes an old version', () => {
    fc.assert(
      fc.property(fc.array(fewOp, { maxLength: 60 }), (ops) => {
        let p = PersistentMap.empty<number>();
        const model: string[][] = Array.from({ length: 32 }, () => []);
        const values = new Map<string, number>();
        const versions: [PersistentMap<number>, string[], number[]][] = [];
        const check = (m: PersistentMap<number>, keys: string[], vals: number[], label: string) => {
          assert.deepEqual([...m.keys()], keys, `${label}: keys`);
          assert.deepEqual([...m.values()], vals, `${label}: values`);
          assert.deepEqual(m.valueList(), vals, `${label}: valueList`);
          assert.deepEqual(
            [...m.entries()],
            keys.map((k, i) => [k, vals[i]]),
            `${label}: entries`,
          );
          const each: [string, number][] = [];
          m.forEach((v, k) => each.push([k, v]));
          assert.deepEqual(
            each,
            keys.map((k, i) => [k, vals[i]]),
            `${label}: forEach`,
          );
          assert.equal(m.size, keys.length);
          for (const k of few) assert.equal(m.get(k), keys.includes(k) ? vals[keys.indexOf(k)] : undefined);
          for (const k of few) assert.equal(m.has(k), keys.includes(k));
        };
        for (const [i, v] of ops) {
          const k = few[i]!;
          const b = model[bucketOf(k)]!;
          if (v < 0) {
            p = p.delete(k);
            if (values.delete(k)) b.splice(b.indexOf(k), 1);
          } else {
            p = p.set(k, v);
            if (!values.has(k)) b.push(k);
            values.set(k, v);
          }
          const keys = model.flat();
          versions.push([p, keys, keys.map((k) => values.get(k)!)]);
        }
        versions.forEach(([m, keys, vals], n) => check(m, keys, vals, `version ${n}`));
      }),
      { numRuns: 300 },
    );
  });

  it('forEachChangeSince between maps of few keys (flat, bucketed or one of each): each change once, in bucket order', () => {
    fc.assert(
      fc.property(fc.array(fewOp, { maxLength: 30 }), fc.array(fewOp, { maxLength: 12 }), (setup, ops) => {
        let from = PersistentMap.empty<{ i: number }>();
        for (const [i, v] of setup) from = v < 0 ? from.delete(few[i]!) : from.set(few[i]!, { i: v });
        let to = from;
        for (const [i, v] of ops) to = v < 0 ? to.delete(few[i]!) : to.set(few[i]!, { i: v });
        const seen: [string, unknown, unknown][] = [];
        to.forEachChangeSince(from, (k, before, after) => seen.push([k, before, after]));
        const expected = new Map<string, [unknown, unknown]>();
        for (const k of few) if (from.get(k) !== to.get(k)) expected.set(k, [from.get(k), to.get(k)]);
        assert.deepEqual(new Map(seen.map(([k, b, a]) => [k, [b, a]])), expected);
        assert.equal(seen.length, expected.size, 'each once');
        for (let n = 1; n < seen.length; n++) assert.ok(bucketOf(seen[n - 1]![0]) <= bucketOf(seen[n]![0]), 'in bucket order');
      }),
      { numRuns: 300 },
    );
  });

  it('bucketOf gives a key the same bucket whatever was asked before (the last key is remembered)', () => {
    const fnv = (key: string): number => {
      let h = 0x811c9dc5;
      for (let i = Math.max(0, key.length - 16); i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
      return (h >>> 0) % 32;
    };
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 12 }), (keys) => {
        for (const k of [...keys, ...keys.reverse(), ...keys]) assert.equal(bucketOf(k), fnv(k), JSON.stringify(k));
      }),
    );
  });
});
