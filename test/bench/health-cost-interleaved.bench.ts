/**
 * health-cost, interleaved: the tick-to-wire pipeline of the code before the health model (1d73146, `--base DIR`) and
 * of this tree in ONE process, one tick of each in turn (ABBA), so machine noise (other processes,
 * frequency changes, a neighbour's GC) falls on both alike. What differs is the per-tick code path:
 * this tree's store (edge state), kernel (strategy timing, tick hooks) and live venue, plus what the
 * bot hangs on a tick — the tick-to-wire meter, bookmaker_api_latency_seconds per request, the
 * strategy timer with its budget. Process-wide costs (prom-client's default metrics, the watchdog
 * heartbeat timer) are on for both sides here; the process-per-side health-cost bench charges them.
 *
 *   npm run bench -- health-cost-interleaved --base ../base [--ticks 4000] [--head DIR]
 *
 * The base is a checkout of 1d73146 with node_modules (see health-cost.bench.ts). Both sides run
 * the same book events (the mid moves 3¢ every tick, so all four quotes move: 4 cancels + 4
 * creates signed and serialised per tick) against a stub HTTP client that answers at once.
 * Last line: one JSON object (value = after/before of the wall p50).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inTree, percentile, report } from './lib.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { bookSnapshot, stubOrdersClient } from '../support/stub-orders-client.ts';
import { benchKernel } from '../support/quoting.ts';
import { loadTickPipeline } from './quiet-markets.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const baseDir = argOf('base');
if (!baseDir || !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write(
    'health-cost-interleaved: --base DIR must be a checkout of the code before the health model (1d73146) with node_modules (see health-cost.bench.ts)\n',
  );
  process.exit(2);
}
const TICKS = Number(argOf('ticks') ?? 4000);
if (!Number.isFinite(TICKS) || TICKS < 100) {
  process.stderr.write('health-cost-interleaved: --ticks must be ≥ 100\n');
  process.exit(2);
}
// --head DIR: measure another checkout as "after" (e.g. an earlier commit of this branch); default this tree
const here = resolve(argOf('head') ?? new URL('../..', import.meta.url).pathname);
const M = '0x' + 'ab'.repeat(32);
const KEY = '0x' + '11'.repeat(32);

/** the two trees' modules, typed only by use */
type Mod = any;
const load = (root: string, path: string): Promise<Mod> => import(pathToFileURL(resolve(root, inTree(root, path))).href);

interface Pipeline {
  tick(): Promise<{ wall: number; cpu: number }>;
}

/** The tick-to-wire bench's pipeline from one tree; `instrumented`: as this tree's bot runs it. */
async function pipeline(root: string, instrumented: boolean): Promise<Pipeline> {
  const [{ default: bands }, { systemClock }, { DEFAULT_RISK }, { TESTNET }, { createSigner }, { createLiveVenue }, { QuotingKernel }, { StateStore }] =
    await loadTickPipeline(root);
  let metrics: Mod = null;
  let meter: Mod = null;
  if (instrumented) {
    const { createBotMetrics } = await load(root, 'src/metrics/bot-metrics.ts');
    const { TickToWireMeter } = await load(root, 'src/kernel/tick-to-wire.ts');
    metrics = createBotMetrics();
    meter = new TickToWireMeter({ tickToWire: (s: number) => metrics.tickToWire.observe(s), throttle: (s: number) => metrics.requoteThrottle.observe(s) });
  }
  const written: number[] = [];
  const wire = (body: unknown): void => {
    const t = performance.now();
    JSON.stringify(body);
    written.push(performance.now());
    // what the transport's onResponse does for each attempt
    if (metrics) metrics.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '200' }, (performance.now() - t) / 1000);
  };
  const client = stubOrdersClient(wire);
  const signer = createSigner({ privateKey: KEY, chain: TESTNET, pure: false });
  const venue = createLiveVenue({ client: { orders: client }, signer, ...(meter ? { onWrite: (m: string | null) => meter.write(m) } : {}) });
  const kernel: Mod = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, [M], {
    clock: systemClock,
    venue,
    store: new StateStore(),
    ...(meter
      ? {
          // the health model's strategy timing and the tick-to-wire meter, as the bot wires them
          timer: () => performance.now(),
          strategyBudgetMs: 50,
          onTickStart: (id: string, cause: string) => meter.tickStart(id, cause),
          onTick: (id: string) => meter.tickEnd(id, kernel.lastSync(id)),
        }
      : {}),
  });
  await kernel.orderManager.reconcile();
  let seq = 0;
  return {
    async tick() {
      written.length = 0;
      seq++;
      const mid = seq % 2 === 0 ? 530_000 : 500_000;
      const ev = bookSnapshot(M as Bytes32, mid, seq);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      if (meter) meter.bookEvent(M);
      kernel.onEvent(ev);
      await kernel.flush();
      const c = process.cpuUsage(c0);
      return { wall: (written[written.length - 1] ?? Number.NaN) - t0, cpu: (c.user + c.system) / 1000 };
    },
  };
}

