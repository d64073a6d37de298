/**
 * A market's regime from its state at `now` (pure). First match wins:
 *
 *   halted       the market is not active (pending, closed, resolved) or trading is blocked (halt,
 *                migration)
 *   reduce-only  within `reduceOnlyBeforeDeadlineMs` of the deadline, or our own decayed markout at
 *                the toxicity horizon is at or below −`reduceOnlyMarkout` with at least `minFills`
 *                fills' (decayed) weight behind it
 *   event        within `eventHoldMs` of a mid jump, an oracle jump or a volume burst
 *   trending     the mid is `trendMove` away from the mid `trendWindowMs` ago (once trending, until
 *                it is less than half of that: hysteresis, updated at each mid change), or the
 *                decayed taker flow is one-way beyond `trendImbalance`
 *   quiet        otherwise
 *
 * Thresholds: src/state/edge-settings.ts (config `edge.regime`).
 */
import type { Regime } from '../strategy/types.ts';
import type { MidSample } from '../strategy/types.ts';
import { decay, midAtOrBefore, type EdgeState } from './edge-state.ts';

export interface RegimeInputs {
  readonly status: string;
  readonly blocked: 'migration' | 'halted' | null;
  readonly deadline: number | null;
  /** twice the last mid, and the sampled mid history (oldest first) */
  readonly lastMid2: number | null;
  readonly midHistory: readonly MidSample[];
  readonly edge: EdgeState;
}

export interface RegimeReading {
  readonly regime: Regime;
  /** what put the market there: status, blocked, deadline, toxicity, mid-jump, oracle-jump, volume-burst, mid-move, flow; null when quiet */
  readonly cause: string | null;
}

const QUIET: RegimeReading = { regime: 'quiet', cause: null };

/** The decayed toxicity average at `now` (1e-6 USDC per share) and the fills' weight behind it. */
export function toxicityAt(e: EdgeState, now: number): { markout: number | null; weight: number } {
  if (e.toxDen <= 0) return { markout: null, weight: 0 };
  return { markout: e.toxNum / e.toxDen, weight: e.toxCount * decay(now - e.toxTs, e.settings.toxicityHalfLifeMs) };
}

export function regimeOf(m: RegimeInputs, now: number): RegimeReading {
  if (m.status !== 'active') return { regime: 'halted', cause: 'status' };
  if (m.blocked !== null) return { regime: 'halted', cause: m.blocked };
  const e = m.edge;
  const r = e.settings.regime;
  if (r.reduceOnlyBeforeDeadlineMs > 0 && m.deadline !== null && m.deadline - now <= r.reduceOnlyBeforeDeadlineMs) return { regime: 'reduce-only', cause: 'deadline' };
  if (r.reduceOnlyMarkout > 0 && e.toxDen > 0) {
    const t = toxicityAt(e, now);
    if (t.markout !== null && t.weight >= r.minFills && t.markout <= -r.reduceOnlyMarkout) return { regime: 'reduce-only', cause: 'toxicity' };
  }
  if (now < e.eventUntil) return { regime: 'event', cause: e.eventCause };
  if (moveTrend(m, now)) return { regime: 'trending', cause: 'mid-move' };
  if (e.flowDen > 0 && Math.abs(e.flowNum / e.flowDen) >= r.trendImbalance) return { regime: 'trending', cause: 'flow' };
  return QUIET;
}

/** The mid moved `trendMove` over the trend window (half of it while a trend is on: hysteresis). */
function moveTrend(m: RegimeInputs, now: number): boolean {
  if (m.lastMid2 === null) return false;
  const r = m.edge.settings.regime;
  const ref = midAtOrBefore(m.midHistory, now - r.trendWindowMs);
  if (ref === null) return false;
  const move = Math.abs(m.lastMid2 / 2 - ref);
  return move >= r.trendMove || (m.edge.trending && move >= r.trendMove / 2);
}
