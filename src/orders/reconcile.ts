/**
 * The pure half of reconciliation (docs/architecture.md#invariants "adopts or cancels every order it
 * finds; never quotes twice for the same slot").
 *
 * Entry point: `planReconcile(open, tracked, desired, tolerances, nowMs, settleMs)` → what to
 * confirm, adopt, cancel and forget. The order manager executes the plan.
 *
 * Rules:
 * - a tracked order the venue lists is confirmed working (unless we are cancelling it); the fills
 *   the listing shows are left to the fills feed (see countedShares in order-manager.ts);
 * - a tracked order the venue does not list is forgotten, except a create younger than `settleMs`,
 *   which may simply not be visible yet;
 * - an open order we do not track is adopted into a free desired slot when it matches that slot
 *   within tolerance (at most one per slot), and cancelled otherwise.
 */
import type { Bytes32, VenueOrder } from '../model/order.ts';
import { withinTolerance, type DesiredOrder, type Tolerances, type TrackedOrder } from './diff.ts';
import { plannedFromVenue } from './venue-order-shares.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';

export interface ReconcilePlan {
  readonly confirm: readonly Bytes32[];
  readonly adopt: readonly { readonly slot: string; readonly order: VenueOrder }[];
  readonly cancel: readonly VenueOrder[];
  readonly forget: readonly TrackedOrder[];
}

export function planReconcile(
  open: readonly VenueOrder[],
  tracked: readonly TrackedOrder[],
  desired: readonly DesiredOrder[],
  tol: Tolerances,
  nowMs: number,
  settleMs: number,
  fees: FeeSpec = NO_FEES,
): ReconcilePlan {
  const openByNonce = new Map<string, VenueOrder>();
  for (const o of open) if (o.status === 'open') openByNonce.set(o.nonce, o);

  const confirm: Bytes32[] = [];
  const forget: TrackedOrder[] = [];
  const occupied = new Set<string>();
  const trackedNonces = new Set<string>();
  for (const t of tracked) {
    trackedNonces.add(t.planned.nonce);
    const v = openByNonce.get(t.planned.nonce);
    if (v) {
      occupied.add(t.slot);
      if (t.state !== 'pending-cancel') confirm.push(t.planned.nonce);
    } else if (t.state === 'pending-create' && nowMs - t.sentAt < settleMs) {
      occupied.add(t.slot);
    } else {
      forget.push(t);
    }
  }

  const adopt: { slot: string; order: VenueOrder }[] = [];
  const cancel: VenueOrder[] = [];
  const nowSec = Math.floor(nowMs / 1000);
  const strangers = [...openByNonce.values()].filter((o) => !trackedNonces.has(o.nonce));
  strangers.sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
  for (const o of strangers) {
    const planned = plannedFromVenue(o, fees);
    const probe: TrackedOrder = { slot: '', planned, remaining: planned.size, state: 'working', sentAt: nowMs };
    const slot = desired.find((d) => !occupied.has(d.slot) && withinTolerance(probe, d.order, tol, nowSec))?.slot;
    if (slot === undefined) cancel.push(o);
    else {
      occupied.add(slot);
      adopt.push({ slot, order: o });
    }
  }
  return { confirm, adopt, cancel, forget };
}
