/**
 * sim-http: sustained signed create + cancel over loopback HTTP against the local exchange, with
 * EIP-712 signature verification on every request (orders and cancels).
 *
 * The exchange runs in its own process (this file, forked with SIM_HTTP_ROLE=server), so its CPU
 * time is measured apart from the client's: the headline is orders per CPU-second of the server
 * process, i.e. the rate on one dedicated core. The machines here are shared (load averages of 10–20
 * on 2 vCPUs are common), so wall-clock rates mostly measure the neighbours; they are printed and
 * kept in the JSON too.
 *
 * Orders and cancels are signed before the timed loop. Keep-alive connections (undici Pool),
 * `CONCURRENCY` workers each doing create → cancel. An "order" = one create plus its cancel.
 * Two shapes: bulk (POST /orders/bulk/create then /orders/bulk/cancel, 50 per call: how the order
 * manager trades, docs/architecture.md#the-pipeline; the headline) and single requests (POST /orders then
 * POST /orders/cancel per order; p50/p99 are its create+cancel latencies).
 *
 * Each shape runs ROUNDS times (default 3), interleaved with the others, and its best round counts.
 * Each round starts a fresh server and drives it for SIM_HTTP_WARMUP_SECONDS (default 1) with the
 * same traffic before the clock starts: the figure is the sustained rate, not the first second of
 * unoptimised code. SIM_HTTP_SHAPES=single (or bulk, pure) runs only those shapes, e.g. to profile.
 *
 * Baseline (same run, same bulk loop): the server verifying through the pure-JS crypto path
 * (@noble/curves + @noble/hashes, what viem uses; BOOKMAKER_PURE_JS=1), i.e. a viem-based server.
 *
 * Journal: the single and bulk shapes also run with `--state` on (every change written
 * and fdatasynced to the journal before its answer, group commit), interleaved with the same shapes
 * without it; the JSON carries both and their ratio (target: ≥ 2,000 orders/s journalled and
 * ≥ 70 % of the unjournalled rate).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { Bytes32, CancelBody, LimitOrderBody } from '../../src/model/order.ts';
import { percentile, report } from './lib.ts';

const SECONDS = Number(process.env.SIM_HTTP_SECONDS ?? 3);
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.SIM_HTTP_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.SIM_HTTP_WARMUP_SECONDS ?? 1);

type ServerMsg = { type: 'ready'; baseUrl: string; privateKey: string; marketIds: Bytes32[] } | { type: 'cpu'; micros: number };

async function serve(): Promise<void> {
  const ex = createLocalExchange({
    seed: 5,
    apiKeys: [{ key: 'bench-key' }],
    rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
    initialCollateral: 1_000_000_000_000n,
    expirySweepMs: 0,
    ...(process.env.SIM_HTTP_JOURNAL_DIR ? { stateFile: join(process.env.SIM_HTTP_JOURNAL_DIR, 'state') } : {}),
  });
  const baseUrl = await ex.start(0);
  const send = (m: ServerMsg): void => void process.send!(m);
  send({ type: 'ready', baseUrl, privateKey: ex.state.keys.get('bench-key')!.privateKey!, marketIds: [...ex.state.stores.markets.values()].map((m) => m.id) });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      send({ type: 'cpu', micros: u.user + u.system });
    } else if (m.type === 'stop') void ex.close().then(() => process.exit(0));
  });
}

function request(child: ChildProcess, msg: { type: string }, want: ServerMsg['type']): Promise<ServerMsg> {
  return new Promise((resolve, reject) => {
    const on = (m: ServerMsg): void => {
      if (m.type !== want) return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    if (msg.type !== 'none') child.send(msg);
  });
}

interface Round {
  ordersPerSec: number;
  ordersPerServerCpuSec: number;
  p50: number;
  p99: number;
  failures: number;
}

async function round(pureJs: boolean, seconds: number, n: number, batch: number, journal = false): Promise<Round> {
  const env = { ...process.env, SIM_HTTP_ROLE: 'server' } as NodeJS.ProcessEnv;
  const journalDir = journal ? mkdtempSync(join(tmpdir(), 'sim-http-journal-')) : undefined;
  if (journalDir) env.SIM_HTTP_JOURNAL_DIR = journalDir;
  else delete env.SIM_HTTP_JOURNAL_DIR;
  if (pureJs) env.BOOKMAKER_PURE_JS = '1';
  else delete env.BOOKMAKER_PURE_JS;
  const child = fork(fileURLToPath(import.meta.url), [], {
    env,
    execArgv: process.env.SIM_HTTP_PROF
      ? ['--cpu-prof', '--cpu-prof-interval=200', '--cpu-prof-dir=' + process.env.SIM_HTTP_PROF, '--import', 'tsx']
      : ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = (await request(child, { type: 'none' }, 'ready')) as Extract<ServerMsg, { type: 'ready' }>;
    const signer = createSigner({ privateKey: ready.privateKey, chain: TESTNET });
    const work: { order: string; cancel: string }[] = [];
    for (let i = 0; i < n; i += batch) {
      const orders: LimitOrderBody[] = [];
      const cancels: CancelBody[] = [];
      for (let j = 0; j < batch; j++) {
        const body = signer.signOrder({
          marketId: ready.marketIds[(i + j) % ready.marketIds.length]!,
          outcomeIndex: 1,
          side: 0,
          price: 10_000 * (1 + ((i + j) % 30)),
          size: 1_000_000,
        });
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
    const url = new URL(ready.baseUrl);
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
    let latencies: number[] = [];
    const drive = async (until: number): Promise<void> => {
      const worker = async (): Promise<void> => {
        while (performance.now() < until && next < work.length) {
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
    };
    // Warm-up with the same traffic, not counted: the server is a fresh process each round, and its
    // first second runs unoptimised code (V8 tiers up the handlers, parsers and engine after a few
    // thousand calls). The figure is the sustained rate, so the clock starts once that has happened.
    await drive(performance.now() + WARMUP_SECONDS * 1000);
    done = 0;
    failures = 0;
    latencies = [];
    const cpu0 = ((await request(child, { type: 'cpu' }, 'cpu')) as Extract<ServerMsg, { type: 'cpu' }>).micros;
    const t0 = performance.now();
    await drive(t0 + seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = ((await request(child, { type: 'cpu' }, 'cpu')) as Extract<ServerMsg, { type: 'cpu' }>).micros;
    await pool.close();
    latencies.sort((x, y) => x - y);
    return {
      ordersPerSec: done / elapsed,
      ordersPerServerCpuSec: done / ((cpu1 - cpu0) / 1e6),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      failures,
    };
  } finally {
    child.send({ type: 'stop' });
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  }
}

if (process.env.SIM_HTTP_ROLE === 'server') {
  await serve();
} else {
  // best of ROUNDS interleaved rounds per shape: the shared machine's load swings within seconds
  const best = (a: Round | undefined, b: Round): Round => (!a || b.ordersPerServerCpuSec > a.ordersPerServerCpuSec ? b : a);
  // SIM_HTTP_SHAPES=single (or bulk, pure, comma-separated) runs only those shapes, e.g. to profile one
  const shapes = new Set((process.env.SIM_HTTP_SHAPES ?? 'single,bulk,pure,journal').split(','));
  let single: Round | undefined;
  let bulk: Round | undefined;
  let pure: Round | undefined;
  let singleJ: Round | undefined;
  let bulkJ: Round | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    if (shapes.has('single')) single = best(single, await round(false, SECONDS, 30_000, 1));
    if (shapes.has('journal') && shapes.has('single')) singleJ = best(singleJ, await round(false, SECONDS, 30_000, 1, true));
    if (shapes.has('bulk')) bulk = best(bulk, await round(false, SECONDS, 60_000, 50));
    if (shapes.has('journal') && shapes.has('bulk')) bulkJ = best(bulkJ, await round(false, SECONDS, 60_000, 50, true));
    if (shapes.has('pure')) pure = best(pure, await round(true, SECONDS, 10_000, 50));
  }
  if (shapes.size < 4) {
    const only = single ?? bulk ?? pure;
    if (!only) throw new Error(`no known shape in SIM_HTTP_SHAPES (single, bulk, pure)`);
    report(
      [
        ['shapes', [...shapes].join(', ')],
        ['single: orders per server CPU-second', single?.ordersPerServerCpuSec ?? NaN],
        ['single: wall-clock orders/s', single?.ordersPerSec ?? NaN],
        ['bulk: orders per server CPU-second', bulk?.ordersPerServerCpuSec ?? NaN],
        ['pure-JS bulk: orders per server CPU-second', pure?.ordersPerServerCpuSec ?? NaN],
        ['single, journal on: orders per server CPU-second', singleJ?.ordersPerServerCpuSec ?? NaN],
        ['single, journal on: wall-clock orders/s', singleJ?.ordersPerSec ?? NaN],
      ],
      {
        name: 'sim-http',
        unit: `orders per server CPU-second (${[...shapes].join(', ')} only)`,
        value: Math.round(only.ordersPerServerCpuSec),
        p50: only.p50,
        p99: only.p99,
      },
    );
    process.exit(0);
  }
  if (!single || !bulk || !pure || !singleJ || !bulkJ) throw new Error('no rounds');
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  report(
    [
      ['single requests: orders per server CPU-second (one core)', single.ordersPerServerCpuSec],
      ['  wall-clock orders/s', single.ordersPerSec],
      ['  HTTP requests/s (wall)', single.ordersPerSec * 2],
      ['  create+cancel latency p50 ms', single.p50],
      ['  create+cancel latency p99 ms', single.p99],
      ['  failed pairs', single.failures],
      ['bulk (50/call): orders per server CPU-second', bulk.ordersPerServerCpuSec],
      ['  wall-clock orders/s', bulk.ordersPerSec],
      ['  failed calls', bulk.failures],
      ['baseline, bulk, pure-JS verify: orders per server CPU-second', pure.ordersPerServerCpuSec],
      ['  wall-clock orders/s', pure.ordersPerSec],
      ['  failed calls', pure.failures],
      ['single, journal on (fdatasync before each answer, group commit): orders per server CPU-second', singleJ.ordersPerServerCpuSec],
      ['  wall-clock orders/s', singleJ.ordersPerSec],
      ['  create+cancel latency p50 / p99 ms', `${r2(singleJ.p50)} / ${r2(singleJ.p99)}`],
      ['  failed pairs', singleJ.failures],
      ['  journal on / off, per server CPU-second', singleJ.ordersPerServerCpuSec / single.ordersPerServerCpuSec],
      ['  journal on / off, wall clock', singleJ.ordersPerSec / single.ordersPerSec],
      ['bulk, journal on: orders per server CPU-second', bulkJ.ordersPerServerCpuSec],
      ['  wall-clock orders/s', bulkJ.ordersPerSec],
      ['  journal on / off, per server CPU-second', bulkJ.ordersPerServerCpuSec / bulk.ordersPerServerCpuSec],
      ['concurrency (keep-alive connections)', CONCURRENCY],
      ['rounds (best of, interleaved)', ROUNDS],
    ],
    {
      name: 'sim-http',
      unit: 'orders per server CPU-second (signed create + cancel through bulk calls of 50, every order and cancel verified, loopback keep-alive HTTP)',
      value: Math.round(bulk.ordersPerServerCpuSec),
      wallOrdersPerSec: Math.round(bulk.ordersPerSec),
      singleRequestOrdersPerServerCpuSec: Math.round(single.ordersPerServerCpuSec),
      singleRequestWallOrdersPerSec: Math.round(single.ordersPerSec),
      baseline: 'same bulk loop, server verifying with pure-JS crypto (noble, as viem)',
      baselineValue: Math.round(pure.ordersPerServerCpuSec),
      ratio: r2(bulk.ordersPerServerCpuSec / pure.ordersPerServerCpuSec),
      p50: r2(single.p50),
      p99: r2(single.p99),
      journalSingleOrdersPerServerCpuSec: Math.round(singleJ.ordersPerServerCpuSec),
      journalSingleWallOrdersPerSec: Math.round(singleJ.ordersPerSec),
      journalSingleRatio: r2(singleJ.ordersPerServerCpuSec / single.ordersPerServerCpuSec),
      journalSingleWallRatio: r2(singleJ.ordersPerSec / single.ordersPerSec),
      journalSingleP99: r2(singleJ.p99),
      journalBulkOrdersPerServerCpuSec: Math.round(bulkJ.ordersPerServerCpuSec),
      journalBulkRatio: r2(bulkJ.ordersPerServerCpuSec / bulk.ordersPerServerCpuSec),
    },
  );
}
