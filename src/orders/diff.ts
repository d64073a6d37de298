/**
 * The pure diff of desired quotes against the orders we already have (docs/architecture.md#the-pipeline).
 *
 * Entry point: `diff(desired, tracked, tolerances, nowSec)` → `DiffAction[]`, the minimal set of
 * creates, cancels and one-for-one replaces. Nothing here does I/O or reads a clock.
 *
 * Slots: every desired order names a slot (e.g. "<market>:bid:0"); the order manager keeps at most
 * one order per slot. A slot with any order still in flight (create or cancel not yet answered, or
 * an answer we could not read) is left alone until the venue answers, which is what guarantees we
 * never hold two orders for one slot.
 */
import { BadInputError } from '../model/errors.ts';
import type { Bytes32, LimitOrder } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';

/** What the strategy (via to-orders) wants resting in a slot. */
export interface DesiredOrder {
  readonly slot: string;
  readonly order: LimitOrder;
  /**
   * The live order (nonce) the risk gate took this quote as: it was counted once, as that order, so
   * the order manager may keep or cancel that order for it but never create (a replace, e.g. a
   * dead-man refresh or a change of venue form, goes out as its cancel; the next tick, which
   * counts the quote as new, places it).
   */
  readonly keeps?: Bytes32;
}

/**
 * - pending-create: sent, no answer yet (or a retryable failure: it may have landed).
 * - working: the venue holds it.
 * - pending-cancel: cancel sent, no answer yet.
 */
export type TrackedState = 'pending-create' | 'working' | 'pending-cancel';

export interface TrackedOrder {
  readonly slot: string;
  readonly planned: PlannedOrder;
  /** remaining size, 1e-6 shares */
  readonly remaining: number;
  readonly state: TrackedState;
  /** clock ms when the last request about this order was sent (or when it was adopted) */
  readonly sentAt: number;
}

export interface Tolerances {
  /** keep an order whose price is within this many price units of the desired price */
  readonly price: number;
  /** keep an order whose remaining size is within this fraction of the desired size (0.1 = 10 %) */
  readonly sizeFraction: number;
  /** …or within this absolute size (1e-6 shares), whichever is larger */
  readonly sizeAbs?: number;
  /** dead-man: replace an order whose expiry (unix s) is closer than this many seconds */
  readonly refreshBeforeSec?: number;
}

export type DiffAction =
  | { readonly kind: 'create'; readonly slot: string; readonly desired: DesiredOrder }
  | { readonly kind: 'cancel'; readonly slot: string; readonly cancel: TrackedOrder }
  | { readonly kind: 'replace'; readonly slot: string; readonly cancel: TrackedOrder; readonly desired: DesiredOrder };

/** Settlement V2 order kind (docs/venue.md#from-a-limit-order-to-a-v2-order): buys are 0, sells 2 with mode 2, otherwise 1. */
export function orderKindOf(o: Pick<LimitOrder, 'side' | 'inventoryMode'>): 0 | 1 | 2 {
  if (o.side === 0) return 0;
  return o.inventoryMode === 2 ? 2 : 1;
}

/** Same venue order kind: only price and size may differ for an order to be kept or moved. */
export function sameKind(a: LimitOrder, b: LimitOrder): boolean {
  return (
    (a.marketId === b.marketId || a.marketId === b.marketId) && a.outcomeIndex === b.outcomeIndex && a.side === b.side && orderKindOf(a) === orderKindOf(b)
  );
}

/** True when `t` can stay where it is for `d` (no churn for noise). */
export function withinTolerance(t: TrackedOrder, d: LimitOrder, tol: Tolerances, nowSec: number): boolean {
  if (!sameKind(t.planned, d)) return false;
  if (Math.abs(t.planned.price - d.price) > tol.price) return false;
  const sizeSlack = Math.max(tol.sizeAbs ?? 0, Math.floor(d.size * tol.sizeFraction));
  if (Math.abs(t.remaining - d.size) > sizeSlack) return false;
  if (refreshDue(t, tol, nowSec)) return false;
  return true;
}

/** The order's expiry is within the refresh margin (dead-man orders are replaced before they expire). */
export function refreshDue(t: TrackedOrder, tol: Tolerances, nowSec: number): boolean {
  return tol.refreshBeforeSec !== undefined && t.planned.expiry !== undefined && t.planned.expiry - nowSec <= tol.refreshBeforeSec;
}

