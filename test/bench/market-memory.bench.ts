/**
 * market-memory: the bytes one quiet quoted market holds in the bot's core, at rest. N
 * markets of the local exchange's kind (a 10-level book a side, a mid history of 10 minutes of
 * samples, stream status live) quote through the same kernel, order manager and store the bot runs
 * (bands, 2 bands a side: 4 resting orders per market, acknowledged by a stub venue), then sit
 * still; the figure is (live heap after a full GC with N markets − the same with none) / N, the
 * live heap with the typed arrays' backing stores (outside V8's heap) counted.
 * Counted: the store (books, orders, position, edge state, series), the view memos, the kernel's and
 * the order manager's per-market records. Not counted: the streams' connections and the feeds
 * (the load bench's RSS per market carries those).
 *
 *   node --expose-gc --import tsx test/bench/market-memory.bench.ts [--markets 2000] [--base DIR]
 *   (npm run bench -- market-memory runs itself again with --expose-gc)
 *
 * `--base DIR`: the same world built from another checkout (with node_modules), measured in the same
 * process after this tree's world is dropped, with the ratio base/this.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inTree, report } from './lib.ts';
import { benchKernel } from '../support/quoting.ts';
import { loadBandsCore, marketIds, stillSnapshot, type Mod } from './quiet-markets.ts';

if (typeof globalThis.gc !== 'function') {
  // re-run with the collector exposed (the figure needs a full GC before each reading)
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const gc = globalThis.gc as () => void;

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const N = Number(argOf('markets') ?? 2000);
const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write('market-memory: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);

/** the live heap and the typed arrays' backing stores, which V8 keeps outside its heap (a mid history's columns) */
const heap = (): number => {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** The bytes per market of one tree's core with N still, quoted markets. */
async function perMarket(root: string): Promise<{ bytes: number; orders: number }> {
  const { QuotingKernel, bands, DEFAULT_RISK, StateStore, FakeVenue, ManualClock, params, risk } = await loadBandsCore(root);
  const build = async (n: number): Promise<{ kernel: Mod; store: Mod; venue: Mod }> => {
    const clock = new ManualClock(1_800_000_000_000);
    const venue = new FakeVenue();
    const store = new StateStore();
    const ids = marketIds(n);
    const kernel: Mod = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, ids, { clock, venue, store, params, risk });
    await kernel.orderManager.reconcile();
    // ten minutes of a quiet market: a status, then a book a second (the mid history samples once a second)
    for (const id of ids)
      store.dispatch({
        type: 'BookEventReceived',
        event: { type: 'status', marketId: id, outcomeIndex: 1, state: 'live', localTs: clock.now() },
        ts: clock.now(),
      });
    for (let s = 0; s < 600; s++) {
      const now = clock.now();
      for (let i = 0; i < ids.length; i++) {
        const ev = stillSnapshot(ids[i]!, i, now, s + 1, s + 1);
        // the first second and the last tick the kernel (quotes placed, then at rest); the rest only move the store
        if (s === 0 || s === 599) kernel.onEvent(ev);
        else store.dispatch(ev);
      }
      await kernel.flush();
      clock.t += 1000;
    }
    await kernel.flush();
    kernel.stop();
    return { kernel, store, venue };
  };
  // warm-up: module state (memos, caches) grown once, then dropped
  await build(Math.min(N, 50));
  const h0 = heap();
  let world: { kernel: Mod; store: Mod; venue: Mod } | null = await build(0);
  const empty = heap() - h0;
  world = await build(N);
  const full = heap() - h0;
  const orders = world.kernel.orderManager.tracked().length;
  world = null;
  heap();
  return { bytes: (full - empty) / N, orders };
}

const mine = await perMarket(here);
const base = baseDir ? await perMarket(resolve(baseDir)) : null;
const kb = (b: number): number => Math.round(b / 102.4) / 10;
report(
  [
    ['markets (quoted, at rest)', N],
    ['orders resting', mine.orders],
    ['bytes per market', Math.round(mine.bytes)],
    ['KiB per market', kb(mine.bytes)],
    ...(base
      ? ([
          ['base: KiB per market', kb(base.bytes)],
          ['ratio base / this', Math.round((base.bytes / mine.bytes) * 100) / 100],
        ] as [string, number][])
      : []),
    ['goal', '≤ 50 KB per quoted market at rest'],
  ],
  {
    name: 'market-memory',
    unit: 'bytes per quiet quoted market (live heap)',
    value: Math.round(mine.bytes),
    ...(base ? { baseline: `same world, ${baseDir}`, baselineValue: Math.round(base.bytes), ratio: Math.round((base.bytes / mine.bytes) * 100) / 100 } : {}),
    markets: N,
  },
);
