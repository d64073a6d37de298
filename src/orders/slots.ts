/**
 * Slots: the identity of a quote across ticks ("market M, YES-terms bid, level 0"), so the diff can
 * tell a moved quote from a new one and the order manager never holds two orders for one slot.
 *
 * Entry points: `desiredOrders(marketId, mapped)` turns to-orders output into the order manager's
 * `DesiredOrder[]`; `parseSlot(slot)` reads a slot back (for views and metrics).
 * The slot names the YES-terms side, not the venue form, so a bid that switches from "buy YES" to
 * "sell NO from inventory" is a one-for-one replace in the same slot.
 */
import type { Bytes32 } from '../model/order.ts';
import type { MappedOrder } from '../strategy/to-orders.ts';
import type { DesiredOrder } from './diff.ts';

export function slotOf(marketId: Bytes32, side: 'bid' | 'ask', level: number): string {
  return `${marketId.toLowerCase()}:${side}:${level}`;
}

export function parseSlot(slot: string): { marketId: string; side: 'bid' | 'ask'; level: number } | null {
  const m = /^(0x[0-9a-f]+):(bid|ask):(\d+)$/.exec(slot);
  return m ? { marketId: m[1]!, side: m[2] as 'bid' | 'ask', level: Number(m[3]) } : null;
}

/**
 * One DesiredOrder per mapped quote. A quote's level is its `level` when the strategy gave one,
 * otherwise its rank among the quotes of its side; a repeated level takes the next free one.
 */
export function desiredOrders(marketId: Bytes32, mapped: readonly MappedOrder[]): DesiredOrder[] {
  const used = { bid: new Set<number>(), ask: new Set<number>() };
  const rank = { bid: 0, ask: 0 };
  return mapped.map((m) => {
    const side = m.quote.side;
    let level = m.quote.level ?? rank[side];
    rank[side]++;
    while (used[side].has(level)) level++;
    used[side].add(level);
    return { slot: slotOf(marketId, side, level), order: m.order };
  });
}
