/**
 * Desired orders for one market with the venue form of each quote chosen against inventory that
 * is really free (pure).
 *
 * Entry point: `desiredWithReservedSells(input)` → `DesiredOrder[]`.
 *
 * A YES-terms bid goes out as a NO sale when the NO tokens are free, otherwise as a YES buy (asks
 * alike, see strategy/to-orders.ts). Tokens are taken by every sell we hold that is not this tick's
 * own order for its slot:
 *  - sells on their way out (cancel sent, or cancelled and parked until a poll sees them closed:
 *    they may have filled unseen) — `leaving`;
 *  - our working (or in-flight) sells that the diff will NOT keep: a sell moved to a new price is a
 *    cancel plus a new order, and once that cancel is answered the old sell is parked and still
 *    holds its tokens. Mapping the new quote as a sale of those same tokens (as if the old sell
 *    were already gone) made the next tick, which does count the parked sell, flip the quote to a
 *    buy: a create and a cancel wasted per move, and for a moment two sales of one set of tokens.
 *    So such a sell's tokens are reserved when deciding, exactly as they are once it is parked.
 * A sell the diff keeps (same kind, within tolerance) is this tick's order for its slot: its quote
 * maps onto the same tokens, and any shares it holds beyond the quote's size stay reserved.
 *
 * When the order manager drops a cancelled order at once (settleMs 0: every fill is reported
 * before an order's end), a replaced sell frees its tokens with its cancel and nothing is reserved
 * for it. All sizes are integer 1e-6 shares.
 */
import { InventoryMode, Outcome, Side, type Bytes32 } from '../model/order.ts';
import { availableInventory, toOrders, type AvailableInventory, type MappedOrder, type ToOrdersOptions } from '../strategy/to-orders.ts';
import type { DesiredQuote, WorkingQuote } from '../strategy/types.ts';
import { withinTolerance, type DesiredOrder, type Tolerances, type TrackedOrder } from './diff.ts';
import { desiredOrders } from './slots.ts';

export interface ReservedSellsInput {
  readonly marketId: Bytes32;
  readonly quotes: readonly DesiredQuote[];
  /** the risk gate's keeps, aligned with `quotes` */
  readonly keeps?: readonly (Bytes32 | null)[];
  readonly position: { readonly yes: number; readonly no: number };
  /** own orders on their way out (cancel sent or parked): their sells hold tokens */
  readonly leaving: readonly WorkingQuote[];
  /** the order manager's live orders in this market (working and in flight, not cancelling) */
  readonly tracked: readonly TrackedOrder[];
  readonly tolerances: Tolerances;
  readonly nowSec: number;
  readonly toOrders: ToOrdersOptions;
  /** true when a cancelled order is parked until its fills are known (order manager settleMs > 0) */
  readonly cancelledSellsPark: boolean;
  /** the market's slot strings so far, owned by its kernel slot (src/orders/slots.ts desiredOrders) */
  readonly slotNames?: string[];
  /** the market's last mapping, owned by its kernel slot (see DesiredMemo); without one every call maps afresh */
  readonly memo?: DesiredMemo;
}

/**
 * The last set this market's quotes mapped to, and what it was mapped from: most ticks of a market
 * ask for the same quotes (side, price, size, level), the same kept orders and the same free
 * inventory as the tick before, and get the same orders. Reusing that set skips the mapping (an
 * object per quote, per order, per desired order, and their lists) and hands the order manager the
 * same objects, which nothing downstream changes. Only for sets whose mapping reserves nothing for
 * live sells (no parking, or no sell live): the common case, and the one whose inputs are all here.
 * The inputs are kept as copied values, not as the quote objects: a strategy that rewrote its last
 * list in place cannot make a changed set look like the last one.
 */
export interface DesiredMemo {
  /** side, price, size and level of each quote mapped last, flat; null before the first */
  key: (string | number | undefined)[] | null;
  keeps: (Bytes32 | null)[];
  yes: number;
  no: number;
  toOrders: ToOrdersOptions | null;
  desired: DesiredOrder[];
}

export function newDesiredMemo(): DesiredMemo {
  return { key: null, keeps: [], yes: 0, no: 0, toOrders: null, desired: [] };
}

/** The quotes by the fields the mapping reads, and the keeps, are those of the memo. */
function sameAsLast(m: DesiredMemo, quotes: readonly DesiredQuote[], keeps: readonly (Bytes32 | null)[] | undefined): boolean {
  const key = m.key!;
  if (key.length !== 4 * quotes.length) return false;
  for (let i = 0, k = 0; i < quotes.length; i++, k += 4) {
    const q = quotes[i]!;
    if (key[k] !== q.side || key[k + 1] !== q.price || key[k + 2] !== q.size || key[k + 3] !== q.level) return false;
  }
  const lk = m.keeps;
  for (let i = 0; i < quotes.length; i++) if (lk[i] !== (keeps?.[i] ?? null)) return false;
  return true;
}

