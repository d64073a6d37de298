/**
 * The markets a polling feed covers: a fixed list, or a getter read at every poll so the set can
 * change while the feed runs (market rotation adds and retires markets; see
 * src/runtime/rotation/market-rotation.ts).
 */
import type { Bytes32 } from '../model/order.ts';

export type MarketIds = readonly Bytes32[] | (() => readonly Bytes32[]);

/** The markets as of now. */
export function idsOf(m: MarketIds): readonly Bytes32[] {
  return typeof m === 'function' ? m() : m;
}

/** Drop the entries of a per-market memo whose market is no longer covered (lower-case keys). */
export function pruneTo<V>(memo: Map<string, V>, ids: readonly Bytes32[]): void {
  if (memo.size === 0) return;
  const keep = new Set(ids.map((id) => id.toLowerCase()));
  for (const k of [...memo.keys()]) if (!keep.has(k)) memo.delete(k);
}
