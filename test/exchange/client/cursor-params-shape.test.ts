/**
 * A cursor-paged read passes each page after the first its params plus the cursor, built by adding to a fresh
 * object (withCursor), not as `{ ...params, cursor }`: a spread followed by a new key gave each page's params a V8
 * map of its own once the caller had its feedback (docs/performance/map-churn.md). Counted with V8's %HaveSameMap (natives
 * syntax, switched on for one function made here); the params keep their keys, order and values.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distinctMaps, haveSameMap } from '../../support/v8-maps.ts';
import { iterateByCursor, withCursor } from '../../../src/exchange/client/paginate.ts';

interface Params {
  trader?: string;
  limit?: number;
  cursor?: string;
}

test('100 pages: the params of every page after the first share one map and are the params plus the cursor', async () => {
  const asked: Params[] = [];
  const read = async (p: Params): Promise<{ cursor: string | null; items: number[] }> => {
    asked.push(p);
    const n = asked.length;
    return { cursor: n < 100 ? `c${n}` : null, items: [n] };
  };
  const items: number[] = [];
  for await (const it of iterateByCursor(read, { trader: '0xab', limit: 50 }, 'items')) items.push(it);
  assert.equal(items.length, 100);
  assert.deepEqual(asked[0], { trader: '0xab', limit: 50 });
  assert.deepEqual(asked[1], { trader: '0xab', limit: 50, cursor: 'c1' });
  assert.deepEqual(Object.keys(asked[99]!), ['trader', 'limit', 'cursor']);
  assert.equal(asked[99]!.cursor, 'c99');
  assert.equal(distinctMaps(asked.slice(1)), 1);
  // the check tells maps apart: params of another shape have another map
  assert.equal(haveSameMap(asked[1]!, { ...asked[1]!, extra: 1 }), false);
});

test('withCursor is the spread: same keys in the same order, the params left as they were', () => {
  const params = { a: 1, b: undefined, c: 'x' };
  const p = withCursor(params, 'k');
  assert.deepEqual(Object.keys(p), Object.keys({ ...params, cursor: 'k' }));
  assert.deepEqual(p, { ...params, cursor: 'k' });
  assert.deepEqual(params, { a: 1, b: undefined, c: 'x' });
  assert.ok('b' in p, 'a key present with undefined stays present');
});
