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

export interface ParsedSlot {
  readonly marketId: string;
  readonly side: 'bid' | 'ask';
  readonly level: number;
}

const SLOT = /^(0x[0-9a-f]+):(bid|ask):(\d+)$/;

/**
 * Slot strings by market id, indexed by 2·level (+1 for asks). Every tick of every market names the
 * same few slots again, and building one lower-cases and concatenates a 66-character id; a slot is a
 * string, so handing out the same one is indistinguishable. Bounded: cleared when it outgrows what
 * any real bot quotes.
 */
const slotCache = new Map<string, string[]>();
const parseCache = new Map<string, ParsedSlot | null>();
const CACHE_MAX = 65_536;

function cachedSlot(marketId: Bytes32, side: 'bid' | 'ask', level: number): string {
  // integer levels 0…999 are what strategies use; anything else is built fresh
  if (!(level >= 0 && level < 1000 && (level | 0) === level)) return slotOf(marketId, side, level);
  let slots = slotCache.get(marketId);
  if (slots === undefined) {
    if (slotCache.size >= CACHE_MAX) slotCache.clear();
    slots = [];
    slotCache.set(marketId, slots);
  }
  const i = side === 'bid' ? 2 * level : 2 * level + 1;
  return (slots[i] ??= slotOf(marketId, side, level));
}

/** The parts of a slot name, or null when it is not one of ours (the result is shared: read it only). */
export function parseSlot(slot: string): ParsedSlot | null {
  let p = parseCache.get(slot);
  if (p === undefined) {
    const m = SLOT.exec(slot);
    p = m ? { marketId: m[1]!, side: m[2] as 'bid' | 'ask', level: Number(m[3]) } : null;
    if (parseCache.size >= CACHE_MAX) parseCache.clear();
    parseCache.set(slot, p);
  }
  return p;
}

/**
 * One DesiredOrder per mapped quote. A quote's level is its `level` when the strategy gave one,
 * otherwise its rank among the quotes of its side; a repeated level takes the next free one.
 */
export function desiredOrders(marketId: Bytes32, mapped: readonly MappedOrder[]): DesiredOrder[] {
  const out = new Array<DesiredOrder>(mapped.length);
  // levels taken so far per side; quote sets are a handful long, so a list beats a Set per call
  const usedBid: number[] = [];
  const usedAsk: number[] = [];
  let rankBid = 0;
  let rankAsk = 0;
  for (let i = 0; i < mapped.length; i++) {
    const m = mapped[i]!;
    const side = m.quote.side;
    const bid = side === 'bid';
    const used = bid ? usedBid : usedAsk;
    let level = m.quote.level ?? (bid ? rankBid : rankAsk);
    if (bid) rankBid++;
    else rankAsk++;
    while (used.includes(level)) level++;
    used.push(level);
    out[i] = { slot: cachedSlot(marketId, side, level), order: m.order };
  }
  return out;
}
