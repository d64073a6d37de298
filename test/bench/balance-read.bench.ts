/**
 * balance-read: what one balance read costs the core of a bot quoting N still markets. The trading
 * poll syncs every followed market's holdings on every read (once a second): the free collateral and
 * N position syncs go into the kernel as one batch (`onEvents`, as the runtime's feed sink sends
 * them), then one market's book moves and ticks (its view sums the account's totals). Timed: the
 * CPU of the batch and of that tick, per read, over flat markets whose holdings the read confirms.
 *
 *   npm run bench -- balance-read [--markets 2000] [--reads 200] [--rounds 5] [--base DIR]
 *
 * `--base DIR`: the same world built from another checkout (with node_modules), in the same process;
 * the two trees' reads alternate in blocks (`--rounds`), and the ratio is base / this.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { inTree, report, argOf, positiveIntArg } from './lib.ts';
import { benchKernel } from '../support/quoting.ts';
import { loadBandsCore, marketIds, stillSnapshot, type Mod } from './quiet-markets.ts';

const N = positiveIntArg('markets', 2000);
const READS = positiveIntArg('reads', 200);
const ROUNDS = positiveIntArg('rounds', 5);
const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write('balance-read: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);

interface World {
  /** one balance read (a batch of 1 + N events) and one market's tick after it; returns CPU µs */
  read(): Promise<number>;
  ticks(): number;
}

async function world(root: string): Promise<World> {
  const { QuotingKernel, bands, DEFAULT_RISK, StateStore, FakeVenue, ManualClock, params, risk } = await loadBandsCore(root);
  const clock = new ManualClock(1_800_000_000_000);
  const store = new StateStore();
  const ids = marketIds(N);
  const kernel: Mod = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, ids, { clock, venue: new FakeVenue(), store, params, risk });
  await kernel.orderManager.reconcile();
  const book = (i: number, now: number): Mod => stillSnapshot(ids[i]!, i, now, 1);
  for (let i = 0; i < N; i++) kernel.onEvent(book(i, clock.now()));
  await kernel.flush();
  let next = 0;
  let ticks = 0;
  return {
    async read() {
      clock.t += 1000;
      const now = clock.now();
      const batch: Mod[] = [{ type: 'BalanceUpdated', collateral: 10n ** 12n, ts: now }];
      for (const id of ids) batch.push({ type: 'PositionSynced', marketId: id, yes: 0, no: 0, ts: now, readStartedAt: now });
      const ev = book(next, now);
      next = (next + 1) % N;
      const t0 = process.cpuUsage();
      kernel.onEvents(batch);
      kernel.onEvent(ev);
      const d = process.cpuUsage(t0);
      ticks++;
      await kernel.flush();
      return d.user + d.system;
    },
    ticks: () => ticks,
  };
}

const trees: { name: string; w: World; us: number[] }[] = [{ name: 'this tree', w: await world(here), us: [] }];
if (baseDir) trees.push({ name: baseDir, w: await world(resolve(baseDir)), us: [] });
// warm-up: the code optimised on both worlds before anything is timed
for (const t of trees) for (let i = 0; i < 20; i++) await t.w.read();
for (let r = 0; r < ROUNDS; r++) for (const t of trees) for (let i = 0; i < READS; i++) t.us.push(await t.w.read());
const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const mine = p50(trees[0]!.us);
const base = trees[1] ? p50(trees[1].us) : null;
const ms = (us: number): number => Math.round(us / 10) / 100;
report(
  [
    ['markets (quoted, still, flat)', N],
    ['reads timed per tree', READS * ROUNDS],
    ['CPU per read and tick, p50 (ms)', ms(mine)],
    ...(base !== null
      ? ([
          [`base (${baseDir}): CPU per read and tick, p50 (ms)`, ms(base)],
          ['ratio base / this', Math.round((base / mine) * 100) / 100],
        ] as [string, number][])
      : []),
  ],
  {
    name: 'balance-read',
    unit: 'CPU ms per balance read of every market and one tick after it (p50)',
    value: ms(mine),
    p50: ms(mine),
    ...(base !== null ? { baseline: `same world, ${baseDir}`, baselineValue: ms(base), ratio: Math.round((base / mine) * 100) / 100 } : {}),
    markets: N,
  },
);
