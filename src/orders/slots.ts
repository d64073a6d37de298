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
  // a Bytes32 is lower case already (src/model/ids.ts)
  return `${marketId}:${side}:${level}`;
}

export interface ParsedSlot {
  readonly marketId: string;
  readonly side: 'bid' | 'ask';
  readonly level: number;
}

const SLOT = /^(0x[0-9a-f]+):(bid|ask):(\d+)$/;

/**
 * The slot string of (side, level), kept in `names` (one market's, indexed by 2·level, +1 for asks):
 * every tick of a market names the same few slots again, and building one lower-cases and
 * concatenates a 66-character id; a slot is a string, so handing out the same one is
 * indistinguishable. The kernel's slot of the market owns `names` (it goes when the market does);
 * without it the string is built fresh.
 */
function slotNamed(marketId: Bytes32, side: 'bid' | 'ask', level: number, names: string[] | undefined): string {
  // integer levels 0…999 are what strategies use; anything else is built fresh
  if (names === undefined || !(level >= 0 && level < 1000 && (level | 0) === level)) return slotOf(marketId, side, level);
  const i = side === 'bid' ? 2 * level : 2 * level + 1;
  return (names[i] ??= slotOf(marketId, side, level));
}

/** The parts of a slot name, or null when it is not one of ours (a market's view remembers the level: src/state/market-view.ts). */
export function parseSlot(slot: string): ParsedSlot | null {
  const m = SLOT.exec(slot);
  return m ? { marketId: m[1]!, side: m[2] as 'bid' | 'ask', level: Number(m[3]) } : null;
}

/**
 * The level each quote's slot takes: its `level` when the strategy gave a usable one (a whole
 * number ≥ 0), otherwise its rank among the quotes of its side; a repeated level takes the next free one.
 * The risk gate sees these levels too (run-strategy.ts), so a quote it takes as a live order is the
 * one in the same slot. (A NaN or infinite level would never find a free one.)
 */
export function slotLevels(quotes: readonly { readonly side: 'bid' | 'ask'; readonly level?: number | undefined }[]): number[] {
  const out = new Array<number>(quotes.length);
  // levels taken so far per side; quote sets are a handful long, so a list beats a Set per call
  const usedBid: number[] = [];
  const usedAsk: number[] = [];
  let rankBid = 0;
  let rankAsk = 0;
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    const bid = q.side === 'bid';
    const used = bid ? usedBid : usedAsk;
    const given = q.level;
    let level = given !== undefined && given >= 0 && Number.isSafeInteger(given) ? given : bid ? rankBid : rankAsk;
    if (bid) rankBid++;
    else rankAsk++;
    while (used.includes(level)) level++;
    used.push(level);
    out[i] = level;
  }
  return out;
}

/** A level slotLevels takes as given: a whole number ≥ 0. */
function usable(level: number | undefined): level is number {
  return level !== undefined && level >= 0 && Number.isSafeInteger(level);
}

/**
 * Every quote's own level is usable and no other quote of its side has it: slotLevels then gives
 * each quote its own level (the ranks and the bumping never apply). The usual case (a ladder names
 * level 0, 1, … per side), found without allocating: the callers on every tick (run-strategy.ts,
 * desiredOrders) skip building the levels (three arrays). Quote sets are a handful long, so the
 * pairwise check is shorter than a Set.
 */
export function levelsAsGiven(quotes: readonly { readonly side: 'bid' | 'ask'; readonly level?: number | undefined }[]): boolean {
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    if (!usable(q.level)) return false;
    // sides as slotLevels reads them: 'bid', or anything else on the ask side
    const bid = q.side === 'bid';
    for (let j = 0; j < i; j++) if ((quotes[j]!.side === 'bid') === bid && quotes[j]!.level === q.level) return false;
  }
  return true;
}

/**
 * One DesiredOrder per mapped quote, in the slot `slotLevels` gives it; `keeps` (aligned with
 * `mapped`, from the risk gate) names the live order a quote is. `names`: the market's slot strings
 * so far (see slotNamed), filled in as new ones are named.
 */
export function desiredOrders(marketId: Bytes32, mapped: readonly MappedOrder[], keeps?: readonly (Bytes32 | null)[], names?: string[]): DesiredOrder[] {
  const out = new Array<DesiredOrder>(mapped.length);
  const quotes = new Array<MappedOrder['quote']>(mapped.length);
  for (let i = 0; i < mapped.length; i++) quotes[i] = mapped[i]!.quote;
  // the levels as the quotes give them (the usual case, see levelsAsGiven), else slotLevels's
  const levels = levelsAsGiven(quotes) ? null : slotLevels(quotes);
  for (let i = 0; i < mapped.length; i++) {
    const m = mapped[i]!;
    const slot = slotNamed(marketId, m.quote.side, levels === null ? m.quote.level! : levels[i]!, names);
    const k = keeps?.[i];
    out[i] = k ? { slot, order: m.order, keeps: k } : { slot, order: m.order };
  }
  return out;
}
