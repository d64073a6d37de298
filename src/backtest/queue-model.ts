/**
 * Queue-position models: where our resting order stands in the recorded queue at its price, and how
 * much of a recorded trade reaches it. The recorded book never contains our own order,
 * so `ahead` is the recorded size still in front of us, in 1e-6 shares.
 *
 * The rule (all models):
 * - Joining: an order that starts resting at price p joins behind everything recorded at p on its
 *   side: ahead = the level's recorded size (none when we improve the price).
 * - A recorded trade at p on our side (a taker sell for our bid, a taker buy for our ask) consumes
 *   the queue in order: the first `ahead` shares go to those in front, the excess fills us
 *   (filled = max(0, tradeSize − ahead)); then ahead = max(0, ahead − tradeSize).
 * - A trade beyond p (a sell below our bid, a buy above our ask) swept our level: we fill in full
 *   (the caller handles that, as it does a book that crosses our price).
 * - Level size increases join behind us: ahead is unchanged.
 * - Level size decreases: the part explained by trades at p already counted (`credit`) is not
 *   counted again (a venue that prints a trade and then shrinks the level would otherwise advance
 *   us twice). The unexplained rest, `d`, is a cancel somewhere in the queue:
 *     'level'          all of it was ahead of us: ahead −= d (the documented default; optimistic)
 *     'risk-averse'    none of it was ahead of us: only trades advance us
 *     'probabilistic'  the share of d ahead of us is f(ahead)/(f(ahead)+f(behind)), f(x) = x^n
 *                      (hftbacktest's power probability queue; n = 2 by default), applied in
 *                      expectation so runs stay deterministic
 *   In every model ahead ≤ the new level size (the queue in front cannot be longer than the level).
 * - 'none' (fast mode, sweeps): no queue at all, we are always at the front (ahead = 0).
 */
import { BadInputError } from '../model/errors.ts';

export const QUEUE_MODELS = ['level', 'risk-averse', 'probabilistic', 'none'] as const;
export type QueueModelName = (typeof QUEUE_MODELS)[number];

export interface QueueState {
  /** recorded shares in front of us at our price, 1e-6 */
  ahead: number;
  /** trade volume at our price not yet matched by a recorded level decrease, 1e-6 */
  credit: number;
}

export interface QueueModel {
  readonly name: QueueModelName;
  /** queue position when an order starts resting behind `levelSize` recorded shares */
  join(levelSize: number): QueueState;
  /** a trade of `size` at our price on our side; returns the shares that reach us (before capping at our remaining) */
  onTrade(q: QueueState, size: number): number;
  /** the recorded level at our price changed from `prev` to `next` */
  onLevel(q: QueueState, prev: number, next: number): void;
}

function tradeThrough(q: QueueState, size: number): number {
  const reach = Math.max(0, size - q.ahead);
  q.ahead = Math.max(0, q.ahead - size);
  q.credit += size;
  return reach;
}

/** Unexplained decrease of a level, after using up trade credit. */
function unexplained(q: QueueState, prev: number, next: number): number {
  const d = prev - next;
  if (d <= 0) return 0;
  const used = Math.min(d, q.credit);
  q.credit -= used;
  return d - used;
}

export function queueModel(name: QueueModelName, power = 2): QueueModel {
  if (!(QUEUE_MODELS as readonly string[]).includes(name)) throw new BadInputError('queueModel', `one of ${QUEUE_MODELS.join(', ')}`, name);
  if (!Number.isFinite(power) || power <= 0 || power > 10) throw new BadInputError('queuePower', 'a number in (0, 10]', power);
  if (name === 'none') {
    return {
      name,
      join: () => ({ ahead: 0, credit: 0 }),
      onTrade: (_q, size) => size,
      onLevel: () => undefined,
    };
  }
  const onLevel = (q: QueueState, prev: number, next: number): void => {
    const d = unexplained(q, prev, next);
    if (d > 0 && q.ahead > 0) {
      if (name === 'level') q.ahead -= d;
      else if (name === 'probabilistic') {
        const behind = Math.max(0, prev - q.ahead);
        const fa = Math.pow(q.ahead, power);
        const fb = Math.pow(behind, power);
        // whole units, rounded toward keeping us back in the queue: a fractional queue position
        // would make fractional fills, which no venue (and no bigint ledger) can book
        q.ahead -= fa + fb > 0 ? Math.floor((d * fa) / (fa + fb)) : d;
      }
    }
    q.ahead = Math.max(0, Math.min(q.ahead, next));
  };
  return { name, join: (levelSize) => ({ ahead: Math.max(0, levelSize), credit: 0 }), onTrade: tradeThrough, onLevel };
}