/** Throws on the first desired slot named twice (the error names its index). */
function checkSlotsUnique(desired: readonly DesiredOrder[]): void {
  for (let i = 1; i < desired.length; i++) {
    const slot = desired[i]!.slot;
    for (let j = 0; j < i; j++) if (desired[j]!.slot === slot) throw new BadInputError(`desired[${i}].slot`, 'a slot named once', slot);
  }
}

function indexDesired(desired: readonly DesiredOrder[]): Map<string, DesiredOrder> {
  const bySlot = new Map<string, DesiredOrder>();
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    if (bySlot.has(d.slot)) throw new BadInputError(`desired[${i}].slot`, 'a slot named once', d.slot);
    bySlot.set(d.slot, d);
  }
  return bySlot;
}

function indexTracked(tracked: readonly TrackedOrder[]): Map<string, TrackedOrder[]> {
  const bySlot = new Map<string, TrackedOrder[]>();
  for (const t of tracked) {
    const list = bySlot.get(t.slot);
    if (list) list.push(t);
    else bySlot.set(t.slot, [t]);
  }
  return bySlot;
}

/** Actions for one slot, appended to `out`; nothing when the slot is busy or already right. */
function diffSlot(slot: string, want: DesiredOrder | undefined, have: readonly TrackedOrder[], tol: Tolerances, nowSec: number, out: DiffAction[]): void {
  for (let i = 0; i < have.length; i++) if (have[i]!.state !== 'working') return;
  if (!want) {
    for (let i = 0; i < have.length; i++) out.push({ kind: 'cancel', slot, cancel: have[i]! });
    return;
  }
  if (have.length === 0) {
    out.push({ kind: 'create', slot, desired: want });
    return;
  }
  let keepIdx = -1;
  for (let i = 0; i < have.length; i++) {
    if (withinTolerance(have[i]!, want.order, tol, nowSec)) {
      keepIdx = i;
      break;
    }
  }
  // Extra orders in one slot (seen only after adoption) are cancelled; the first one is moved.
  const moveIdx = keepIdx >= 0 ? -1 : 0;
  for (let i = 0; i < have.length; i++) {
    if (i === keepIdx) continue;
    if (i === moveIdx) out.push({ kind: 'replace', slot, cancel: have[i]!, desired: want });
    else out.push({ kind: 'cancel', slot, cancel: have[i]! });
  }
}

const RANK: Record<DiffAction['kind'], number> = { cancel: 0, replace: 1, create: 2 };

/** Stable by kind (cancels, then replaces, then creates); a list already in that order is returned as is. */
function byKind(actions: DiffAction[]): DiffAction[] {
  for (let i = 1; i < actions.length; i++) {
    if (RANK[actions[i]!.kind] < RANK[actions[i - 1]!.kind]) {
      const out: DiffAction[] = [];
      for (const kind of ['cancel', 'replace', 'create'] as const) for (const a of actions) if (a.kind === kind) out.push(a);
      return out;
    }
  }
  return actions;
}

/** Above this many desired + tracked orders the slot index uses Maps; below, linear scans are cheaper. */
const SMALL = 16;

/**
 * Minimal actions turning `tracked` into `desired`. Order of the result: cancels first (they only
 * reduce risk), then replaces, then creates; slots sorted so the output is deterministic.
 */
export function diff(desired: readonly DesiredOrder[], tracked: readonly TrackedOrder[], tol: Tolerances, nowSec: number): DiffAction[] {
  const out: DiffAction[] = [];
  if (desired.length + tracked.length <= SMALL) diffSmall(desired, tracked, tol, nowSec, out);
  else {
    const want = indexDesired(desired);
    const have = indexTracked(tracked);
    const slots = [...new Set([...want.keys(), ...have.keys()])].sort();
    for (const slot of slots) diffSlot(slot, want.get(slot), have.get(slot) ?? NONE, tol, nowSec, out);
  }
  return byKind(out);
}

const NONE: readonly TrackedOrder[] = [];

/**
 * `diff(desired, tracked, tol, nowSec).length === 0`, without building anything: every desired
 * slot holds one working order within tolerance, or an order still in flight; every other slot
 * with orders has one in flight. A slot named twice is diff's error to raise: false here.
 *
 * It runs on every tick of every quoting market (OrderManager.settledNow), so each desired slot's
 * orders are found in one pass over the tracked ones (their count, whether one is in flight, and
 * which tracked orders a desired slot takes, as bits of a number), and only an order no desired slot
 * takes has its slot's orders looked at again: a slot name is a market id and more, and a compare of
 * two of them costs ~10 ns. Beyond WANTED_BITS tracked orders, the same answer by plain scans.
 */
