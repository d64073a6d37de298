/**
 * ledger: what the persistent ledger costs.
 *  1. write throughput into a file ledger (WAL, synchronous=NORMAL) through the batched writer:
 *     fills/s (one record each) and orders/s (sent + answered + cancel sent + cancelled: 4 records),
 *     flushed in transactions of 2,000; baseline: one transaction per fill (an unbatched writer);
 *  2. its cost on tick-to-wire: the tick-to-wire pipeline (book event → store → strategy → risk →
 *     order manager → natively signed bulk request serialised; see tick-to-wire.bench.ts) with the
 *     bot's ledger hook recording every order-manager event into a file ledger (its timer flushing
 *     every 200 ms on the real clock), against the same pipeline without the ledger, in alternating
 *     rounds of the same process.
 *
 *   npm run bench -- ledger [--ticks 2000] [--rounds 4] [--fills 200000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bands from '../../strategies/bands/index.ts';
import { systemClock } from '../../src/core/clock.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import type { BotLedger } from '../../src/ledger/bot-ledger.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import type { Address, Bytes32 } from '../../src/model/order.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { createLiveVenue, type LiveOrdersClient } from '../../src/runtime/live-venue.ts';
import { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import { StateStore } from '../../src/state/store.ts';
import { percentile, report } from './lib.ts';
import { bookSnapshot, stubOrdersClient } from '../support/stub-orders-client.ts';
import { benchKernel } from '../support/quoting.ts';
import { openBotLedger } from '../support/bot-ledger.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const TICKS = arg('ticks', 2000);
const ROUNDS = arg('rounds', 4);
const FILLS = arg('fills', 200_000);
const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const KEY = '0x' + '11'.repeat(32);
const work = mkdtempSync(join(tmpdir(), 'bm-ledger-bench-'));

// ---- 1. write throughput ----
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const hex = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
/** Fill `j` of the benches: all of order `j` (10 shares, a buy or a sell by parity) at `price`, from the feed. */
const fillOf = (j: number, price: number) => ({
  fillId: `${hex(j)}:10000000`,
  nonce: hex(j),
  marketId: M,
  outcomeIndex: 1 as const,
  side: (j & 1) as 0 | 1,
  price,
  size: 10_000_000,
  fee: 0,
  ts: 1_800_000_000_000 + j,
  source: 'feed' as const,
  filled: 10_000_000,
});

function fillsPerSecond(n: number): { wall: number; cpu: number; pushNs: number } {
  const l = openLedger({ path: join(work, `fills-${n}.sqlite`), clock: systemClock, maxBatch: 1e9 });
  const c0 = cpuMs();
  const t0 = performance.now();
  let pushMs = 0;
  for (let i = 0; i < n; i += 2000) {
    const p0 = performance.now();
    for (let j = i; j < Math.min(n, i + 2000); j++) l.fill(fillOf(j, 400_000 + (j % 100) * 1000));
    pushMs += performance.now() - p0;
    l.flush();
  }
  const wall = performance.now() - t0;
  const cpu = cpuMs() - c0;
  l.close();
  return { wall: (n * 1000) / wall, cpu: (n * 1000) / cpu, pushNs: (pushMs * 1e6) / n };
}

function ordersPerSecond(n: number): number {
  const l = openLedger({ path: join(work, `orders-${n}.sqlite`), clock: systemClock, maxBatch: 1e9 });
  const t0 = performance.now();
  for (let i = 0; i < n; i += 500) {
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const nonce = hex(j);
      l.orderSubmitted(
        { nonce, marketId: M, slot: `${M}:bid:0`, outcomeIndex: 1, side: 0, price: 480_000, size: 10_000_000, ts: 1_800_000_000_000 + j },
        false,
      );
      l.orderAnswered(nonce, 'accepted', 'created', 1_800_000_000_000 + j);
      l.cancel(nonce, M, 'sent', null, 1_800_000_000_001 + j);
      l.cancel(nonce, M, 'cancelled', null, 1_800_000_000_002 + j);
      l.orderEnded(nonce, 'cancelled', 1_800_000_000_002 + j);
    }
    l.flush();
  }
  const wall = performance.now() - t0;
  l.close();
  return (n * 1000) / wall;
}

