import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThrottledLog } from '../../src/core/throttled-log.ts';

test('a storm is one full line, then one summary per interval; a quiet key starts over with a full line', () => {
  const t = new ThrottledLog(10_000);
  const firsts: number[] = [];
  const sums: { key: string; count: number; last: string }[] = [];
  for (let ms = 0; ms < 25_000; ms += 100) {
    if (t.hit('m1', ms, `e${ms}`) === 'first') firsts.push(ms);
    t.due(ms, (key, s) => sums.push({ key, count: s.count, last: s.last }));
  }
  assert.deepEqual(firsts, [0]);
  assert.deepEqual(
    sums.map((s) => s.count),
    [100, 100],
  );
  assert.equal(sums[1]!.last, 'e20000');
  // 250 events in 25 s → 1 line + 2 summaries (200); the other 49 are told by drain
  const left: number[] = [];
  t.drain(25_000, (_k, s) => left.push(s.count));
  assert.deepEqual(left, [49]);
  // quiet for more than an interval: the next event is a full line again
  assert.equal(t.hit('m1', 40_000), 'first');
  assert.equal(t.hit('m2', 40_000), 'first', 'keys are independent');
  assert.equal(t.hit('m2', 40_001), null);
});
