/**
 * tick-to-wire: a book event into the quoting kernel → the signed request for a 4-order requote
 * serialised for the wire. The whole live path runs: store reduce, MarketView, bands strategy (2
 * bands a side), risk gate, to-orders, order-manager diff and call plan, live venue signing (native
 * keccak + libsecp256k1) and JSON.stringify of the request body; the HTTP client is replaced by a stub
 * that records the time each request body is ready and answers at once. Each tick moves the book by
 * 3¢ so all four quotes move. Latency = event in → the last request of that tick serialised.
 * Baseline: the same pipeline with the pure-JS signer (noble secp256k1, what viem uses).
 * Instrumented as the bot runs it (issue 11): the bot's metrics registry (default process/Node.js
 * metrics on), the tick-to-wire meter on the kernel's onTickStart/onTick and the venue's onWrite,
 * every request observed in bookmaker_api_latency_seconds as the transport does, and the watchdog's
 * heartbeat timer bumping a SharedArrayBuffer counter every 100 ms, and the health model's strategy
 * timing (timer + 50 ms budget).
 *
 *   npm run bench -- tick-to-wire [--ticks N]
 */
import bands from '../../strategies/bands/index.ts';
import { systemClock } from '../../src/core/clock.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { BulkOperation, BulkResult } from '../../src/exchange/client/orders-write.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import type { Bytes32, CancelBody, CreateOrderBody, LimitOrderBody, VenueOrder } from '../../src/model/order.ts';
import { createLiveVenue, type LiveOrdersClient } from '../../src/runtime/live-venue.ts';
import { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { TickToWireMeter } from '../../src/kernel/tick-to-wire.ts';

const metrics = createBotMetrics();
const beat = new Int32Array(new SharedArrayBuffer(4));
setInterval(() => Atomics.add(beat, 0, 1), 100).unref();
import { percentile, report } from './lib.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const TICKS = arg('ticks', 4000);
const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const KEY = '0x' + '11'.repeat(32);

function orderOf(body: LimitOrderBody | CreateOrderBody): VenueOrder {
  const b = body as LimitOrderBody;
  return {
    marketId: b.marketId, trader: b.trader, nonce: b.nonce, side: b.side as 0 | 1, outcomeIndex: b.outcomeIndex as 0 | 1, price: Number(b.price), size: Number(b.size),
    filledSize: 0, remainingSize: Number(b.size), percentFilled: 0, type: 'limit', status: 'open', voidReason: null, insertedAt: '', expiry: Number(b.expiry),
    settlementVersion: 2, sv2OrderKind: b.side === 0 ? 0 : 1, sv2TimeInForce: 0, sv2MinSharesOut: null, sv2MaxCollateralIn: null, sv2MinCollateralOut: null,
  };
}

/** The HTTP client's seam: serialise the body (what the transport writes), note the time, answer. */
function stubClient(written: number[]): LiveOrdersClient {
  const wire = (body: unknown): void => {
    const t = performance.now();
    JSON.stringify(body);
    written.push(performance.now());
    // what the transport's onResponse does for each attempt
    metrics.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '200' }, (performance.now() - t) / 1000);
  };
  const creates = (bs: LimitOrderBody[]) => bs.map((b) => ({ type: 'create' as const, ok: true as const, order: orderOf(b) }));
  const cancels = (cs: CancelBody[]) => cs.map((c) => ({ type: 'cancel' as const, ok: true as const, trader: c.trader, nonce: c.nonce, alreadyCancelled: false }));
  return {
    async bulk(ops: BulkOperation[]): Promise<BulkResult> {
      wire({ operations: ops });
      const r = ops.map((o) => (o.type === 'create' ? creates([o.order as LimitOrderBody])[0]! : cancels([o.cancel])[0]!));
      return { results: r, duplicate: false };
    },
    async bulkCreate(orders) {
      wire({ orders });
      return { results: orders.map((b: LimitOrderBody | CreateOrderBody) => ({ type: 'create' as const, ok: true as const, order: orderOf(b) })), duplicate: false };
    },
    async bulkCancel(cs) {
      wire({ cancels: cs });
      return { results: cancels(cs), duplicate: false };
    },
    async create(body) {
      wire(body);
      return { nonce: body.nonce, order: orderOf(body), duplicate: false };
    },
    async cancelReplace(cancel, create) {
      wire({ cancel, create });
      return { cancel: { trader: cancel.trader, nonce: cancel.nonce, alreadyCancelled: false }, create: { nonce: create.nonce, order: orderOf(create), duplicate: false } };
    },
    // eslint-disable-next-line require-yield
    async *iterate() {
      return;
    },
  };
}

