/**
 * A stalled event loop judged from the main thread's scheduler figures: ran, waited for a CPU, or
 * neither; and the real figures of this thread move as it works.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeStall, judgeStall, mainThreadSched, parseSchedstat, stallFields } from '../../src/runtime/loop-stall.ts';

const S = 1e9;

test('schedstat: on-CPU and run-queue nanoseconds; anything else is no figures', () => {
  assert.deepEqual(parseSchedstat('125304268 559754886 84\n'), { runNs: 125304268, waitNs: 559754886 });
  assert.equal(parseSchedstat(''), null);
  assert.equal(parseSchedstat('12'), null);
  assert.equal(parseSchedstat('x 1 2'), null);
  assert.equal(parseSchedstat('-1 5 2'), null);
});

test('a stall is named after what the main thread did most: ran, waited for a CPU, or neither', () => {
  const at = { runNs: 10 * S, waitNs: 3 * S };
  const busy = judgeStall(5_000, at, { runNs: 14.5 * S, waitNs: 3.2 * S }, 1.2, 2);
  assert.equal(busy.cause, 'busy');
  assert.equal(busy.seconds, 5);
  assert.equal(busy.ranSeconds, 4.5);
  assert.equal(busy.waitedSeconds, 0.2);
  const starved = judgeStall(10_327, at, { runNs: 10.53 * S, waitNs: 12.4 * S }, 24.26, 2);
  assert.equal(starved.cause, 'cpu-starved');
  assert.equal(starved.ranSeconds, 0.53);
  assert.equal(starved.waitedSeconds, 9.4);
  assert.equal(starved.loadAverage, 24.3);
  const asleep = judgeStall(6_000, at, { runNs: 10.1 * S, waitNs: 3.1 * S }, 0.5, 2);
  assert.equal(asleep.cause, 'off-cpu');
  assert.equal(judgeStall(6_000, null, at, 0.5, 2).cause, 'unknown');
  // a kernel that keeps no figures shows zeros
  assert.equal(judgeStall(6_000, { runNs: 0, waitNs: 0 }, { runNs: 0, waitNs: 0 }, 0.5, 2).cause, 'unknown');
  // figures that went backwards (another thread's, a restart) are no figures
  assert.equal(judgeStall(6_000, at, { runNs: 9 * S, waitNs: 3 * S }, 0.5, 2).cause, 'unknown');
  // the figures' own rounding never makes the parts exceed the stall
  const over = judgeStall(1_000, at, { runNs: 11.2 * S, waitNs: 3.5 * S }, 0.5, 2);
  assert.equal(over.ranSeconds, 1);
  assert.equal(over.waitedSeconds, 0);
});

test('the sentence and the fields say the same figures', () => {
  const s = judgeStall(10_327, { runNs: 0, waitNs: 0 }, { runNs: 0.53 * S, waitNs: 9.4 * S }, 24.26, 2);
  const why = describeStall(s);
  assert.match(why, /ran 0\.53 s and waited 9\.4 s for a CPU: starved of CPU/);
  assert.match(why, /load average 24\.3 on 2 cores/);
  assert.deepEqual(stallFields(s), { stalledSeconds: 10.327, cause: 'cpu-starved', ranSeconds: 0.53, waitedForCpuSeconds: 9.4, loadAverage: 24.3, cores: 2 });
  assert.match(describeStall(judgeStall(5_000, { runNs: 0, waitNs: 0 }, { runNs: 4.9 * S, waitNs: 0 }, 1, 2)), /one long turn of work/);
  assert.match(describeStall(judgeStall(5_000, null, null, 1, 1)), /no scheduler figures on this system \(load average 1 on 1 core\)/);
});

test('this thread: the figures grow by the time it ran', { skip: mainThreadSched() === null ? 'no schedstat on this system' : false }, () => {
  const a = mainThreadSched()!;
  const t0 = process.cpuUsage();
  let x = 0;
  for (let i = 0; i < 5e7; i++) x += i;
  assert.ok(x > 0);
  const b = mainThreadSched()!;
  const used = (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6;
  const ran = (b.runNs - a.runNs) / 1e9;
  assert.ok(ran > 0, 'ran');
  // the process's CPU (all its threads) covers the main thread's
  assert.ok(ran <= used + 0.02, `main thread ${ran} s, process ${used} s`);
});
