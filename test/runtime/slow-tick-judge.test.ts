/** A slow strategy call judged by the main thread's window around it: the stall judge's cause. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JUDGE_REUSE_MS, SlowTickJudge } from '../../src/runtime/slow-tick-judge.ts';
import { mainThreadSched } from '../../src/runtime/loop-stall.ts';

test('the window since the last sample: waited for a CPU → cpu-starved, ran → busy, no figures → unknown; close calls share a judgement', () => {
  let sched: { runNs: number; waitNs: number } | null = { runNs: 5e9, waitNs: 1e9 };
  let now = 10_000;
  const j = new SlowTickJudge({ sched: () => sched, now: () => now, load: () => 18, cores: 2 });
  now += 800;
  sched = { runNs: 5.1e9, waitNs: 1.6e9 };
  const a = j.judge();
  assert.equal(a.cause, 'cpu-starved');
  assert.equal(a.seconds, 0.8);
  assert.equal(a.ranSeconds, 0.1);
  assert.equal(a.waitedSeconds, 0.6);
  now += JUDGE_REUSE_MS - 1;
  sched = { runNs: 9e9, waitNs: 1.6e9 };
  assert.equal(j.judge(), a, 'within the reuse window: the same judgement, no read');
  j.sample();
  now += 500;
  sched = { runNs: 9.45e9, waitNs: 1.62e9 };
  assert.equal(j.judge().cause, 'busy');
  j.sample();
  now += 500;
  sched = null;
  assert.equal(j.judge().cause, 'unknown');
});

test('on this machine: the real figures are read and the sampler stops', () => {
  const j = new SlowTickJudge();
  const stop = j.start(10);
  const s = j.judge();
  assert.ok(['busy', 'cpu-starved', 'off-cpu', 'unknown'].includes(s.cause));
  if (mainThreadSched() !== null) assert.notEqual(s.ranSeconds, null);
  stop();
});
