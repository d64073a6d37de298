/**
 * What `bookmaker run` answers to stop signals while it is stopping (src/cli/stop-again.ts): the second signal
 * says where the stop is and ends nothing; the third ends the process with exit 9 and says orders may rest.
 * test/e2e/stopping.e2e.test.ts sends them to a real bot held up by a stalled venue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopAgain } from '../../src/cli/stop-again.ts';
import { EXIT_STOP_CUT_SHORT } from '../../src/runtime/exit-codes.ts';

const cancelling = { reason: 'SIGTERM', step: 'cancelling every order at the venue (waiting for its answers)', stepMs: 12_440, stoppingMs: 12_510 };

test('the second stop signal names the step and its times, and ends nothing', () => {
  const a = stopAgain(2, 'SIGTERM', cancelling, true, 120_000);
  assert.equal(a.exit, false);
  assert.equal(
    a.message,
    'SIGTERM again while stopping: still cancelling every order at the venue (waiting for its answers), for 12.4 s (stopping for 12.5 s); ' +
      'the stop cancels every order before it ends. One more SIGTERM or SIGINT ends the process at once (exit 9) and leaves what is still ' +
      "open at the venue until its dead-man expiry (orders.deadManExpirySeconds: 120 s) or the next start's reconcile",
  );
  assert.deepEqual(a.fields, { signal: 'SIGTERM', waitingOn: cancelling.step, stepSeconds: 12.4, stoppingSeconds: 12.5 });
});

test('the third ends the process with exit 9, naming the step it cuts short', () => {
  const a = stopAgain(3, 'SIGINT', cancelling, true, 0);
  assert.equal(a.exit, true);
  assert.equal(EXIT_STOP_CUT_SHORT, 9);
  assert.equal(a.fields.exitCode, 9);
  assert.match(a.message, /^SIGINT a third time: stop cut short while cancelling every order at the venue \(waiting for its answers\), for 12\.4 s/);
  assert.match(
    a.message,
    /exiting now \(exit 9\)\. Orders may rest at the venue until their dead-man expiry \(none is set: orders\.deadManExpirySeconds is 0\)/,
  );
});

test('before the bot runs, or once its stop is over, the message says so', () => {
  assert.match(stopAgain(2, 'SIGTERM', null, false, null).message, /still ending the start-up \(anything placed is cancelled\); /);
  assert.match(stopAgain(2, 'SIGTERM', null, true, 60_000).message, /still finishing \(the orders are cancelled\); /);
  assert.equal(stopAgain(4, 'SIGTERM', null, true, 60_000).exit, true);
});
