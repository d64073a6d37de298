/**
 * A clock whose time moves only when the test says: `step()` fires the earliest pending timer at its time
 * and returns the pause it had (asserts one is set). For the claims tracker's tests (claims-tracker,
 * overdue-restart), whose re-reads and retries are timers on the clock.
 *
 *   const clock = movingClock(T0);  …  assert.equal(clock.step(), 60_000);  clock.t += 1_000;
 */
import assert from 'node:assert/strict';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';

export function movingClock(t = 1_800_000_000_000): Clock & { t: number; timers: { fn: () => void; at: number }[]; step(): number } {
  const c = {
    t,
    timers: [] as { fn: () => void; at: number }[],
    now: () => c.t,
    scheduler: asyncScheduler,
    setTimeout(fn: () => void, ms: number) {
      const x = { fn, at: c.t + ms };
      c.timers.push(x);
      return () => void (c.timers = c.timers.filter((y) => y !== x));
    },
    /** fire the earliest timer at its time; the pause it had */
    step() {
      c.timers.sort((a, b) => a.at - b.at);
      const x = c.timers.shift();
      assert.ok(x, 'a timer is set');
      const ms = x.at - c.t;
      c.t = x.at;
      x.fn();
      return ms;
    },
  };
  return c;
}
