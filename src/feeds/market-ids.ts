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
  const keep = new Set<string>(ids);
  for (const k of [...memo.keys()]) if (!keep.has(k)) memo.delete(k);
}

/**
 * The markets one round of a per-market poll reads (metadata, oracle quotes), so that its request
 * rate stays within a budget however many markets there are: every market while they are at most
 * `perRound`, else `perRound` of them, markets never read first, then the others in turn. N markets
 * are then all read every ⌈N / perRound⌉ rounds (docs/performance.md#streams-polling-and-the-venues-request-budget).
 */
export class PollRounds {
  private readonly seen = new Set<string>();
  private cursor = 0;

  constructor(private readonly perRound: number) {
    if (!Number.isInteger(perRound) || perRound < 1) throw new RangeError(`perRound: expected a positive integer, got ${perRound}`);
  }

  /** The markets of the next round, out of `ids` (the markets covered now). */
  next(ids: readonly Bytes32[]): readonly Bytes32[] {
    if (ids.length <= this.perRound) {
      // every market read this round: remembered only once the list outgrows a round
      this.seen.clear();
      for (const id of ids) this.seen.add(id);
      return ids;
    }
    const out: Bytes32[] = [];
    const taken = new Set<string>();
    for (const id of ids) {
      if (out.length >= this.perRound) break;
      const k = id;
      if (!this.seen.has(k)) {
        out.push(id);
        taken.add(k);
      }
    }
    const start = this.cursor % ids.length;
    for (let i = 0; out.length < this.perRound && i < ids.length; i++) {
      const at = (start + i) % ids.length;
      const id = ids[at]!;
      const k = id;
      if (taken.has(k)) continue;
      out.push(id);
      taken.add(k);
      this.cursor = at + 1;
    }
    for (const k of taken) this.seen.add(k);
    // markets that left stop being remembered (the set stays the size of the covered list)
    if (this.seen.size > ids.length * 2) {
      const keep = new Set<string>(ids);
      for (const k of this.seen) if (!keep.has(k)) this.seen.delete(k);
    }
    return out;
  }
}

/** Markets a round may read at `readsPerSecond` over a round of `intervalMs` (at least one). */
export function perRound(readsPerSecond: number, intervalMs: number): number {
  return Math.max(1, Math.ceil((readsPerSecond * intervalMs) / 1000));
}
