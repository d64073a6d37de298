/**
 * tick-to-wire: a book event into the quoting kernel → the signed request for a 4-order requote
 * serialised for the wire. The whole live path runs: store reduce, MarketView, bands strategy (2
 * bands a side), risk gate, to-orders, order-manager diff and call plan, live venue signing (native
 * keccak + libsecp256k1) and JSON.stringify of the request body; the HTTP client is replaced by a stub
 * that records the time each request body is ready and answers at once. Each tick moves the book by
 * 3¢ so all four quotes move. Latency = event in → the last request of that tick serialised.
 * Order signatures use ECDSA nonces computed ahead in the idle turns between ticks, as the live venue
 * does (docs/performance.md#signing-ahead); a second run signs every order with RFC 6979 instead.
 * Baseline: the same pipeline with the pure-JS signer (noble secp256k1, what viem uses), RFC 6979.
 * Instrumented as the bot runs it: the bot's metrics registry (default process/Node.js
 * metrics on), the tick-to-wire meter on the kernel's onTickStart/onTick and the venue's onWrite,
 * every request observed in bookmaker_api_latency_seconds as the transport does, and the watchdog's
 * heartbeat timer bumping a SharedArrayBuffer counter every 100 ms, the health model's strategy
 * timing (timer + 50 ms budget), and the bot's ledger: every order-manager event recorded into a file
 * ledger (WAL) by BotLedger.onEvent after the store has it, its writer flushing on the real clock.
 * The CPU-time rows are the process's CPU over the tick (process.cpuUsage): every thread's, V8's
 * compiler and GC helpers included, which Linux adds up in lumps, so a single tick's figure can
 * exceed its wall time; the wall p99 is the tail (docs/performance.md#where-the-tail-comes-from).
 *
 *   npm run bench -- tick-to-wire [--ticks N]
 */
import bands from '../../strategies/bands/index.ts';
import { systemClock } from '../../src/core/clock.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { createLiveVenue, type LiveOrdersClient } from '../../src/runtime/live-venue.ts';
import { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import { StateStore } from '../../src/state/store.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { TickToWireMeter } from '../../src/kernel/tick-to-wire.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { openBotLedger } from '../support/bot-ledger.ts';
import type { Address } from '../../src/model/order.ts';

const metrics = createBotMetrics();
const beat = new Int32Array(new SharedArrayBuffer(4));
setInterval(() => Atomics.add(beat, 0, 1), 100).unref();
import { percentile, report } from './lib.ts';
import { bookSnapshot, stubOrdersClient } from '../support/stub-orders-client.ts';
import { benchKernel } from '../support/quoting.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const TICKS = arg('ticks', 4000);
const work = mkdtempSync(joinPath(tmpdir(), 'bookmaker-ttw-'));
let ledgers = 0;
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const KEY = '0x' + '11'.repeat(32);

/** The HTTP client's seam: serialise the body (what the transport writes), note the time, answer. */
function stubClient(written: number[]): LiveOrdersClient {
  return stubOrdersClient((body) => {
    const t = performance.now();
    JSON.stringify(body);
    written.push(performance.now());
    // what the transport's onResponse does for each attempt
    metrics.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '200' }, (performance.now() - t) / 1000);
  });
}

async function measure(
  pure: boolean,
  ticks: number,
  aheadNonces = 64,
): Promise<{ lat: Float64Array; cpu: Float64Array; calls: number; orders: number; cpuPerTick: number; ledgerWrites: number }> {
  const written: number[] = [];
  const signer = createSigner({ privateKey: KEY, chain: TESTNET, pure });
  const meter = new TickToWireMeter({ tickToWire: (sec) => metrics.tickToWire.observe(sec), throttle: (sec) => metrics.requoteThrottle.observe(sec) });
  const venue = createLiveVenue({ client: { orders: stubClient(written) }, signer, onWrite: (m) => meter.write(m), aheadNonces });
  // the bot's ledger, in a file as `bookmaker run` keeps it (see test/support/bot-ledger.ts)
  const ledger = await openBotLedger({
    path: joinPath(work, `ttw-${ledgers++}.sqlite`),
    clock: systemClock,
    trader: signer.address as Address,
    venue: 'bench',
  });
  const kernel: QuotingKernel = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, [M], {
    clock: systemClock,
    venue,
    store: new StateStore(),
    // the health model's strategy timing, as the bot wires it
    timer: () => performance.now(),
    strategyBudgetMs: 50,
    onTickStart: (id, cause) => meter.tickStart(id, cause),
    onTick: (id) => meter.tickEnd(id, kernel.lastSync(id)),
    // as the bot routes them: into the store first (the kernel), then the ledger
    onOrderEvent: (e) => ledger.onEvent(e),
  });
  await kernel.orderManager.reconcile();
  const lat = new Float64Array(ticks);
  const cpu = new Float64Array(ticks);
  let calls = 0;
  let ledgerWrites = 0;
  const all0 = process.cpuUsage();
  for (let i = 0; i < ticks; i++) {
    // book events arrive from I/O: the event loop turns between them (idle work such as cancel pre-signing runs here)
    await new Promise((r) => setImmediate(r));
    written.length = 0;
    const mid = i % 2 === 0 ? 530_000 : 500_000;
    const b0 = ledger.ledger.batches;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    meter.bookEvent(M);
    kernel.onEvent(bookSnapshot(M, mid, i + 1));
    await kernel.flush();
    const c = process.cpuUsage(c0);
    // a ledger transaction written inside the tick (the writer's own turns are between ticks)
    if (ledger.ledger.batches !== b0) ledgerWrites++;
    lat[i] = (written[written.length - 1] ?? Number.NaN) - t0;
    cpu[i] = (c.user + c.system) / 1000;
    calls += written.length;
  }
  const all = process.cpuUsage(all0);
  kernel.stop();
  ledger.close();
  const orders = kernel.orderManager.tracked().length;
  // the whole loop's CPU, idle turns included (the nonces computed ahead are paid there)
  return { lat, cpu, calls, orders, cpuPerTick: (all.user + all.system) / 1000 / ticks, ledgerWrites };
}

