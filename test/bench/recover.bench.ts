/**
 * Order-signature recoveries per second: bookmaker's recoverOrderSigner (rebuilds the V2 struct from the
 * POST body, hashes by hand, native libsecp256k1 recovery) against viem's `recoverTypedDataAddress` on
 * the same signed orders, in the same run. This is the local exchange's hot path.
 * `npm run bench -- recover [ms]`
 *
 * Headline figures are per second of CPU time in interleaved rounds (best round each), as in
 * signing.bench.ts: the shared machine's load would otherwise dominate wall-clock rates.
 */
import { recoverTypedDataAddress } from 'viem';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { recoverOrderSigner } from '../../src/exchange/signing/recover.ts';
import { toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import { MAINNET } from '../../src/exchange/chains.ts';
import { cpuOpsPerSecond, interleavedCpu, opsPerSecond, percentile, report, latencyMicros, versus } from './lib.ts';
import { ORDER_TYPES, TEST_KEYS, randomOrder, rng, settlementV2Domain } from '../exchange/signing/fixtures.ts';

const ms = Number(process.argv[2] ?? 3000);
const NOW = 1_800_000_000;
const r = rng(99);
// 64 signed bodies from 4 traders, all three order kinds.
const bodies = Array.from({ length: 64 }, (_, i) =>
  createSigner({ privateKey: TEST_KEYS[i % TEST_KEYS.length]!, chain: MAINNET }).signOrder(randomOrder(r, (i % 3) as 0 | 1 | 2), NOW),
);
const domain = settlementV2Domain(MAINNET);
const viemArgs = bodies.map((b) => ({ domain, types: ORDER_TYPES, primaryType: 'Order' as const, message: toSettlementV2Order(b), signature: b.signature }));

// Both sides must recover the same addresses before anything is timed.
for (let k = 0; k < 64; k++) {
  const a = recoverOrderSigner(bodies[k]!, MAINNET);
  if (a !== bodies[k]!.trader || a !== (await recoverTypedDataAddress(viemArgs[k]!))) throw new Error(`recovery mismatch at ${k}`);
}

let i = 0;
const ours = () => void recoverOrderSigner(bodies[i++ & 63]!, MAINNET);
const viem = () => recoverTypedDataAddress(viemArgs[i++ & 63]!);

const ROUNDS = 6;
const { ours: oursCpu, base: viemCpu } = await interleavedCpu(ours, viem, ms, ROUNDS);
const pureCpu = await cpuOpsPerSecond(() => void recoverOrderSigner(bodies[i++ & 63]!, MAINNET, { pure: true }), Math.min(ms / 2, 1000));
const oursWall = opsPerSecond(ours, ms / ROUNDS, 20);

const lat = latencyMicros(ours);
const ratio = oursCpu / viemCpu;
const p50 = lat[lat.length >> 1]!;
const p99 = percentile(lat, 0.99);

report(
  [
    ['bookmaker recoverOrderSigner (native), /CPU-s', oursCpu],
    ['bookmaker recoverOrderSigner (pure JS), /CPU-s', pureCpu],
    ['viem recoverTypedDataAddress, /CPU-s', viemCpu],
    ['ratio native / viem (CPU time)', ratio.toFixed(1)],
    ['bookmaker, /s wall clock', oursWall],
    ['bookmaker p50 µs', p50.toFixed(1)],
    ['bookmaker p99 µs', p99.toFixed(1)],
  ],
  versus(
    { name: 'recover', unit: 'recoveries/s (CPU time)', value: oursCpu, baseline: 'viem recoverTypedDataAddress', baselineValue: viemCpu, ratio, p50, p99 },
    { pureJs: Math.round(pureCpu), wallClock: Math.round(oursWall) },
  ),
);