const before = await pipeline(resolve(baseDir), false);
const after = await pipeline(here, true);
// the watchdog's heartbeat, as the bot runs it (process-wide: both sides pay it)
const beat = new Int32Array(new SharedArrayBuffer(4));
setInterval(() => Atomics.add(beat, 0, 1), 100).unref();

const WARM = 300;
const res = { before: { wall: [] as number[], cpu: [] as number[] }, after: { wall: [] as number[], cpu: [] as number[] } };
for (let i = 0; i < TICKS + WARM; i++) {
  // ABBA: neither side always runs first
  const order =
    i % 4 === 0 || i % 4 === 3
      ? ([
          ['before', before],
          ['after', after],
        ] as const)
      : ([
          ['after', after],
          ['before', before],
        ] as const);
  for (const [name, p] of order) {
    // book events arrive from I/O: the event loop turns between them
    await new Promise((r) => setImmediate(r));
    const r = await p.tick();
    if (i >= WARM) {
      res[name].wall.push(r.wall);
      res[name].cpu.push(r.cpu);
    }
  }
}
const stat = (xs: number[], q: number): number =>
  percentile(
    [...xs].filter(Number.isFinite).sort((a, b) => a - b),
    q,
  ) * 1000;
const r1 = (x: number): number => Math.round(x * 10) / 10;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const b50 = stat(res.before.wall, 0.5);
const a50 = stat(res.after.wall, 0.5);
const b99 = stat(res.before.wall, 0.99);
const a99 = stat(res.after.wall, 0.99);
const bc = stat(res.before.cpu, 0.5);
const ac = stat(res.after.cpu, 0.5);
const missing = (xs: number[]): number => xs.filter((x) => !Number.isFinite(x)).length;
report(
  [
    ['ticks per side (after 300 warm-up)', TICKS],
    ['ticks without a request before / after', `${missing(res.before.wall)} / ${missing(res.after.wall)}`],
    ['wall p50 before → after (µs)', `${r1(b50)} → ${r1(a50)}  ×${r3(a50 / b50)}`],
    ['wall p99 before → after (µs)', `${r1(b99)} → ${r1(a99)}  ×${r3(a99 / b99)}`],
    ['CPU per tick p50 before → after (µs)', `${r1(bc)} → ${r1(ac)}  ×${r3(ac / bc)}`],
  ],
  {
    name: 'health-cost-interleaved',
    unit: 'after/before, tick-to-wire p50 (one process, ticks interleaved)',
    value: r3(a50 / b50),
    p50: r1(a50),
    p99: r1(a99),
    baseline: 'code before the health model (--base), same process, interleaved tick by tick',
    baselineValue: r1(b50),
    ratio: r3(a50 / b50),
    p99Ratio: r3(a99 / b99),
    cpuP50Ratio: r3(ac / bc),
  },
);
process.exit(0);
