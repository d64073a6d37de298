/**
 * Packs diff actions into venue calls (the fewest venue calls).
 *
 * Entry point: `planCalls(actions, batchLimit)` → `VenueCall[]`.
 * - exactly one replace and nothing else → one cancel-replace call;
 * - anything else → mixed bulk calls of at most `batchLimit` operations each, a replace's cancel
 *   and create always in the same call (so a slot is never left empty across two calls), cancels
 *   in the first calls.
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
