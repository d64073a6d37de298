/**
 * Order-signature recoveries per second: bookmaker's recoverOrderSigner (rebuilds the V2 struct from the
 * POST body, hashes by hand, native libsecp256k1 recovery) against viem's `recoverTypedDataAddress` on
 * the same signed orders, in the same run. This is the local exchange's hot path.
 * `npm run bench -- recover [ms]`
 */
import { recoverTypedDataAddress } from 'viem';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { recoverOrderSigner } from '../../src/exchange/signing/recover.ts';
import { toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import { MAINNET } from '../../src/exchange/chains.ts';
import { opsPerSecond, percentile, report } from './lib.ts';
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

// Sanity: both sides recover the same addresses before anything is timed.
for (let k = 0; k < 64; k++) {
  const a = recoverOrderSigner(bodies[k]!, MAINNET);
  if (a !== bodies[k]!.trader || a !== (await recoverTypedDataAddress(viemArgs[k]!))) throw new Error(`recovery mismatch at ${k}`);
}

let i = 0;
async function viemOps(budgetMs: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < budgetMs) {
    await recoverTypedDataAddress(viemArgs[i++ & 63]!);
    n++;
  }
  return (n * 1000) / (performance.now() - t0);
}

// Interleaved rounds, best of each side (the machine is shared and noisy).
const ROUNDS = 6;
const round = ms / ROUNDS;
let ours = 0;
let viem = 0;
await viemOps(200);
for (let k = 0; k < ROUNDS; k++) {
  ours = Math.max(ours, opsPerSecond(() => void recoverOrderSigner(bodies[i++ & 63]!, MAINNET), round, k === 0 ? 200 : 20));
  viem = Math.max(viem, await viemOps(round));
}
const pure = opsPerSecond(() => void recoverOrderSigner(bodies[i++ & 63]!, MAINNET, { pure: true }), Math.min(ms / 2, 1000));

const lat = new Float64Array(20_000);
for (let k = 0; k < lat.length; k++) {
  const t = performance.now();
  recoverOrderSigner(bodies[k & 63]!, MAINNET);
  lat[k] = (performance.now() - t) * 1000;
}
lat.sort();
const ratio = ours / viem;
const p50 = lat[lat.length >> 1]!;
const p99 = percentile(lat, 0.99);

report(
  [
    ['bookmaker recoverOrderSigner (native), /s', ours],
    ['bookmaker recoverOrderSigner (pure JS), /s', pure],
    ['viem recoverTypedDataAddress, /s', viem],
    ['ratio native / viem', ratio.toFixed(1)],
    ['p50 µs', p50.toFixed(1)],
    ['p99 µs', p99.toFixed(1)],
  ],
  {
    name: 'recover',
    unit: 'recoveries/s',
    value: Math.round(ours),
    baseline: 'viem recoverTypedDataAddress',
    baselineValue: Math.round(viem),
    ratio: Number(ratio.toFixed(2)),
    p50: Number(p50.toFixed(1)),
    p99: Number(p99.toFixed(1)),
    pureJs: Math.round(pure),
  },
);
