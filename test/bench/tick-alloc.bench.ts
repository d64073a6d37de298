/**
 * tick-alloc: the tick-to-wire bench's tick (a book event → 4 cancels + 4 signed creates serialised,
 * the bot's ledger on) counted rather than timed, so the figures survive a loaded machine: heap bytes
 * allocated per tick and per idle turn between ticks (used heap growth over ticks no GC fell in), GCs
 * that fell inside a tick, store reductions per tick, promises created per tick, and the wall p50/p99;
 * bytes and store reductions before the wire (up to the first request of the tick written).
 * `--base DIR`: the same tick from another checkout (with node_modules), in a child process each,
 * alternated round by round. Where the bytes go: one child with V8's sampling heap profiler on over
 * the measured ticks (garbage included), written as a .heapprofile (Chrome DevTools opens it):
 *
 *   npm run bench -- tick-alloc [--base DIR] [--rounds 3] [--ticks 2000]
 *   node --import tsx test/bench/tick-alloc.bench.ts --child . --heap-profile FILE
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { createHook } from 'node:async_hooks';
import v8 from 'node:v8';
import { inTree, percentile, report } from './lib.ts';
import { loadTickPipeline } from './quiet-markets.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const here = resolve(new URL('../..', import.meta.url).pathname);
const TICKS = Number(argOf('ticks') ?? 2000);
const ROUNDS = Number(argOf('rounds') ?? 3);
const child = argOf('child');

type Mod = any;
const load = (root: string, path: string): Promise<Mod> => import(pathToFileURL(resolve(root, inTree(root, path))).href);

interface Figures {
  gcs: number;
  allocBeforeWire: number;
  reducesBeforeWire: number;
  allocTick: number;
  allocIdle: number;
  gcTicks: number;
  reduces: number;
  promises: number;
  p50: number;
  p99: number;
  p99NoGc: number;
}

async function runChild(root: string): Promise<Figures> {
  const M = '0x' + 'ab'.repeat(32);
  const KEY = '0x' + '11'.repeat(32);
  const [
    { default: bands },
    { systemClock },
    { DEFAULT_RISK },
    { TESTNET },
    { createSigner },
    { createLiveVenue },
    { QuotingKernel },
    { StateStore },
    { createBotMetrics },
    { TickToWireMeter },
    { BotLedger },
    { silentLogger },
  ] = await Promise.all([
    ...(await loadTickPipeline(root)),
    load(root, 'src/metrics/bot-metrics.ts'),
    load(root, 'src/kernel/tick-to-wire.ts'),
    load(root, 'src/ledger/bot-ledger.ts'),
    load(root, 'src/core/logger.ts'),
  ]);
  const { stubOrdersClient, bookSnapshot } = await import(pathToFileURL(resolve(here, 'test/support/stub-orders-client.ts')).href);
  const { benchKernel } = await import(pathToFileURL(resolve(here, 'test/support/quoting.ts')).href);
  const metrics = createBotMetrics();
  const beat = new Int32Array(new SharedArrayBuffer(4));
  setInterval(() => Atomics.add(beat, 0, 1), 100).unref();
  const work = mkdtempSync(joinPath(tmpdir(), 'bookmaker-talloc-'));
  const written: number[] = [];
  const signer = createSigner({ privateKey: KEY, chain: TESTNET });
  const meter = new TickToWireMeter({ tickToWire: (s: number) => metrics.tickToWire.observe(s), throttle: (s: number) => metrics.requoteThrottle.observe(s) });
  // the store reductions and heap bytes of the tick so far, noted when the first request is written
  let wireReduces = 0;
  let wireHeap = 0;
  let firstWrite = true;
  const client = stubOrdersClient((body: unknown) => {
    if (firstWrite) {
      firstWrite = false;
      wireReduces = reduces;
      wireHeap = v8.getHeapStatistics().used_heap_size;
    }
    const t = performance.now();
    JSON.stringify(body);
    written.push(performance.now());
    metrics.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '200' }, (performance.now() - t) / 1000);
  });
  const venue = createLiveVenue({ client: { orders: client }, signer, onWrite: (m: string) => meter.write(m) });
  const ledger = await BotLedger.open({
    config: { file: '', venue: { kind: 'url' }, ledger: { path: joinPath(work, 'l.sqlite'), flushMs: 200, markMs: 10_000 }, markets: [] },
    clock: systemClock,
    logger: silentLogger,
    trader: signer.address,
    venue: 'bench',
    chain: 'testnet',
    client: { orders: { async *iterate() {} } },
    embedded: false,
    markets: 1,
    paper: false,
  });
  const store = new StateStore();
  let reduces = 0;
  const d1 = store.dispatch.bind(store);
  const dAll = store.dispatchAll.bind(store);
  store.dispatch = (e: unknown) => (reduces++, d1(e));
  store.dispatchAll = (es: unknown[]) => ((reduces += es.length), dAll(es));
  const kernel: Mod = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, [M], {
    clock: systemClock,
    venue,
    store,
    timer: () => performance.now(),
    strategyBudgetMs: 50,
    onTickStart: (id: string, cause: unknown) => meter.tickStart(id, cause),
    onTick: (id: string) => meter.tickEnd(id, kernel.lastSync(id)),
    onOrderEvent: (e: unknown) => ledger.onEvent(e),
  });
  await kernel.orderManager.reconcile();
  const gcs: [number, number][] = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  }).observe({ entryTypes: ['gc'] });
  let promises = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) });
  const heap = (): number => v8.getHeapStatistics().used_heap_size;
  const n = TICKS + 500;
  const lat = new Float64Array(n),
    t0s = new Float64Array(n),
    t1s = new Float64Array(n),
    aTick = new Float64Array(n),
    aIdle = new Float64Array(n),
    red = new Float64Array(n),
    prom = new Float64Array(n);
  const redWire = new Float64Array(n),
    aWire = new Float64Array(n);
  let hEnd = heap();
  const prof = argOf('heap-profile');
  const session = prof !== undefined ? new (await import('node:inspector')).Session() : null;
  const post = (m: string, p?: object): Promise<any> => new Promise((ok, no) => session!.post(m, p ?? {}, (e, r) => (e ? no(e) : ok(r))));
  for (let i = 0; i < n; i++) {
    if (session && i === 500) {
      session.connect();
      await post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    await new Promise((r) => setImmediate(r));
    // promises counted on a quarter of the ticks only (the hook costs time)
    const counting = i % 4 === 3;
    if (counting) hook.enable();
    written.length = 0;
    firstWrite = true;
    const mid = i % 2 === 0 ? 530_000 : 500_000;
    const r0 = reduces,
      p0 = promises;
    const h0 = heap();
    aIdle[i] = h0 - hEnd;
    const t0 = performance.now();
    meter.bookEvent(M);
    kernel.onEvent(bookSnapshot(M, mid, i + 1));
    await kernel.flush();
    const t1 = performance.now();
    hEnd = heap();
    if (counting) hook.disable();
    lat[i] = (written[written.length - 1] ?? NaN) - t0;
    t0s[i] = t0;
    t1s[i] = t1;
    aTick[i] = hEnd - h0;
    red[i] = reduces - r0;
    redWire[i] = wireReduces - r0;
    aWire[i] = wireHeap - h0;
    prom[i] = counting ? promises - p0 : NaN;
  }
  if (session) {
    const { profile } = await post('HeapProfiler.stopSampling');
    (await import('node:fs')).writeFileSync(prof!, JSON.stringify(profile));
  }
  await new Promise((r) => setTimeout(r, 50));
  kernel.stop();
  ledger.close();
  rmSync(work, { recursive: true, force: true });
  // figures over the ticks after the warm-up; allocation only from ticks (turns) no GC fell in
  const med = (xs: number[]): number =>
    percentile(
      xs.sort((a, b) => a - b),
      0.5,
    );
  const wireA: number[] = [],
    wireR: number[] = [];
  const ticksA: number[] = [],
    idleA: number[] = [],
    ls: number[] = [],
    lsNoGc: number[] = [],
    rs: number[] = [],
    ps: number[] = [];
  let gcTicks = 0;
  let g = 0;
  for (let i = 500; i < n; i++) {
    while (g < gcs.length && gcs[g]![1] < t0s[i]!) g++;
    const gcIn = g < gcs.length && gcs[g]![0] <= t1s[i]!;
    if (gcIn) gcTicks++;
    if (!gcIn && aTick[i]! >= 0) ticksA.push(aTick[i]!);
    if (!gcIn && aWire[i]! >= 0) wireA.push(aWire[i]!);
    wireR.push(redWire[i]!);
    if (aIdle[i]! >= 0) idleA.push(aIdle[i]!);
    ls.push(lat[i]!);
    if (!gcIn) lsNoGc.push(lat[i]!);
    rs.push(red[i]!);
    if (!Number.isNaN(prom[i]!)) ps.push(prom[i]!);
  }
  const gcAfter = gcs.filter((x) => x[0] >= t0s[500]!).length;
  return {
    gcs: gcAfter,
    allocTick: med(ticksA),
    allocBeforeWire: med(wireA),
    reducesBeforeWire: med(wireR),
    allocIdle: med(idleA),
    gcTicks,
    reduces: med(rs),
    promises: med(ps),
    p50: med(ls.slice()) * 1000,
    p99:
      percentile(
        ls.sort((a, b) => a - b),
        0.99,
      ) * 1000,
    p99NoGc:
      percentile(
        lsNoGc.sort((a, b) => a - b),
        0.99,
      ) * 1000,
  };
}

if (child !== undefined) {
  process.stdout.write(JSON.stringify(await runChild(child)) + '\n');
  process.exit(0);
}

const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, 'src'))) {
  process.stderr.write('tick-alloc: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const sides: [string, string][] = [['this', here], ...(baseDir ? ([['base', resolve(baseDir)]] as [string, string][]) : [])];
const results: Record<string, Figures[]> = { this: [], base: [] };
const self = new URL(import.meta.url).pathname;
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, root] of r % 2 === 0 ? sides : [...sides].reverse()) {
    const out = execFileSync(process.execPath, [...process.execArgv, self, '--child', root, '--ticks', String(TICKS)], { cwd: root, encoding: 'utf8' });
    const f = JSON.parse(out.trim().split('\n').pop()!) as Figures;
    results[name]!.push(f);
    process.stderr.write(`${name} ${JSON.stringify(f)}\n`);
  }
}
const medOf = (fs: Figures[], k: keyof Figures): number =>
  percentile(
    fs.map((f) => f[k]).sort((a, b) => a - b),
    0.5,
  );
const rows: [string, string | number][] = [];
for (const k of [
  'allocTick',
  'allocBeforeWire',
  'allocIdle',
  'gcTicks',
  'reduces',
  'reducesBeforeWire',
  'promises',
  'p50',
  'p99',
  'p99NoGc',
] as (keyof Figures)[]) {
  rows.push([`${k} (this)`, medOf(results.this!, k)]);
  if (baseDir) rows.push([`${k} (base)`, medOf(results.base!, k)]);
}
const a = medOf(results.this!, 'allocTick');
const b = baseDir ? medOf(results.base!, 'allocTick') : undefined;
report(rows, {
  name: 'tick-alloc',
  unit: 'bytes allocated per tick',
  value: a,
  ...(b !== undefined ? { baseline: baseDir, baselineValue: b, ratio: Math.round((b / a) * 100) / 100 } : {}),
});
