/**
 * `npm run bench -- backtest-edge --layers` charges a CPU profile's samples to the backtest's layers
 * (test/bench/backtest-layers.ts): a sample in a layer's file to that layer, a sample in shared code
 * (src/core's L2Book, Node's own) to its nearest caller with a layer, garbage collection to its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layerOfFrame, layerShares, type CpuProfileLike } from '../bench/backtest-layers.ts';

const at = (functionName: string, path: string) => ({ functionName, url: path === '' ? '' : `file:///repo/${path}`, lineNumber: 0 });

// root → the replay loop → the feed's pass → L2Book.setBid; root → the kernel's tick → the strategy; root → GC; root → a promise job
const PROFILE: CpuProfileLike = {
  nodes: [
    { id: 1, callFrame: at('(root)', ''), children: [2, 6, 8, 9] },
    { id: 2, callFrame: at('advance', 'src/backtest/run-backtest.ts'), children: [3] },
    { id: 3, callFrame: at('skipSilent', 'src/backtest/replay-feed.ts'), children: [4] },
    { id: 4, callFrame: at('setBid', 'src/core/l2-book.ts'), children: [5] },
    { id: 5, callFrame: at('', ''), children: [] },
    { id: 6, callFrame: at('runTick', 'src/kernel/quoting-kernel.ts'), children: [7] },
    { id: 7, callFrame: at('quoteAvellaneda', 'strategies/avellaneda/quote.ts'), children: [] },
    { id: 8, callFrame: at('(garbage collector)', ''), children: [] },
    { id: 9, callFrame: at('runMicrotasks', ''), children: [] },
  ],
  // the first sample's delta is from the profile's start; each sample's time is the delta to the next
  samples: [4, 5, 3, 7, 6, 8, 9, 2],
  timeDeltas: [0, 10, 10, 10, 10, 10, 20, 10],
};

test('shared code is charged to the nearest caller with a layer; GC and promise jobs to their own', () => {
  const { layers, samples } = layerShares(PROFILE);
  const share = new Map(layers);
  assert.equal(samples, 8);
  // setBid (core) and the builtin under it count for the feed that wrote, as its own pass does
  assert.equal(share.get("replay feed: the bot's book, snapshots"), 3 / 8);
  assert.equal(share.get('tick: strategy'), 1 / 8);
  assert.equal(share.get('tick: kernel (throttle, runTick, events)'), 1 / 8);
  assert.equal(share.get('garbage collection'), 2 / 8);
  assert.equal(share.get('other: promise jobs, Node, shared code at the root'), 1 / 8);
  // the last sample has no delta after it: no time
  assert.equal(share.get('replay loop'), 0);
  assert.equal(
    layers.reduce((s, [, x]) => s + x, 0),
    1,
  );
});

test("a layer's files: the sim exchange's engine, the view apart from the store, nonces apart from the order manager", () => {
  assert.equal(layerOfFrame(at('submit', 'src/engine/matching-engine.ts')), 'sim exchange: books, queues, matching');
  assert.equal(layerOfFrame(at('selectMarketView', 'src/state/market-view.ts')), 'tick: view');
  assert.equal(layerOfFrame(at('reduce', 'src/state/reduce.ts')), 'store: reductions, edge, regime');
  assert.equal(layerOfFrame(at('next', 'src/orders/nonces.ts')), 'nonces and their memory');
  assert.equal(layerOfFrame(at('syncNow', 'src/orders/order-manager.ts')), 'order manager: sync, executor, reconcile');
  assert.equal(layerOfFrame(at('setBid', 'src/core/l2-book.ts')), null);
  // a base tree from before src/kernel (2e8e4dd7 kept the kernel in src/runtime)
  assert.equal(layerOfFrame(at('runTick', 'src/runtime/quoting-kernel.ts')), 'tick: kernel (throttle, runTick, events)');
  assert.equal(layerOfFrame(at('bot', 'src/runtime/bot.ts')), null);
});
