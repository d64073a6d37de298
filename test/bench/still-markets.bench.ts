/**
 * still-markets: what a second of a bot quoting N markets costs its core when the books are still
 * (or move `--rate` times a second each): the stream's keep-alives (one per market every 2 s), the
 * book deltas, the kernel's housekeeping round (every second) and the health model's evaluation
 * (once a second), on a manual clock, with the order manager's calls answered by a fake venue.
 * Timed: the process CPU of each virtual second, all of it (events, round, evaluation, the order
 * manager's continuations). What the load benchmark's still window runs, without the HTTP, the
 * streams and the machine's noise: a deterministic proxy for the bot's CPU at rest.
 *
 *   npm run bench -- still-markets [--markets 2000] [--rate 0] [--seconds 20] [--rounds 3] [--base DIR]
 *
 * `--base DIR`: the same world built from another checkout (with node_modules), in the same process;
 * the two trees' seconds alternate in blocks (`--rounds`), and the ratio is base / this. The kernel is
 * given `stillTickMs: 5000`, as the live runtime does (a tree without the option ignores it). Node
 * flags go before the script: `node --heap-growing-percent=50 --import tsx test/bench/still-markets.bench.ts`
 * measures the heap policy of a large run (src/runtime/heap-policy.ts) on the core's work.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { inTree, report } from './lib.ts';
import { benchKernel } from '../support/quoting.ts';
import { load, loadBandsCore, marketIds, stillSnapshot, type Mod } from './quiet-markets.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const num = (name: string, dflt: number, min = 1): number => {
  const v = Number(argOf(name) ?? dflt);
  if (!Number.isSafeInteger(v) || v < min) throw new Error(`--${name}: expected an integer of at least ${min}`);
  return v;
};
const N = num('markets', 2000);
const RATE = num('rate', 0, 0);
const SECONDS = num('seconds', 20);
const ROUNDS = num('rounds', 3);
const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write('still-markets: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);

interface World {
  /** one virtual second; returns its CPU µs */
  second(): Promise<number>;
  housekeepingTicks(): number;
}

async function world(root: string): Promise<World> {
  const core = await loadBandsCore(root);
  const [{ HealthModel }, { ManualClock }] = await Promise.all([load(root, 'src/health/health-model.ts'), load(root, 'test/exchange/stream/manual-clock.ts')]);
  const clock = new ManualClock(1_800_000_000_000);
  const store = new core.StateStore();
  const ids = marketIds(N);
  let housekeeping = 0;
  const kernel: Mod = benchKernel(core, ids, {
    clock,
    venue: new core.FakeVenue(),
    store,
    params: core.params,
    risk: core.risk,
    housekeepingMs: 1000,
    stillTickMs: 5000,
    onTickStart: (_id: string, cause: string) => {
      if (cause === 'housekeeping') housekeeping++;
    },
  });
  await kernel.orderManager.reconcile();
  const status = (id: string, now: number): Mod => ({
    type: 'BookEventReceived',
    event: { type: 'status', marketId: id, outcomeIndex: 1, state: 'live', localTs: now },
    ts: now,
  });
  for (let i = 0; i < N; i++) {
    kernel.onEvent(status(ids[i]!, clock.now()));
    kernel.onEvent(stillSnapshot(ids[i]!, i, clock.now(), 1));
  }
  await kernel.flush();
  const health = new HealthModel({ markets: ids, state: () => store.state, lastTick: (id: string) => kernel.lastTick(id), clock });
  health.setProcess('running');
  let sec = 0;
  let seq = 1;
  return {
    async second() {
      sec++;
      const t0 = process.cpuUsage();
      // the second's events, spread over it: keep-alives (every market every 2 s) and book deltas
      const slices = 10;
      for (let s = 0; s < slices; s++) {
        clock.advance(1000 / slices);
        const now = clock.now();
        for (let i = s; i < N; i += slices) {
          if (i % 2 === sec % 2) kernel.onEvent(status(ids[i]!, now));
          // a delta moves the market's mid between two levels (its quotes move)
          for (let r = 0; r < RATE; r++) kernel.onEvent(stillSnapshot(ids[i]!, i + ((sec + r) % 2), now, ++seq));
        }
        await kernel.flush();
      }
      health.evaluate();
      const d = process.cpuUsage(t0);
      return d.user + d.system;
    },
    housekeepingTicks: () => housekeeping,
  };
}

const trees: { name: string; w: World; us: number[]; hk0: number }[] = [{ name: 'this tree', w: await world(here), us: [], hk0: 0 }];
if (baseDir) trees.push({ name: baseDir, w: await world(resolve(baseDir)), us: [], hk0: 0 });
// warm-up: the code optimised on both worlds before anything is timed
for (const t of trees) for (let i = 0; i < 5; i++) await t.w.second();
for (const t of trees) t.hk0 = t.w.housekeepingTicks();
// the heap V8 reserves (heapTotal), largest seen after a timed second: what a heap flag changes
let heapMax = 0;
for (let r = 0; r < ROUNDS; r++)
  for (const t of trees)
    for (let i = 0; i < SECONDS; i++) {
      t.us.push(await t.w.second());
      heapMax = Math.max(heapMax, process.memoryUsage().heapTotal);
    }
const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const ms = (us: number): number => Math.round(us / 10) / 100;
const perSec = (t: (typeof trees)[number]): number => Math.round((t.w.housekeepingTicks() - t.hk0) / (ROUNDS * SECONDS));
const mine = p50(trees[0]!.us);
const base = trees[1] ? p50(trees[1].us) : null;
report(
  [
    ['markets (quoted)', N],
    ['book deltas per market per second', RATE],
    ['seconds timed per tree', ROUNDS * SECONDS],
    ['CPU per second, p50 (ms)', ms(mine)],
    ['housekeeping ticks per second', perSec(trees[0]!)],
    ['heap reserved, largest (MiB, the process)', Math.round(heapMax / 2 ** 20)],
    ...(base !== null
      ? ([
          [`base (${baseDir}): CPU per second, p50 (ms)`, ms(base)],
          ['base: housekeeping ticks per second', perSec(trees[1]!)],
          ['ratio base / this', Math.round((base / mine) * 100) / 100],
        ] as [string, number][])
      : []),
  ],
  {
    name: 'still-markets',
    unit: 'CPU ms per virtual second of the core (p50)',
    value: ms(mine),
    p50: ms(mine),
    ...(base !== null ? { baseline: `same world, ${baseDir}`, baselineValue: ms(base), ratio: Math.round((base / mine) * 100) / 100 } : {}),
    markets: N,
    rate: RATE,
    heapMaxMiB: Math.round(heapMax / 2 ** 20),
  },
);
