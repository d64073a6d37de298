/**
 * The guards time alone trips (deadline, stale book, silent stream), asked without a view by the
 * kernel's housekeeping (timeGuardTrips), agree with the market guard itself at every instant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { marketGuard, timeGuardTrips } from '../../src/risk/market-guard.ts';
import { viewBook } from '../../src/strategy/view-book.ts';
import { makeView, NOW } from '../strategy/make-view.ts';
import { limits, S } from './limits.ts';

test('timeGuardTrips is true exactly when the market guard trips an active market by time (deadline, stale book, silent stream)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -20_000, max: 0 }),
      fc.option(fc.integer({ min: -20_000, max: 0 }), { nil: null }),
      fc.option(fc.integer({ min: -5_000, max: 20_000 }), { nil: null }),
      fc.integer({ min: 0, max: 20_000 }),
      fc.integer({ min: 0, max: 12_000 }),
      fc.integer({ min: 0, max: 12_000 }),
      fc.boolean(),
      (bookAt, streamAt, deadline, pause, maxBookAgeMs, maxStreamSilenceMs, hasBook) => {
        const lim = limits({ pauseBeforeDeadlineMs: pause, maxBookAgeMs, maxStreamSilenceMs });
        const book = hasBook ? viewBook([{ price: 480_000, size: S }], [{ price: 520_000, size: S }], NOW + bookAt, NOW + bookAt) : null;
        const view = makeView({ book, streamLastEventAt: streamAt === null ? null : NOW + streamAt, deadline: deadline === null ? null : NOW + deadline });
        const trip = marketGuard(view, lim);
        const byTime = timeGuardTrips(hasBook ? NOW + bookAt : null, view.streamLastEventAt, view.deadline, NOW, lim);
        assert.equal(byTime, trip !== null, `guard ${trip?.reason ?? 'none'}`);
      },
    ),
    { numRuns: 500 },
  );
});
