/**
 * Shard assignment (src/selection/shard.ts): rendezvous hashing of market ids, as run by every
 * selection refresh. Figures: assignments per second for N = 4 shards (the headline), N = 16 and
 * N = 10 000 (the largest accepted), and the share of 10 000 ids that move when N grows by one.
 * Baseline, in the same run: SHA-256 of the id modulo N (one hash, no per-shard weights), the
 * cheapest stable assignment, which moves most ids when N changes.
 */
import { createHash } from 'node:crypto';
import type { Bytes32 } from '../../src/model/order.ts';
import { shardOf } from '../../src/selection/shard.ts';
import { opsPerSecond, report } from './lib.ts';

const ids = Array.from({ length: 1024 }, (_, i) => `0x${createHash('sha256').update(`bench market ${i}`).digest('hex')}` as Bytes32);
const many = Array.from({ length: 10_000 }, (_, i) => `0x${createHash('sha256').update(`moved ${i}`).digest('hex')}` as Bytes32);
let i = 0;
let sink = 0;

const modulo = (id: string, n: number): number => createHash('sha256').update(id.toLowerCase()).digest().readUInt32BE(0) % n;

const best = (fn: () => void, rounds = 3): number => {
  let b = 0;
  for (let r = 0; r < rounds; r++) b = Math.max(b, opsPerSecond(fn, 400, 100));
  return b;
};
const rdv4 = best(() => void (sink += shardOf(ids[i++ & 1023]!, 4)));
const mod4 = best(() => void (sink += modulo(ids[i++ & 1023]!, 4)));
const rdv16 = best(() => void (sink += shardOf(ids[i++ & 1023]!, 16)));
const rdv10k = best(() => void (sink += shardOf(ids[i++ & 1023]!, 10_000)), 1);

const movedShare = (assign: (id: Bytes32, n: number) => number, n: number): number =>
  many.filter((id) => assign(id, n) !== assign(id, n + 1)).length / many.length;
const movedRdv = movedShare(shardOf, 4);
const movedMod = movedShare(modulo, 4);
if (sink === -1) process.stdout.write('');

report(
  [
    ['rendezvous, N = 4 (ids/s)', rdv4],
    ['rendezvous, N = 16 (ids/s)', rdv16],
    ['rendezvous, N = 10 000 (ids/s)', rdv10k],
    ['sha256 mod N, N = 4 (ids/s)', mod4],
    ['moved 4 → 5, rendezvous', `${(movedRdv * 100).toFixed(1)} % (ideal 20 %)`],
    ['moved 4 → 5, sha256 mod N', `${(movedMod * 100).toFixed(1)} %`],
  ],
  {
    name: 'shard',
    unit: 'ids/s',
    value: Math.round(rdv4),
    baseline: 'sha256 mod N',
    baselineValue: Math.round(mod4),
    ratio: Math.round((rdv4 / mod4) * 100) / 100,
    n16: Math.round(rdv16),
    n10000: Math.round(rdv10k),
    movedRendezvous: movedRdv,
    movedModulo: movedMod,
  },
);
