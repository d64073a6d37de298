/**
 * settle(): the replay's drain between two instants of virtual time. It must run the bot's pending
 * continuations exactly as far as the async loop it replaced (MICROTASK_HOPS awaits of undefined)
 * did, no more and no fewer, or fills and reports of every backtest could change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MICROTASK_HOPS, settle } from '../../src/backtest/run-backtest.ts';
import { createRng } from '../../src/sim/rng.ts';

/** The formulation settle() replaced, kept here as the reference. */
async function reference(): Promise<void> {
  for (let k = 0; k < MICROTASK_HOPS; k++) await undefined;
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

test('settle() runs exactly the continuations the 64-await drain ran, in the same order', async () => {
  const before: number[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const want = await trace(reference, seed);
    const got = await trace(settle, seed);
    assert.deepEqual(got, want, `seed ${seed}`);
    before.push(want.indexOf('|drained'));
  }
  // the scripts exercise the drain: steps ran before it returned, and some chains outlived it
  assert.ok(before.filter((n) => n >= 20).length >= 10, `steps before the drain returned: ${before.join(' ')}`);
});

test('settle() stops at MICROTASK_HOPS: a deeper chain continues after it, as before', async () => {
  const ran: number[] = [];
  for (const drain of [reference, settle]) {
    let steps = 0;
    void (async () => {
      for (let i = 0; i < 3 * MICROTASK_HOPS; i++) {
        await undefined;
        steps++;
      }
    })();
    await drain();
    ran.push(steps);
  }
  // the chain's first step was queued before the drain's first hop, so it gets one step more
  assert.deepEqual(ran, [MICROTASK_HOPS + 1, MICROTASK_HOPS + 1]);
});
