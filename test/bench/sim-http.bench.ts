/**
 * sim-http: sustained signed create + cancel over loopback HTTP against the local exchange, with
 * EIP-712 signature verification on every request (orders and cancels). Server and client share
 * this one process (one core), so the figure includes the client's HTTP cost too.
 *
 * Orders and cancels are signed before the timed loop. Keep-alive connections (undici Pool),
 * `CONCURRENCY` workers each doing create → cancel. An "order" below = one create plus its cancel.
 * Two shapes: bulk (POST /orders/bulk/create then /orders/bulk/cancel, 50 per call: how the order
 * manager trades, design.md §2; the headline figure) and single requests (POST /orders then
 * POST /orders/cancel per order).
 *
 * The headline value is per CPU-second of this process (user + system), i.e. the rate on one
 * dedicated core: the machines here are shared (load averages of 10–20 on 2 vCPUs are common), so
 * wall-clock rates mostly measure the neighbours. Wall-clock rates are printed and kept in the JSON.
 *
 * Baseline (same run, same loop): the server verifying with the pure-JS crypto path
 * (@noble/curves + @noble/hashes, what viem uses), selected with BOOKMAKER_PURE_JS=1.
 */
import { Pool } from 'undici';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { CancelBody, LimitOrderBody } from '../../src/model/order.ts';
import { percentile, report } from './lib.ts';

const SECONDS = Number(process.env.SIM_HTTP_SECONDS ?? 4);
const CONCURRENCY = 16;

async function round(pureJs: boolean, seconds: number, n: number, batch: number): Promise<{ ordersPerSec: number; ordersPerCpuSec: number; p50: number; p99: number; failures: number }> {
  if (pureJs) process.env.BOOKMAKER_PURE_JS = '1';
  else delete process.env.BOOKMAKER_PURE_JS;
  const ex = createLocalExchange({
    seed: 5,
    apiKeys: [{ key: 'bench-key' }],
    rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
    initialCollateral: 1_000_000_000_000n,
    expirySweepMs: 0,
  });
  const base = await ex.start(0);
  const rec = ex.state.keys.get('bench-key')!;
  const signer = createSigner({ privateKey: rec.privateKey!, chain: TESTNET });
  const marketIds = [...ex.state.stores.markets.values()].map((m) => m.id);
  // pre-sign outside the timed loop (signing uses the fast path regardless of the server's choice)
  delete process.env.BOOKMAKER_PURE_JS;
  const work: { order: string; cancel: string }[] = [];
  for (let i = 0; i < n; i += batch) {
    const orders: LimitOrderBody[] = [];
    const cancels: CancelBody[] = [];
    for (let j = 0; j < batch; j++) {
      const body = signer.signOrder({ marketId: marketIds[(i + j) % marketIds.length]!, outcomeIndex: 1, side: 0, price: 10_000 * (1 + ((i + j) % 30)), size: 1_000_000 });
      orders.push(body);
      cancels.push(signer.signCancel(body.nonce));
    }
    work.push(
      batch === 1
        ? { order: JSON.stringify(orders[0]), cancel: JSON.stringify(cancels[0]) }
        : { order: JSON.stringify({ orders }), cancel: JSON.stringify({ cancels }) },
    );
  }
  const createPath = batch === 1 ? '/orders' : '/orders/bulk/create';
  const cancelPath = batch === 1 ? '/orders/cancel' : '/orders/bulk/cancel';
  const cancelOk = batch === 1 ? 201 : 200;
  if (pureJs) process.env.BOOKMAKER_PURE_JS = '1';
  const url = new URL(base);
  const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { authorization: 'Bearer bench-key', 'content-type': 'application/json' };
  const post = async (path: string, body: string): Promise<number> => {
    const r = await pool.request({ method: 'POST', path: url.pathname + path, headers, body });
    await r.body.text();
    return r.statusCode;
  };
  let next = 0;
  let done = 0;
  let failures = 0;
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && next < work.length) {
      const w = work[next++]!;
      const s = performance.now();
      const a = await post(createPath, w.order);
      const b = await post(cancelPath, w.cancel);
      latencies.push(performance.now() - s);
      if (a !== 201 || b !== cancelOk) failures++;
      done += batch;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await pool.close();
  await ex.close();
  delete process.env.BOOKMAKER_PURE_JS;
  latencies.sort((x, y) => x - y);
  return { ordersPerSec: done / elapsed, ordersPerCpuSec: done / cpuSeconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failures };
}

// warm-up (JIT, connection set-up), then measured rounds: fast path and the pure-JS baseline
await round(false, 1, 2000, 50);
const fast = await round(false, SECONDS, 40_000, 50);
const single = await round(false, SECONDS, 20_000, 1);
const pure = await round(true, SECONDS, 20_000, 50);

report(
  [
    ['bulk (50/call): orders per CPU-second (one core), native verify', fast.ordersPerCpuSec],
    ['  wall-clock orders/s', fast.ordersPerSec],
    ['  batch pair latency p50 ms', fast.p50],
    ['  batch pair latency p99 ms', fast.p99],
    ['  failed calls', fast.failures],
    ['single requests: orders per CPU-second', single.ordersPerCpuSec],
    ['  wall-clock orders/s', single.ordersPerSec],
    ['  HTTP requests/s', single.ordersPerSec * 2],
    ['  pair latency p50 ms', single.p50],
    ['  failed pairs', single.failures],
    ['baseline, bulk, pure-JS verify: orders per CPU-second', pure.ordersPerCpuSec],
    ['  wall-clock orders/s', pure.ordersPerSec],
    ['  failed calls', pure.failures],
    ['concurrency (keep-alive connections)', CONCURRENCY],
  ],
  {
    name: 'sim-http',
    unit: 'orders per CPU-second (signed create + cancel via bulk calls of 50, verified, loopback HTTP, one process)',
    singleRequestOrdersPerSec: Math.round(single.ordersPerSec),
    value: Math.round(fast.ordersPerCpuSec),
    wallOrdersPerSec: Math.round(fast.ordersPerSec),
    singleRequestOrdersPerCpuSec: Math.round(single.ordersPerCpuSec),
    baseline: 'same bulk loop, server verifying with pure-JS crypto (noble, as viem)',
    baselineValue: Math.round(pure.ordersPerCpuSec),
    ratio: Math.round((fast.ordersPerCpuSec / pure.ordersPerCpuSec) * 100) / 100,
    p50: Math.round(fast.p50 * 100) / 100,
    p99: Math.round(fast.p99 * 100) / 100,
  },
);
