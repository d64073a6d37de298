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

test('pause: the events not yet told go out, and an event within the interval after is counted, not told in full', () => {
  const t = new ThrottledLog(10_000);
  assert.equal(t.hit('m1', 0, 'a'), 'first');
  assert.equal(t.hit('m1', 500, 'b'), null);
  const told: number[] = [];
  t.pause('m1', 1_000, (_k, s) => told.push(s.count));
  assert.deepEqual(told, [1], 'the one counted event');
  t.pause('m1', 1_200, (_k, s) => told.push(s.count));
  assert.deepEqual(told, [1], 'nothing counted since: no summary');
  assert.equal(t.hit('m1', 1_500, 'c'), null, 'the storm resumes: counted');
  assert.equal(t.hit('m9', 1_500), 'first');
  t.pause('m1', 2_000, () => undefined);
  assert.equal(t.hit('m1', 12_000), 'first', 'quiet for a whole interval after the pause: a full line');
  t.pause('nope', 0, () => assert.fail('an unknown key has nothing to tell'));
});
