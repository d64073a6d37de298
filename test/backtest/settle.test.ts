/**
 * settle(): the replay's drain between two instants of virtual time. It must run every pending
 * continuation of the bot, however deep its chain, in the microtasks' own order, and nothing else
 * (no timer, no I/O): as the live event loop does before its next callback. drainer(): the same
 * drain as a callback, which the replay loop makes thousands of times a run (no promise each).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainer, settle } from '../../src/backtest/run-backtest.ts';
import { createRng } from '../../src/sim/rng.ts';

/** The reference: an event-loop turn, which runs only once the microtask queue is empty. */
function reference(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * A script of promise chains, some started before the drain and some from inside it: awaits of plain
 * values, of settled and pending promises, then() chains and promises resolved by other chains. The
 * log says which step of which chain ran before the drain returned, and in what order.
 */
async function trace(drain: () => Promise<void>, seed: number): Promise<string[]> {
  const rng = createRng(seed).next;
  const log: string[] = [];
  const gates: (() => void)[] = [];
  const chain = async (name: string, steps: number): Promise<void> => {
    for (let i = 0; i < steps; i++) {
      const kind = Math.floor(rng() * 4);
      if (kind === 0) await undefined;
      else if (kind === 1) await Promise.resolve(i);
      else if (kind === 2) await new Promise<void>((r) => gates.push(r));
      else await Promise.resolve().then(() => Promise.resolve());
      log.push(`${name}${i}`);
      if (gates.length > 0 && rng() < 0.5) gates.shift()!();
    }
  };
  const n = 2 + Math.floor(rng() * 4);
  const chains: Promise<void>[] = [];
  for (let c = 0; c < n; c++) chains.push(chain(`a${c}.`, 5 + Math.floor(rng() * 120)));
  chains.push(Promise.resolve().then(() => chain('late.', 40)));
  await drain();
  log.push('|drained');
  // let every chain finish before the next trace, so none of its jobs shares that trace's queue
  let finished = false;
  void Promise.all(chains).then(() => (finished = true));
  while (!finished) {
    while (gates.length > 0) gates.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  return log;
}

test('settle() runs every pending continuation, as an event-loop turn does, in the same order', async () => {
  const before: number[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const want = await trace(reference, seed);
    const got = await trace(settle, seed);
    assert.deepEqual(got, want, `seed ${seed}`);
    before.push(want.indexOf('|drained'));
  }
  // the scripts exercise the drain: many steps ran before it returned (chains of up to 125 steps)
  assert.ok(before.filter((n) => n >= 100).length >= 10, `steps before the drain returned: ${before.join(' ')}`);
});

test('settle() runs a chain of any depth to its end, and no timer or immediate queued before it', async () => {
  let steps = 0;
  let timer = false;
  let immediate = false;
  setTimeout(() => (timer = true), 0);
  setImmediate(() => (immediate = true));
  void (async () => {
    for (let i = 0; i < 1000; i++) {
      await undefined;
      steps++;
    }
  })();
  await settle();
  assert.equal(steps, 1000);
  assert.equal(timer, false);
  assert.equal(immediate, false);
});

/** drainer(then) as a promise: resolved from `then`, so `await` resumes right after it. */
const viaDrainer = (): Promise<void> => new Promise<void>((r) => drainer(r)());

test('drainer() runs every pending continuation, as an event-loop turn does, in the same order', async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const want = await trace(reference, seed);
    const got = await trace(viaDrainer, seed);
    assert.deepEqual(got, want, `seed ${seed}`);
  }
});

test('drainer() runs a chain of any depth to its end, and no timer or immediate queued before it', async () => {
  let steps = 0;
  let timer = false;
  let immediate = false;
  setTimeout(() => (timer = true), 0);
  setImmediate(() => (immediate = true));
  void (async () => {
    for (let i = 0; i < 1000; i++) {
      await undefined;
      steps++;
    }
  })();
  const seen = await new Promise<number[]>((r) => drainer(() => r([steps, timer ? 1 : 0, immediate ? 1 : 0]))());
  assert.deepEqual(seen, [1000, 0, 0]);
});

test('drainer(): a drain made from its own callback waits for the chains started there, as the replay loop drains', async () => {
  // rounds of chains, each round started where the last drain returned (the replay's step after a drain)
  const rounds = (drain: (then: () => void) => void): Promise<string[]> =>
    new Promise((done) => {
      const log: string[] = [];
      let round = 0;
      const start = (): void => {
        if (round === 12) return done(log);
        const r = round++;
        for (let c = 0; c < 3; c++)
          void (async () => {
            for (let i = 0; i < 5 + 7 * c + r; i++) {
              await undefined;
              log.push(`${r}.${c}.${i}`);
            }
          })();
        log.push(`|${r}`);
        drain(() => {
          log.push(`drained ${r}`);
          start();
        });
      };
      start();
    });
  const want = await rounds((then) => setImmediate(then));
  let then: () => void = () => {};
  const drain = drainer(() => then());
  const got = await rounds((t) => {
    then = t;
    drain();
  });
  assert.deepEqual(got, want);
  assert.equal(want.filter((l) => l.startsWith('drained')).length, 12);
});
