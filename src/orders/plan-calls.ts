/**
 * Packs diff actions into venue calls (the fewest venue calls).
 *
 * Entry point: `planCalls(actions, batchLimit)` → `VenueCall[]`.
 * - exactly one replace and nothing else → one cancel-replace call;
 * - anything else → mixed bulk calls of at most `batchLimit` operations each, a replace's cancel
 *   and create always in the same call (so a slot is never left empty across two calls), cancels
 *   in the first calls.
 *
 * The rule of the last tokens (docs/architecture.md, "The pipeline"): a moved sell is one replace, so one
 * cancel-replace, while the bot holds tokens enough beyond it. A sell of the last tokens held of its outcome is
 * not moved sale to sale: its tokens stay reserved while it may still fill unseen (sell-reserve.ts), so the diff
 * gets a replace into a buy of the other outcome (one cancel-replace here); once its end is known the quote is
 * a sale again, and the order manager sends a change of venue form of an order the risk gate kept as its cancel
 * alone (order-manager.ts withoutCreateForKept), the create following at the next tick: three calls for the move.
 */
import { BadInputError } from '../model/errors.ts';
import type { DiffAction } from './diff.ts';

export type VenueCall =
  | { readonly kind: 'cancel-replace'; readonly action: Extract<DiffAction, { kind: 'replace' }> }
  | { readonly kind: 'batch'; readonly actions: readonly DiffAction[] };

/** Operations an action costs in a bulk call. */
export function opsOf(a: DiffAction): number {
  return a.kind === 'replace' ? 2 : 1;
}

export function planCalls(actions: readonly DiffAction[], batchLimit: number): VenueCall[] {
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 2) throw new BadInputError('batchLimit', 'an integer >= 2', batchLimit);
  if (actions.length === 0) return [];
  if (actions.length === 1 && actions[0]!.kind === 'replace') return [{ kind: 'cancel-replace', action: actions[0]! }];
  const calls: VenueCall[] = [];
  let current: DiffAction[] = [];
  let ops = 0;
  for (const a of actions) {
    const n = opsOf(a);
    if (ops + n > batchLimit) {
      calls.push({ kind: 'batch', actions: current });
      current = [];
      ops = 0;
    }
    current.push(a);
    ops += n;
  }
  if (current.length > 0) calls.push({ kind: 'batch', actions: current });
  return calls;
}