const us = (ms: number): number => Math.round(ms * 1000 * 10) / 10;
function stats(lat: Float64Array): { p50: number; p99: number; p999: number; max: number; missing: number } {
  const ok = [...lat].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return { p50: percentile(ok, 0.5), p99: percentile(ok, 0.99), p999: percentile(ok, 0.999), max: ok[ok.length - 1]!, missing: lat.length - ok.length };
}

await measure(false, 300); // warm-up (JIT, native module load)
await measure(false, 300, 0);
await measure(true, 100, 0);
// nonces ahead and RFC 6979 alternate, half the ticks at a time, so machine noise falls on both alike
type Run = Awaited<ReturnType<typeof measure>>;
const join = (a: Run, b: Run): Run => ({
  lat: Float64Array.from([...a.lat, ...b.lat]),
  cpu: Float64Array.from([...a.cpu, ...b.cpu]),
  calls: a.calls + b.calls,
  orders: b.orders,
  cpuPerTick: (a.cpuPerTick * a.lat.length + b.cpuPerTick * b.lat.length) / (a.lat.length + b.lat.length),
  ledgerWrites: a.ledgerWrites + b.ledgerWrites,
});
const half = Math.max(250, Math.floor(TICKS / 4));
const n1 = await measure(false, TICKS - (TICKS >> 1));
const r1 = await measure(false, half, 0);
const n2 = await measure(false, TICKS >> 1);
const r2 = await measure(false, half, 0);
const native = join(n1, n2);
const rfc = join(r1, r2);
const pureJs = await measure(true, Math.max(500, Math.floor(TICKS / 4)), 0);
const n = stats(native.lat);
const p = stats(pureJs.lat);
const nc = stats(native.cpu);
const pc = stats(pureJs.cpu);
const r6979 = stats(rfc.lat);
report(
  [
    ['ticks (native)', TICKS],
    ['venue calls per tick', native.calls / TICKS],
    ['ticks (native, RFC 6979)', rfc.lat.length],
    ['orders resting after the run', native.orders],
    ['ticks without a request', n.missing],
    ['native p50 µs', us(n.p50)],
    ['native p99 µs', us(n.p99)],
    ['native max µs', us(n.max)],
    ['native process CPU-time p50 µs (all threads)', us(nc.p50)],
    ['native process CPU-time p99 µs (all threads)', us(nc.p99)],
    ['native p99.9 µs', us(n.p999)],
    ['native ticks with a ledger write inside', native.ledgerWrites],
    ['native CPU per tick, idle turns included, µs', us(native.cpuPerTick)],
    ['native, every order RFC 6979 (aheadNonces 0): p50 µs', us(r6979.p50)],
    ['native, every order RFC 6979: p99 µs', us(r6979.p99)],
    ['native, every order RFC 6979: CPU per tick, idle included, µs', us(rfc.cpuPerTick)],
    ['pure-JS CPU-time p50 µs', us(pc.p50)],
    ['pure-JS p50 µs (baseline)', us(p.p50)],
    ['pure-JS p99 µs (baseline)', us(p.p99)],
  ],
  {
    name: 'tick-to-wire',
    unit: 'µs p99 (wall)',
    value: us(n.p99),
    p50: us(n.p50),
    p99: us(n.p99),
    p999: us(n.p999),
    max: us(n.max),
    ledgerWritesInTicks: native.ledgerWrites,
    cpuP50: us(nc.p50),
    cpuP99: us(nc.p99),
    rfc6979P50: us(r6979.p50),
    baseline: 'same pipeline, pure-JS signer (noble, RFC 6979), p50',
    baselineValue: us(p.p50),
    ratio: Math.round((p.p50 / n.p50) * 100) / 100,
  },
);