export function diffIsEmpty(desired: readonly DesiredOrder[], tracked: readonly TrackedOrder[], tol: Tolerances, nowSec: number): boolean {
  for (let i = 1; i < desired.length; i++) {
    const slot = desired[i]!.slot;
    for (let j = 0; j < i; j++) if (desired[j]!.slot === slot) return false;
  }
  if (tracked.length > WANTED_BITS) return diffIsEmptyWide(desired, tracked, tol, nowSec);
  let wanted = 0;
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    let n = 0;
    let only: TrackedOrder | undefined;
    let busy = false;
    for (let j = 0; j < tracked.length; j++) {
      const t = tracked[j]!;
      if (t.slot !== d.slot) continue;
      n++;
      only = t;
      if (t.state !== 'working') busy = true;
      wanted |= 1 << j;
    }
    if (busy) continue;
    if (n !== 1 || !withinTolerance(only!, d.order, tol, nowSec)) return false;
  }
  for (let j = 0; j < tracked.length; j++) if ((wanted & (1 << j)) === 0 && !slotBusy(tracked, tracked[j]!.slot)) return false;
  return true;
}

/** tracked orders diffIsEmpty marks as wanted in the bits of one number */
const WANTED_BITS = 30;

/** diffIsEmpty by plain scans (more tracked orders than bits), the desired slots known distinct. */
function diffIsEmptyWide(desired: readonly DesiredOrder[], tracked: readonly TrackedOrder[], tol: Tolerances, nowSec: number): boolean {
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    let n = 0;
    let only: TrackedOrder | undefined;
    if (slotBusy(tracked, d.slot)) continue;
    for (let j = 0; j < tracked.length; j++) {
      if (tracked[j]!.slot !== d.slot) continue;
      n++;
      only = tracked[j];
    }
    if (n !== 1 || !withinTolerance(only!, d.order, tol, nowSec)) return false;
  }
  for (let j = 0; j < tracked.length; j++) {
    const slot = tracked[j]!.slot;
    let wanted = false;
    for (let i = 0; i < desired.length && !wanted; i++) wanted = desired[i]!.slot === slot;
    if (!wanted && !slotBusy(tracked, slot)) return false;
  }
  return true;
}

/** Some order of the slot is still in flight: diffSlot leaves the slot alone. */
function slotBusy(tracked: readonly TrackedOrder[], slot: string): boolean {
  for (let j = 0; j < tracked.length; j++) if (tracked[j]!.slot === slot && tracked[j]!.state !== 'working') return true;
  return false;
}

/**
 * The per-tick case (a market's few quotes): the same slots in the same sorted order as the Map path,
 * found by linear scans, with no Map, Set or per-slot list unless a slot really holds two orders.
 */
function diffSmall(desired: readonly DesiredOrder[], tracked: readonly TrackedOrder[], tol: Tolerances, nowSec: number, out: DiffAction[]): void {
  checkSlotsUnique(desired);
  const slots: string[] = [];
  for (let i = 0; i < desired.length; i++) slots.push(desired[i]!.slot);
  for (let i = 0; i < tracked.length; i++) {
    const slot = tracked[i]!.slot;
    if (!slots.includes(slot)) slots.push(slot);
  }
  if (slots.length > 1) sortStrings(slots);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    let want: DesiredOrder | undefined;
    for (let i = 0; i < desired.length; i++) {
      if (desired[i]!.slot === slot) {
        want = desired[i];
        break;
      }
    }
    let have: TrackedOrder[] | readonly TrackedOrder[] = NONE;
    let first: TrackedOrder | undefined;
    for (let i = 0; i < tracked.length; i++) {
      const t = tracked[i]!;
      if (t.slot !== slot) continue;
      if (first === undefined) {
        first = t;
        have = [t];
      } else (have as TrackedOrder[]).push(t);
    }
    diffSlot(slot, want, have, tol, nowSec, out);
  }
}

/**
 * In-place ascending sort of a few distinct strings by UTF-16 code units, which is what the default
 * Array#sort does for strings, without its set-up and scratch allocation. Anything that is not a
 * string takes the builtin (it orders undefined and other values its own way).
 */
function sortStrings(a: string[]): void {
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'string') {
      a.sort();
      return;
    }
  }
  for (let i = 1; i < a.length; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= 0 && a[j]! > x) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
}
