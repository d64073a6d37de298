/**
 * A timer that falls due during a stall of the event loop runs after that turn's reads: what arrived
 * during the stall (here a message from another thread, read in the same phase as the sockets) is in
 * before the timer's callback judges anything. One turn only: a timer on time runs as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../../src/core/clock.ts';
import { lateTimers, setTimeoutAfterReads } from '../../src/core/late-timer.ts';

/** a thread that posts 'arrived' once flags[0] is set (while the test holds its loop) */
const POSTER = `
const { parentPort, workerData } = require('node:worker_threads');
const flags = new Int32Array(workerData.flags);
parentPort.postMessage('up');
Atomics.wait(flags, 0, 0, 10000);
parentPort.postMessage('arrived');
Atomics.store(flags, 1, 1);
Atomics.notify(flags, 1);
`;

/** Holds the loop in a turn of its own for `ms`, letting the worker post meanwhile. */
function hold(flags: Int32Array, ms: number): Promise<void> {
  return new Promise((r) =>
    setImmediate(() => {
      const t0 = performance.now();
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
      Atomics.wait(flags, 1, 0, 10_000);
      while (performance.now() - t0 < ms) Atomics.wait(flags, 2, 0, 20);
      r();
    }),
  );
}

for (const [name, set] of [
  ['the live clock (systemClock.setTimeout)', (fn: () => void, ms: number) => systemClock.setTimeout(fn, ms)],
  ['setTimeoutAfterReads', (fn: () => void, ms: number) => setTimeoutAfterReads(fn, ms)],
] as const) {
  test(`${name}: a timer due during a stall runs after what arrived during it`, async () => {
    const flags = new Int32Array(new SharedArrayBuffer(12));
    const worker = new Worker(POSTER, { eval: true, workerData: { flags: flags.buffer } });
    try {
      await once(worker, 'message');
      const order: string[] = [];
      const arrived = new Promise<void>((r) =>
        worker.on('message', (m) => {
          order.push(m as string);
          r();
        }),
      );
      const ran = new Promise<void>((r) =>
        set(() => {
          order.push('timer');
          r();
        }, 50),
      );
      const before = lateTimers();
      await hold(flags, 1_300);
      await Promise.all([arrived, ran]);
      assert.deepEqual(order, ['arrived', 'timer'], 'old code: the timer first, judging on what was read before the stall');
      assert.equal(lateTimers() - before, 1, 'counted');
      // on time: runs as a plain timer, and a cancelled one never runs
      const onTime: string[] = [];
      await new Promise<void>((r) => set(() => r(), 5));
      const cancel = set(() => onTime.push('cancelled ran'), 5);
      cancel();
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(onTime, []);
      assert.equal(lateTimers() - before, 1);
    } finally {
      await worker.terminate();
    }
  });
}

test('a late timer cancelled before its turn after the reads does not run', async () => {
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(POSTER, { eval: true, workerData: { flags: flags.buffer } });
  try {
    await once(worker, 'message');
    let ran = false;
    let cancel: () => void = () => undefined;
    cancel = setTimeoutAfterReads(() => (ran = true), 50);
    // the message arrives in the turn after the hold, between the timer (put after the reads) and its callback
    worker.on('message', () => cancel());
    await hold(flags, 1_300);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(ran, false);
  } finally {
    await worker.terminate();
  }
});

test("the kernel's housekeeping round after a stall judges a book on the delta that arrived during it: no stale-book pull", async () => {
  const { QuotingKernel } = await import('../../src/kernel/quoting-kernel.ts');
  const { OrderManager } = await import('../../src/orders/order-manager.ts');
  const { StateStore } = await import('../../src/state/store.ts');
  const { DEFAULT_RISK } = await import('../../src/config/parse-risk.ts');
  const { FakeVenue, M1 } = await import('../orders/fake-venue.ts');
  const { ONE_BAND, topOfBook } = await import('../support/quoting.ts');
  const bands = (await import('../../strategies/bands/index.ts')).default;
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(POSTER, { eval: true, workerData: { flags: flags.buffer } });
  const clock = systemClock;
  const venue = new FakeVenue();
  const store = new StateStore();
  // biome-ignore lint/style/useConst: assigned after the order manager that calls it
  let kernel: InstanceType<typeof QuotingKernel> | null = null;
  const om = new OrderManager({ venue, clock, tolerances: { price: 0, sizeFraction: 0.1 }, emit: (e) => kernel!.onOrderManagerEvent(e), cancelAllDelayMs: 0 });
  const reasons: (string | undefined)[] = [];
  kernel = new QuotingKernel({
    clock,
    venue,
    store,
    markets: [
      { marketId: M1, strategy: bands, params: bands.parseConfig(ONE_BAND, 'strategy'), risk: { ...DEFAULT_RISK, maxBookAgeMs: 800, maxStreamSilenceMs: 800 } },
    ],
    requoteIntervalMs: 0,
    housekeepingMs: 200,
    orderManager: om,
    onTick: (_m, t) => void reasons.push(t.reason),
  });
  const k = kernel;
  try {
    await once(worker, 'message');
    k.onEvent(topOfBook(M1, 480_000, 520_000, clock.now()));
    await k.flush();
    assert.equal(reasons.at(-1), undefined, 'quoting');
    // the book's next delta arrives while the loop is held past the book's 800 ms age limit
    worker.on('message', () => k.onEvent(topOfBook(M1, 481_000, 521_000, clock.now())));
    reasons.length = 0;
    await hold(flags, 1_300);
    await new Promise((r) => setTimeout(r, 250)); // a housekeeping round after the hold
    await k.flush();
    assert.ok(reasons.length >= 1, 'ticked after the hold');
    assert.deepEqual(
      reasons.filter((r) => r !== undefined),
      [],
      'old code: the round ran before the delta was read, found the book 1.3 s old and pulled (STALE_BOOK)',
    );
  } finally {
    k.stop();
    await worker.terminate();
  }
});
