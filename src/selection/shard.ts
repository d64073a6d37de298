/**
 * Shards: a market belongs to exactly one of N instances (`run --shard I/N`, `markets.shard`,
 * BOOKMAKER_SHARD), chosen by rendezvous (highest-random-weight) hashing of its lower-case id: every
 * shard j gets a weight w(id, j) and the market goes to the shard of the highest weight. Changing N
 * to N + 1 moves only the markets whose new shard N outweighs the old winner, ≈ 1/(N + 1) of them,
 * and none between the old shards (a modulo of the hash would move ≈ N/(N + 1) of them).
 *
 * The weight: the id is hashed once with SHA-256 (uniform whatever the id looks like: sequential
 * test ids, slugs, upper-case hex all spread evenly), whose first 64 bits are two 32-bit lanes; each
 * shard's weight mixes the lanes with the shard number through the murmur3 32-bit finaliser
 * (full avalanche: one changed input bit flips each output bit with probability ½), giving a
 * 53-bit weight. So one market costs one SHA-256 (~1 µs) plus N × a few integer multiplies, and
 * N = 10 000 stays cheap. Pure integer maths: the same assignment on every platform and Node version.
 * The assignment is part of the deployment interface (instances of different versions must agree),
 * so test/selection/shard.test.ts pins known assignments.
 */
import { createHash } from 'node:crypto';
import type { Bytes32 } from '../model/order.ts';

export interface Shard {
  /** 0 … count − 1 */
  readonly index: number;
  /** 1 … 10 000 */
  readonly count: number;
}

/** murmur3's 32-bit finaliser */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The two 32-bit lanes of a market's key (SHA-256 of the id in normal form: lower-case hex). */
function keyOf(marketId: Bytes32): [number, number] {
  const d = createHash('sha256').update(marketId).digest();
  return [d.readUInt32BE(0), d.readUInt32BE(4)];
}

/** Shard j's weight for a key: a 53-bit integer (a double holds it exactly). */
function weight(k1: number, k2: number, j: number): number {
  const s = fmix32(Math.imul(j + 1, 0x9e3779b9) >>> 0);
  const hi = fmix32((k1 ^ s) >>> 0);
  const lo = fmix32((k2 ^ fmix32((hi + s) >>> 0)) >>> 0);
  return hi * 2 ** 21 + (lo >>> 11);
}

/** The shard (0 … count − 1) that owns this market: the highest weight, ties to the lower index. */
export function shardOf(marketId: Bytes32, count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`shard count must be a positive integer, got ${count}`);
  if (count === 1) return 0;
  const [k1, k2] = keyOf(marketId);
  let best = 0;
  let bestW = -1;
  for (let j = 0; j < count; j++) {
    const w = weight(k1, k2, j);
    if (w > bestW) {
      bestW = w;
      best = j;
    }
  }
  return best;
}

/** This instance (shard `index` of `count`) owns the market; no shard (null) owns everything. */
export function shardOwns(marketId: Bytes32, shard: Shard | null): boolean {
  if (shard === null || shard.count === 1) return true;
  return shardOf(marketId, shard.count) === shard.index;
}

/** `I/N` for logs and labels. */
export function shardText(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The config a sharded instance runs with: `orders.reconcileScope: markets` whatever the file says,
 * so the start-up reconcile and every cancel-all (order manager and watchdog) touch only this shard's
 * markets, never the orders of another instance on the same wallet. Unchanged without a shard.
 */
export function withShardScope<
  C extends { readonly selection: { readonly shard: Shard | null }; readonly orders: { readonly reconcileScope: 'wallet' | 'markets' } },
>(cfg: C): C {
  if (cfg.selection.shard === null || cfg.orders.reconcileScope === 'markets') return cfg;
  return { ...cfg, orders: { ...cfg.orders, reconcileScope: 'markets' } };
}

/** A config with this instance's shard (from `run --shard` or BOOKMAKER_SHARD) in place of the file's. */
export function withShard<C extends { readonly selection: { readonly shard: Shard | null } }>(cfg: C, shard: Shard | null): C {
  return { ...cfg, selection: { ...cfg.selection, shard } };
}
