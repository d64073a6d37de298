/**
 * V2 order signatures per second: bookmaker's Signer (hand-rolled EIP-712 + native libsecp256k1) against
 * viem's `signTypedData` (privateKeyToAccount) on the same orders, in the same run.
 * `npm run bench -- signing [ms]`
 *
 * The headline figures are per second of CPU time, in interleaved rounds (best round of each side): the
 * bench machine is shared, and wall-clock rates there mostly measure other people's load. Wall-clock
 * rates and per-call latency are printed too.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import { MAINNET } from '../../src/exchange/chains.ts';
import type { LimitOrder } from '../../src/model/order.ts';
import { cpuOpsPerSecond, interleavedCpu, opsPerSecond, percentile, report, latencyMicros, versus } from './lib.ts';
import { ORDER_TYPES, randomOrder, rng, settlementV2Domain } from '../exchange/signing/fixtures.ts';

const ms = Number(process.argv[2] ?? 3000);
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
const NOW = 1_800_000_000;

// 64 varied orders of all three kinds; our signer fills in nonce, expiry and maxFee itself (the live path).
const r = rng(2026);
const orders: LimitOrder[] = Array.from({ length: 64 }, (_, i) => {
  const o = randomOrder(r, (i % 3) as 0 | 1 | 2);
  delete o.nonce;
  delete o.maxFee;
  delete o.expiry;
  return o;
});

const fast = createSigner({ privateKey: KEY, chain: MAINNET });
const pure = createSigner({ privateKey: KEY, chain: MAINNET, pure: true });
const account = privateKeyToAccount(KEY);
const domain = settlementV2Domain(MAINNET);
// viem gets the already-mapped struct, so it does less work than we do (no mapping, nonce or defaults).
const messages = orders.map((o) => toSettlementV2Order(fast.signOrder(o, NOW)));
let i = 0;
const ours = () => void fast.signOrder(orders[i++ & 63]!, NOW);
const viem = () => account.signTypedData({ domain, types: ORDER_TYPES, primaryType: 'Order', message: messages[i++ & 63]! });

const ROUNDS = 6;
const { ours: oursCpu, base: viemCpu } = await interleavedCpu(ours, viem, ms, ROUNDS);
const pureCpu = await cpuOpsPerSecond(() => void pure.signOrder(orders[i++ & 63]!, NOW), Math.min(ms / 2, 1000));
const oursWall = opsPerSecond(ours, ms / ROUNDS, 20);
const viemWall = await cpuOpsPerSecond(viem, 1).then(async () => {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms / ROUNDS) {
    await viem();
    n++;
  }
  return (n * 1000) / (performance.now() - t0);
});

// Latency of one call on our path.
const lat = latencyMicros(ours);
const ratio = oursCpu / viemCpu;
const p50 = lat[lat.length >> 1]!;
const p99 = percentile(lat, 0.99);

report(
  [
    ['bookmaker signOrder (native), orders/CPU-s', oursCpu],
    ['bookmaker signOrder (pure JS), orders/CPU-s', pureCpu],
    ['viem signTypedData, orders/CPU-s', viemCpu],
    ['ratio native / viem (CPU time)', ratio.toFixed(1)],
    ['ratio pure / viem (CPU time)', (pureCpu / viemCpu).toFixed(1)],
    ['bookmaker, orders/s wall clock', oursWall],
    ['viem, orders/s wall clock', viemWall],
    ['ratio (wall clock, one round)', (oursWall / viemWall).toFixed(1)],
    ['bookmaker p50 µs', p50.toFixed(1)],
    ['bookmaker p99 µs', p99.toFixed(1)],
  ],
  versus(
    { name: 'signing', unit: 'orders/s (CPU time)', value: oursCpu, baseline: 'viem signTypedData', baselineValue: viemCpu, ratio, p50, p99 },
    { pureJs: Math.round(pureCpu), wallClock: Math.round(oursWall), baselineWallClock: Math.round(viemWall), backend: fast.backend },
  ),
);
