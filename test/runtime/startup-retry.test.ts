import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { retryStartupStep, VenueUnreachableError, type StartupWait } from '../../src/runtime/startup-retry.ts';

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
    // the venue unreachable (run exits 8), the last error its cause; before: the raw 503 (exit 1)
    (e: unknown) => e instanceof VenueUnreachableError && e.cause instanceof VenueError && e.cause.status === 503 && e.step === 'x' && e.attempts === 6,
  );
  const waits = clock.waits.slice(waitsBefore);
  assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 10_000], 'stops before a pause would pass the budget');
});

test("the start-up's deadline bounds every step, and onWait hears what a step waits for", async () => {
  const clock = jumpClock();
  const heard: (StartupWait | null)[] = [];
  const deadlineAt = clock.now() + 20_000;
  const failures = [venueError(429, 3_000), venueError(503)];
  const v = await retryStartupStep(
    'ledger catch-up',
    async () => {
      const f = failures.shift();
      if (f) throw f;
      return 'ok';
    },
    { clock, log: silentLogger, deadlineAt, onWait: (w) => heard.push(w) },
  );
  assert.equal(v, 'ok');
  assert.deepEqual(
    heard.map(
      (w) =>
        w && { step: w.step, attempts: w.attempts, reason: w.reason, status: w.status, endpoint: w.endpoint, retryInMs: w.retryInMs, givesUpAt: w.givesUpAt },
    ),
    [
      { step: 'ledger catch-up', attempts: 1, reason: 'rate-limited', status: 429, endpoint: 'GET /markets', retryInMs: 3_000, givesUpAt: deadlineAt },
      { step: 'ledger catch-up', attempts: 2, reason: 'server-error', status: 503, endpoint: 'GET /markets', retryInMs: 2_000, givesUpAt: deadlineAt },
      null,
    ],
  );
  // a second step shares the deadline: 15 s of it are left, so it gives up before a pause passes them
  const before = clock.waits.length;
  await assert.rejects(
    retryStartupStep(
      'reconcile',
      async () => {
        throw venueError(429);
      },
      { clock, log: silentLogger, deadlineAt, budgetMs: 600_000, onWait: (w) => heard.push(w) },
    ),
    (e: unknown) =>
      e instanceof VenueUnreachableError &&
      /did not answer "reconcile"/.test(e.message) &&
      /\(last: rate-limited: GET \/markets: HTTP 429: x\)/.test(e.message),
  );
  assert.deepEqual(clock.waits.slice(before), [1_000, 2_000, 4_000, 8_000]);
  assert.equal(heard.at(-1), null, 'a step that gave up waits for nothing');
});