function remember(m: DesiredMemo, input: ReservedSellsInput, base: AvailableInventory, desired: DesiredOrder[]): void {
  const quotes = input.quotes;
  // the memo's own arrays, written over when the set has as many quotes (a requote: every tick live)
  const key = m.key !== null && m.key.length === 4 * quotes.length ? m.key : new Array<string | number | undefined>(4 * quotes.length);
  const keeps = m.keeps.length === quotes.length ? m.keeps : new Array<Bytes32 | null>(quotes.length);
  for (let i = 0, k = 0; i < quotes.length; i++, k += 4) {
    const q = quotes[i]!;
    key[k] = q.side;
    key[k + 1] = q.price;
    key[k + 2] = q.size;
    key[k + 3] = q.level;
    keeps[i] = input.keeps?.[i] ?? null;
  }
  m.key = key;
  m.keeps = keeps;
  m.yes = base.yes;
  m.no = base.no;
  m.toOrders = input.toOrders;
  m.desired = desired;
}

/** A sell that delivers held tokens (mode 2 sells mint on fill and hold none). */
function holdsTokens(t: TrackedOrder): boolean {
  return t.planned.side === Side.SELL && t.planned.inventoryMode !== InventoryMode.REQUIRE_NO_INVENTORY;
}

/** Passes before giving up on a fixed point and reserving every live sell in full (never reached in practice). */
const MAX_PASSES = 8;

export function desiredWithReservedSells(input: ReservedSellsInput): DesiredOrder[] {
  const base = availableInventory(input.position, input.leaving);
  // the live sells holding tokens, listed only when there are some (most ticks: none, or no parking)
  let sells: TrackedOrder[] | null = null;
  if (input.cancelledSellsPark) {
    for (const t of input.tracked) if ((t.state === 'working' || t.state === 'pending-create') && holdsTokens(t)) (sells ??= []).push(t);
  }
  if (sells === null) {
    const m = input.memo;
    if (m === undefined) return mapFree(input, base, NONE_RESERVED);
    if (m.key !== null && m.toOrders === input.toOrders && m.yes === base.yes && m.no === base.no && sameAsLast(m, input.quotes, input.keeps)) return m.desired;
    const desired = mapFree(input, base, NONE_RESERVED);
    remember(m, input, base, desired);
    return desired;
  }
  let reserve: AvailableInventory = NONE_RESERVED;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const desired = mapFree(input, base, reserve);
    const next = reservedBy(sells, desired, input.tolerances, input.nowSec);
    if (next.yes === reserve.yes && next.no === reserve.no) return desired;
    reserve = next;
  }
  // no fixed point: every live sell holds its tokens in full (errs towards buying, never over-sells)
  let yes = 0;
  let no = 0;
  for (const t of sells) {
    if (t.planned.outcomeIndex === Outcome.YES) yes += t.remaining;
    else no += t.remaining;
  }
  return mapFree(input, base, { yes, no });
}

const NONE_RESERVED: AvailableInventory = { yes: 0, no: 0 };

/**
 * The quotes mapped onto the inventory left after `reserve`. A module function rather than a closure
 * in desiredWithReservedSells: under the tsx loader a named closure is wrapped to keep its name
 * (a defineProperty per tick, ~2 % of a backtest).
 */
function mapFree(input: ReservedSellsInput, base: AvailableInventory, reserve: AvailableInventory): DesiredOrder[] {
  const inv = { yes: Math.max(0, base.yes - reserve.yes), no: Math.max(0, base.no - reserve.no) };
  const mapped: MappedOrder[] = toOrders(input.quotes, inv, input.toOrders);
  return desiredOrders(input.marketId, mapped, input.keeps, input.slotNames);
}

/**
 * Tokens the live sells hold beyond what `desired` maps onto them: the whole remaining size of a
 * sell the diff will not keep, and a kept sell's shares beyond its quote's size.
 */
function reservedBy(sells: readonly TrackedOrder[], desired: readonly DesiredOrder[], tol: Tolerances, nowSec: number): AvailableInventory {
  let yes = 0;
  let no = 0;
  for (const t of sells) {
    let want: DesiredOrder | undefined;
    for (let i = 0; i < desired.length; i++) {
      if (desired[i]!.slot === t.slot) {
        want = desired[i];
        break;
      }
    }
    const held = want !== undefined && withinTolerance(t, want.order, tol, nowSec) ? Math.max(0, t.remaining - want.order.size) : t.remaining;
    if (t.planned.outcomeIndex === Outcome.YES) yes += held;
    else no += held;
  }
  return { yes, no };
}
