/**
 * Indices of a quote set in level order (level 0 first, a missing level counts as 0), ties kept in
 * input order. Used where the closest quotes get a scarce resource first (inventory in to-orders,
 * position room in the risk gate).
 *
 * Why a helper: both callers ran on every tick as `map` + `sort` with a comparator closure; the
 * quote sets strategies return are almost always in level order already (ladders emit level 0, then
 * 1, …), so a linear check skips the sort, and the result is the same permutation either way;
 * then the permutation is the identity, one shared read-only array per length, not one per call.
 */
import type { DesiredQuote } from './types.ts';

/**
 * IDENTITY[n] = [0, 1, …, n − 1], shared by every caller (they only read it). Not frozen: a frozen
 * array has elements of another kind, and the callers' reads of it and of a sorted copy went
 * polymorphic (the live tick-to-wire bench lost ~1 %).
 */
const IDENTITY: readonly (readonly number[])[] = Array.from({ length: 33 }, (_, n) => Array.from({ length: n }, (_, i) => i));

export function levelOrder(quotes: readonly DesiredQuote[]): readonly number[] {
  const n = quotes.length;
  let sorted = true;
  let prev = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n && sorted; i++) {
    const l = quotes[i]!.level ?? 0;
    // anything but ascending numbers (NaN, strings from a user's strategy) takes the comparator sort
    if (typeof l !== 'number' || !(l >= prev)) sorted = false;
    prev = l;
  }
  // in order already: the identity, shared (read only) for the set sizes strategies return
  if (sorted && n < IDENTITY.length) return IDENTITY[n]!;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  if (!sorted) out.sort((a, b) => (quotes[a]!.level ?? 0) - (quotes[b]!.level ?? 0) || a - b);
  return out;
}