function book(mid: number, seq: number): StateEvent {
  const now = systemClock.now();
  return {
    type: 'BookEventReceived',
    event: {
      type: 'snapshot',
      book: { marketId: M, outcomeIndex: 1, bids: [{ price: mid - 10_000, size: 500_000_000 }, { price: mid - 20_000, size: 500_000_000 }], asks: [{ price: mid + 10_000, size: 500_000_000 }, { price: mid + 20_000, size: 500_000_000 }], venueTs: now, seq },
      seq,
      localTs: now,
      source: 'stream',
    },
    ts: now,
  };
}

async function measure(pure: boolean, ticks: number): Promise<{ lat: Float64Array; cpu: Float64Array; calls: number; orders: number }> {
  const written: number[] = [];
  const signer = createSigner({ privateKey: KEY, chain: TESTNET, pure });
  const meter = new TickToWireMeter({ tickToWire: (sec) => metrics.tickToWire.observe(sec), throttle: (sec) => metrics.requoteThrottle.observe(sec) });
  const venue = createLiveVenue({ client: { orders: stubClient(written) }, signer, onWrite: (m) => meter.write(m) });
  const params = bands.parseConfig({ fair: 'mid', bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }, { minMargin: 0.03, targetMargin: 0.05, maxMargin: 0.07, size: 20 }] }, 'bench');
  const risk = { ...DEFAULT_RISK, maxPosition: 1e12, maxNotional: 1e12, maxOrderSize: 1e12, maxBookAgeMs: 1e9, maxStreamSilenceMs: 1e9, orderRate: { capacity: 1e12, refillPerSecond: 1e12 } };
  const kernel: QuotingKernel = new QuotingKernel({
    clock: systemClock,
    venue,
    store: new StateStore(),
    markets: [{ marketId: M, strategy: bands, params, risk }],
    requoteIntervalMs: 0,
    housekeepingMs: 0,
    // the health model's strategy timing, as the bot wires it
    timer: () => performance.now(),
    strategyBudgetMs: 50,
    onTickStart: (id, cause) => meter.tickStart(id, cause),
    onTick: (id) => meter.tickEnd(id, kernel.lastSync(id)),
  });
  await kernel.orderManager.reconcile();
  const lat = new Float64Array(ticks);
  const cpu = new Float64Array(ticks);
  let calls = 0;
  for (let i = 0; i < ticks; i++) {
    // book events arrive from I/O: the event loop turns between them (idle work such as cancel pre-signing runs here)
    await new Promise((r) => setImmediate(r));
    written.length = 0;
    const mid = i % 2 === 0 ? 530_000 : 500_000;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    meter.bookEvent(M);
    kernel.onEvent(book(mid, i + 1));
    await kernel.flush();
    const c = process.cpuUsage(c0);
    lat[i] = (written[written.length - 1] ?? Number.NaN) - t0;
    cpu[i] = (c.user + c.system) / 1000;
    calls += written.length;
  }
  kernel.stop();
  const orders = kernel.orderManager.tracked().length;
  return { lat, cpu, calls, orders };
}

const us = (ms: number): number => Math.round(ms * 1000 * 10) / 10;
function stats(lat: Float64Array): { p50: number; p99: number; max: number; missing: number } {
  const ok = [...lat].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return { p50: percentile(ok, 0.5), p99: percentile(ok, 0.99), max: ok[ok.length - 1]!, missing: lat.length - ok.length };
}

await measure(false, 300); // warm-up (JIT, native module load)
await measure(true, 100);
const native = await measure(false, TICKS);
const pureJs = await measure(true, Math.max(500, Math.floor(TICKS / 4)));
const n = stats(native.lat);
const p = stats(pureJs.lat);
const nc = stats(native.cpu);
const pc = stats(pureJs.cpu);
report(
  [
    ['ticks (native)', TICKS],
    ['venue calls per tick', native.calls / TICKS],
    ['orders resting after the run', native.orders],
    ['ticks without a request', n.missing],
    ['native p50 µs', us(n.p50)],
    ['native p99 µs', us(n.p99)],
    ['native max µs', us(n.max)],
    ['native CPU-time p50 µs', us(nc.p50)],
    ['native CPU-time p99 µs', us(nc.p99)],
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
    cpuP50: us(nc.p50),
    cpuP99: us(nc.p99),
    baseline: 'same pipeline, pure-JS signer (noble), p50',
    baselineValue: us(p.p50),
    ratio: Math.round((p.p50 / n.p50) * 100) / 100,
  },
);
