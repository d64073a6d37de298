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
import type { MidSeries, Regime } from '../strategy/types.ts';
import { decay, midAtOrBefore, type EdgeState, type EventCause } from './edge-state.ts';

export interface RegimeInputs {
  readonly status: string;
  readonly blocked: 'migration' | 'halted' | null;
  readonly deadline: number | null;
  /** twice the last mid, and the sampled mid history (oldest first) */
  readonly lastMid2: number | null;
  readonly midHistory: MidSeries;
  readonly edge: EdgeState;
}

export interface RegimeReading {
  readonly regime: Regime;
  /** what put the market there: status, blocked, deadline, toxicity, mid-jump, oracle-jump, volume-burst, mid-move, flow; null when quiet */
  readonly cause: string | null;
}

/*
 * Every reading there can be, built once: regimeOf runs on every market event in the reducer and on
 * every view, and must not allocate (a market in the event or trending regime would otherwise make
 * a reading per book delta).
 */
const reading = (regime: Regime, cause: string | null): RegimeReading => Object.freeze({ regime, cause });
const QUIET = reading('quiet', null);
const HALTED_STATUS = reading('halted', 'status');
const HALTED_BY: Readonly<Record<'migration' | 'halted', RegimeReading>> = { migration: reading('halted', 'migration'), halted: reading('halted', 'halted') };
const REDUCE_DEADLINE = reading('reduce-only', 'deadline');
const REDUCE_TOXICITY = reading('reduce-only', 'toxicity');
const EVENT_BY: Readonly<Record<EventCause, RegimeReading>> = {
  'mid-jump': reading('event', 'mid-jump'),
  'oracle-jump': reading('event', 'oracle-jump'),
  'volume-burst': reading('event', 'volume-burst'),
};
const EVENT_UNKNOWN = reading('event', null);
const TRENDING_MOVE = reading('trending', 'mid-move');
const TRENDING_FLOW = reading('trending', 'flow');

/** The decayed toxicity average at `now` (1e-6 USDC per share) and the fills' weight behind it. */
export function toxicityAt(e: EdgeState, now: number): { markout: number | null; weight: number } {
  if (e.toxDen <= 0) return { markout: null, weight: 0 };
  return { markout: e.toxNum / e.toxDen, weight: toxicityWeight(e, now) };
}

/** The decayed count of fills behind the toxicity average at `now` (0 without any). */
export function toxicityWeight(e: EdgeState, now: number): number {
  return e.toxDen <= 0 ? 0 : e.toxCount * decay(now - e.toxTs, e.settings.toxicityHalfLifeMs);
}

export function regimeOf(m: RegimeInputs, now: number): RegimeReading {
  if (m.status !== 'active') return HALTED_STATUS;
  if (m.blocked !== null) return HALTED_BY[m.blocked];
  const e = m.edge;
  const r = e.settings.regime;
  if (r.reduceOnlyBeforeDeadlineMs > 0 && m.deadline !== null && m.deadline - now <= r.reduceOnlyBeforeDeadlineMs) return REDUCE_DEADLINE;
  if (r.reduceOnlyMarkout > 0 && e.toxDen > 0) {
    const markout = e.toxNum / e.toxDen;
    // the average first: the weight's decay (a pow) only when the average is toxic enough
    if (markout <= -r.reduceOnlyMarkout && toxicityWeight(e, now) >= r.minFills) return REDUCE_TOXICITY;
  }
  if (now < e.eventUntil) return e.eventCause === null ? EVENT_UNKNOWN : EVENT_BY[e.eventCause];
  if (moveTrend(m, now)) return TRENDING_MOVE;
  if (e.flowDen > 0 && Math.abs(e.flowNum / e.flowDen) >= r.trendImbalance) return TRENDING_FLOW;
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