function unbatchedFillsPerSecond(n: number): number {
  const l = openLedger({ path: join(work, `unbatched-${n}.sqlite`), clock: systemClock });
  const t0 = performance.now();
  for (let j = 0; j < n; j++) {
    l.fill(fillOf(j, 400_000));
    l.flush();
  }
  const wall = performance.now() - t0;
  l.close();
  return (n * 1000) / wall;
}

// ---- 2. tick-to-wire with and without the ledger hook ----
function stubClient(written: number[]): LiveOrdersClient {
  return stubOrdersClient((body) => {
    JSON.stringify(body);
    written.push(performance.now());
  });
}

let ledgerRound = 0;
async function tickToWire(withLedger: boolean, ticks: number): Promise<{ lat: number[]; records: number }> {
  const written: number[] = [];
  const signer = createSigner({ privateKey: KEY, chain: TESTNET });
  const venue = createLiveVenue({ client: { orders: stubClient(written) }, signer });
  let bl: BotLedger | null = null;
  if (withLedger) {
    bl = await openBotLedger({ path: join(work, `ttw-${ledgerRound++}.sqlite`), clock: systemClock, trader: signer.address as Address, venue: 'bench' });
  }
  const store = new StateStore();
  // as the bot wires it: the order manager's events go into the store, then to the ledger
  const om = new OrderManager({
    venue,
    clock: systemClock,
    tolerances: { price: 0, sizeFraction: 0.1 },
    emit: (e) => {
      store.dispatch(e);
      bl?.onEvent(e);
    },
  });
  const kernel = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, [M], { clock: systemClock, venue, store, orderManager: om });
  await om.reconcile();
  const lat: number[] = [];
  for (let i = 0; i < ticks; i++) {
    await new Promise((r) => setImmediate(r));
    written.length = 0;
    const t0 = performance.now();
    kernel.onEvent(bookSnapshot(M, i % 2 === 0 ? 530_000 : 500_000, i + 1));
    await kernel.flush();
    const last = written[written.length - 1];
    if (last !== undefined) lat.push(last - t0);
  }
  kernel.stop();
  const records = bl ? bl.ledger.written + bl.ledger.pending : 0;
  bl?.close();
  return { lat, records };
}

try {
  fillsPerSecond(20_000); // warm-up
  const f = fillsPerSecond(FILLS);
  const o = ordersPerSecond(Math.floor(FILLS / 4));
  const u = unbatchedFillsPerSecond(Math.max(2_000, Math.floor(FILLS / 40)));

  await tickToWire(false, 300); // warm-up
  await tickToWire(true, 300);
  const before: number[] = [];
  const after: number[] = [];
  let records = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which side goes first so drift on the shared machine does not favour one
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const withLedger of order) {
      const res = await tickToWire(withLedger, TICKS);
      (withLedger ? after : before).push(...res.lat);
      records += res.records;
    }
  }
  before.sort((a, b) => a - b);
  after.sort((a, b) => a - b);
  const us = (ms: number): number => Math.round(ms * 10_000) / 10;
  const b50 = percentile(before, 0.5);
  const b99 = percentile(before, 0.99);
  const a50 = percentile(after, 0.5);
  const a99 = percentile(after, 0.99);
  report(
    [
      ['fills/s (batched, wall)', Math.round(f.wall)],
      ['fills per CPU-second', Math.round(f.cpu)],
      ['record push ns (hot path)', Math.round(f.pushNs)],
      ['orders/s (5 records each)', Math.round(o)],
      ['fills/s unbatched (baseline)', Math.round(u)],
      ['tick-to-wire p50 µs, no ledger', us(b50)],
      ['tick-to-wire p50 µs, ledger', us(a50)],
      ['tick-to-wire p99 µs, no ledger', us(b99)],
      ['tick-to-wire p99 µs, ledger', us(a99)],
      ['ledger records during ticks', records],
    ],
    {
      name: 'ledger',
      unit: 'fills/s',
      value: Math.round(f.wall),
      baseline: 'one transaction per fill',
      baselineValue: Math.round(u),
      ratio: Math.round((f.wall / u) * 10) / 10,
      ordersPerSecond: Math.round(o),
      pushNs: Math.round(f.pushNs),
      tickToWireP50: { noLedger: us(b50), ledger: us(a50), ratio: Math.round((a50 / b50) * 1000) / 1000 },
      tickToWireP99: { noLedger: us(b99), ledger: us(a99), ratio: Math.round((a99 / b99) * 1000) / 1000 },
    },
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
