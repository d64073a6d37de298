import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { retryStartupStep } from '../../src/runtime/startup-retry.ts';

/** A clock whose timers fire at once, moving time forward by their delay (records the waits). */
function jumpClock(): Clock & { waits: number[] } {
  let t = 1_000_000;
  const waits: number[] = [];
  return {
    waits,
    now: () => t,
    scheduler: asyncScheduler,
    setTimeout(fn, ms) {
      waits.push(ms);
      t += ms;
      queueMicrotask(fn);
      return () => undefined;
    },
  };
}

const venueError = (status: number, retryAfterMs: number | null = null) =>
  new VenueError({ status, venueCode: null, message: 'x', endpoint: 'GET /markets', retryAfterMs, body: null });

test('transient venue failures at start-up are retried with growing pauses, a Retry-After honoured', async () => {
  const clock = jumpClock();
  const failures = [venueError(503), venueError(429, 5_000), venueError(502)];
  let calls = 0;
  const v = await retryStartupStep(
    'select markets',
    async () => {
      calls++;
      const f = failures.shift();
      if (f) throw f;
      return 'ok';
    },
    { clock, log: silentLogger },
  );
  assert.equal(v, 'ok');
  assert.equal(calls, 4);
  assert.deepEqual(clock.waits, [1_000, 5_000, 4_000]);
});

test('anything not transient fails at once; transient failures give up after the budget', async () => {
  const clock = jumpClock();
  let calls = 0;
  await assert.rejects(
    retryStartupStep(
      'x',
      async () => {
        calls++;
        throw new ConfigError('bad');
      },
      { clock, log: silentLogger },
    ),
    ConfigError,
  );
  assert.equal(calls, 1);
  await assert.rejects(
    retryStartupStep(
      'x',
      async () => {
        throw venueError(401);
      },
      { clock, log: silentLogger },
    ),
    (e: unknown) => e instanceof VenueError && e.status === 401,
  );
  const waitsBefore = clock.waits.length;
  await assert.rejects(
    retryStartupStep(
      'x',
      async () => {
        throw venueError(503);
      },
      { clock, log: silentLogger, budgetMs: 30_000 },
    ),
    (e: unknown) => e instanceof VenueError && e.status === 503,
  );
  const waits = clock.waits.slice(waitsBefore);
  assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 10_000], 'stops before a pause would pass the budget');
});
