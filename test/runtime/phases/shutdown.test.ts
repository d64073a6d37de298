import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/core/logger.ts';
import type { CancelAllResult } from '../../../src/orders/order-manager.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { Shutdown } from '../../../src/runtime/phases/shutdown.ts';
import { ManualClock } from '../../exchange/stream/manual-clock.ts';

const OK: CancelAllResult = { ok: true, rounds: 1, cancelled: 2, endedBefore: 0, remaining: 0 };

function harness(cancel: CancelAllResult = OK) {
  const steps: string[] = [];
  const life = new Lifecycle();
  life.enter('ledger');
  life.add(() => void steps.push('ledger closed'));
  life.enter('control');
  life.add(() => void steps.push('final sweep'));
  const down = new Shutdown({
    log: silentLogger,
    life,
    clock: new ManualClock(1_000),
    kernel: { stop: () => void steps.push('kernel stopped'), flush: async () => void steps.push('kernel drained') },
    orderManager: {
      cancelAll: async () => {
        steps.push('cancel-all');
        return cancel;
      },
    },
    health: { setProcess: (p) => void steps.push(`process ${p}`) },
    refusals: { drain: () => void steps.push('refusals drained') },
  });
  // the feeds phase adds its quieting step before the rotation phase does
  down.onStop(() => void steps.push('feeds unsubscribed'));
  down.onStop(() => void steps.push('rotation stopped'));
  return { down, steps };
}

test('a stop quiets rotation then the feeds, drains the kernel, cancels every order, and only then tears down (ledger last)', async () => {
  const { down, steps } = harness();
  assert.equal(down.stopping, false);
  const first = down.stop('SIGTERM');
  assert.equal(down.stopping, true);
  const again = down.stop('SIGINT');
  assert.equal(await first, await again, 'once, whoever asks');
  assert.deepEqual(steps, [
    'process stopping',
    'rotation stopped',
    'feeds unsubscribed',
    'kernel stopped',
    'kernel drained',
    'cancel-all',
    'final sweep',
    'ledger closed',
    'refusals drained',
    'process stopped',
  ]);
});

test("a stop the bot decided (kill switch, halt) exits with its code; the halt's own cancel-all is not repeated", async () => {
  const { down, steps } = harness();
  down.request('kill-switch', 3, OK);
  assert.equal(await down.exit, 3);
  assert.equal(steps.includes('cancel-all'), false, 'the kill switch already cancelled everything');
  assert.equal(await down.exitWith(0), 3, 'the first code given wins');
});

test('a halt whose cancel-all left orders is cancelled again at the stop', async () => {
  const { down, steps } = harness();
  down.request('halt', 4, { ok: false, rounds: 3, cancelled: 0, endedBefore: 0, remaining: 1 });
  assert.equal(await down.exit, 4);
  assert.equal(steps.filter((s) => s === 'cancel-all').length, 1);
});

test('progress names the step a stop waits on and since when (a second SIGTERM reads it); none before or after', async () => {
  const clock = new ManualClock(1_000);
  let answer!: (r: CancelAllResult) => void;
  const down = new Shutdown({
    log: silentLogger,
    life: new Lifecycle(),
    clock,
    kernel: { stop: () => undefined, flush: async () => undefined },
    orderManager: { cancelAll: () => new Promise<CancelAllResult>((r) => (answer = r)) },
    health: { setProcess: () => undefined },
    refusals: { drain: () => undefined },
  });
  assert.equal(down.progress(), null);
  const stopped = down.stop('SIGTERM');
  for (let i = 0; i < 5 && !answer; i++) await Promise.resolve();
  assert.ok(answer, 'the stop reached the cancel-all');
  clock.advance(4_000);
  assert.deepEqual(down.progress(), {
    reason: 'SIGTERM',
    step: 'cancelling every order at the venue (waiting for its answers)',
    stepMs: 4_000,
    stoppingMs: 4_000,
  });
  answer(OK);
  await stopped;
  assert.equal(down.progress(), null, 'a finished stop waits on nothing');
});

test('the watchdog stands down once the cancel-all left nothing open, before the teardown; not when orders are left', async () => {
  for (const [cancel, expected] of [
    [OK, ['cancel-all', 'watchdog stood down', 'final sweep']],
    [{ ok: false, rounds: 5, cancelled: 1, endedBefore: 0, remaining: 1 }, ['cancel-all', 'final sweep']],
  ] as const) {
    const steps: string[] = [];
    const life = new Lifecycle();
    life.add(() => void steps.push('final sweep'));
    const down = new Shutdown({
      log: silentLogger,
      life,
      clock: new ManualClock(1_000),
      kernel: { stop: () => undefined, flush: async () => undefined },
      orderManager: {
        cancelAll: async () => {
          steps.push('cancel-all');
          return cancel;
        },
      },
      health: { setProcess: () => undefined },
      refusals: { drain: () => undefined },
      afterCancel: async () => void steps.push('watchdog stood down'),
    });
    await down.stop('SIGTERM');
    assert.deepEqual(steps, expected);
  }
});
