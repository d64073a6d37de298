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
import { pathToFileURL } from 'node:url';
import { inTree, report } from './lib.ts';
import { twoBands, unboundedRisk } from '../support/quoting.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const num = (name: string, dflt: number): number => {
  const v = Number(argOf(name) ?? dflt);
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`--${name}: expected a positive integer`);
  return v;
};
const N = num('markets', 2000);
const READS = num('reads', 200);
const ROUNDS = num('rounds', 5);
const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write('balance-read: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);
type Mod = any;
const load = (root: string, path: string): Promise<Mod> => import(pathToFileURL(resolve(root, inTree(root, path))).href);

interface World {
  /** one balance read (a batch of 1 + N events) and one market's tick after it; returns CPU µs */
  read(): Promise<number>;
  ticks(): number;
}

async function world(root: string): Promise<World> {
  const [{ default: bands }, { DEFAULT_RISK }, { QuotingKernel }, { StateStore }, { FakeVenue, ManualClock }] = await Promise.all([
    load(root, 'strategies/bands/index.ts'),
    load(root, 'src/config/parse-risk.ts'),
    load(root, 'src/kernel/quoting-kernel.ts'),
    load(root, 'src/state/store.ts'),
    load(root, 'test/orders/fake-venue.ts'),
  ]);
  const params = bands.parseConfig(twoBands(5, 5), 'bench');
  const risk = unboundedRisk(DEFAULT_RISK, { maxOrderSize: DEFAULT_RISK.maxOrderSize, maxBookAgeMs: 1e12, maxStreamSilenceMs: 1e12 });
  const clock = new ManualClock(1_800_000_000_000);
  const store = new StateStore();
  const ids = Array.from({ length: N }, (_, i) => '0x' + (i + 1).toString(16).padStart(64, '0'));
  const kernel = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store,
    markets: ids.map((marketId) => ({ marketId, strategy: bands, params, risk })),
    requoteIntervalMs: 0,
    housekeepingMs: 0,
  });
  await kernel.orderManager.reconcile();
  const book = (i: number, now: number): Mod => {
    const mid = 500_000 + (i % 7) * 10_000;
    const lv = (k: number, sign: number) => ({ price: mid + sign * (10_000 + k * 10_000), size: 100_000_000 + k });
    return {
      type: 'BookEventReceived',
      event: {
        type: 'snapshot',
        book: {
          marketId: ids[i],
          outcomeIndex: 1,
          bids: Array.from({ length: 10 }, (_, k) => lv(k, -1)),
          asks: Array.from({ length: 10 }, (_, k) => lv(k, 1)),
          venueTs: now,
        },
        seq: 1,
        localTs: now,
        source: 'stream',
      },
      ts: now,
    };
  };
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
