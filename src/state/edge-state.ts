/**
 * Per-market edge measures kept by the store (pure: time comes in on the events):
 *
 * - markouts: for every own fill, the mid's move against it at each horizon (1 s … 300 s by
 *   default): (mid(t + h) − price) for a YES-terms buy, (price − mid(t + h)) for a sell, in 1e-6 USDC
 *   per share, summed size-weighted per horizon. A fill waits in `pending` until the first event of
 *   its market at or after t + h; the mid then in force (the state's mid before that event) is the
 *   mid at t + h, since the mid only changes on the market's own book events.
 * - toxicity: a decayed, size-weighted average of those markouts at one horizon (10 s by default;
 *   negative = the flow we trade with is informed), with the decayed count of fills behind it.
 * - taker-flow imbalance: decayed (buy − sell) / (buy + sell) taker volume of the market's trades.
 * - regime triggers: an event (a mid jump, an oracle jump or a burst of volume) holds the event
 *   regime for `eventHoldMs`; `trending` records whether the mid's move over `trendWindowMs` was a
 *   trend at the last mid change (the hysteresis state of ./regime.ts).
 * - the exact PnL attribution of the fills (./pnl-attribution.ts).
 *
 * Entry points: `emptyEdge(settings)`, and the reducer's hooks `onFillEdge`, `onTradeEdge`,
 * `onMidEdge`, `onOracleEdge`, `settleMarkouts`; `regimeOf` (./regime.ts) turns the state into a
 * regime.
 */
import type { MidSample } from '../strategy/types.ts';
import type { Regime } from '../strategy/types.ts';
import type { EdgeSettings } from './edge-settings.ts';
import { addFill, NO_ATTRIBUTION, resolveAt, type AttributionState } from './pnl-attribution.ts';

export interface PendingMarkout {
  readonly ts: number;
  /** +1 a YES-terms buy, −1 a sell */
  readonly sign: 1 | -1;
  readonly price: number;
  readonly size: number;
  /** index of the next horizon to settle */
  readonly next: number;
}

/** Markouts settled at one horizon: Σ edge × shares (1e-6 USDC per share × shares), Σ shares, fills. */
export interface MarkoutSums {
  readonly edge: number;
  readonly size: number;
  readonly n: number;
}

export type EventCause = 'mid-jump' | 'oracle-jump' | 'volume-burst';

export interface EdgeState {
  readonly settings: EdgeSettings;
  readonly pending: readonly PendingMarkout[];
  /** earliest time a pending markout is due (Infinity: none) */
  readonly nextDue: number;
  /** per horizon of settings.markoutHorizonsMs */
  readonly markouts: readonly MarkoutSums[];
  /** fills dropped from `pending` beyond maxPending (their later horizons never settle) */
  readonly droppedPending: number;
  /** decayed Σ markout × size, Σ size and fill count at the toxicity horizon, as of toxTs */
  readonly toxNum: number;
  readonly toxDen: number;
  readonly toxCount: number;
  readonly toxTs: number;
  /** decayed signed and total taker volume (shares), as of flowTs */
  readonly flowNum: number;
  readonly flowDen: number;
  readonly flowTs: number;
  /** decayed trade volume (shares) with the fast and slow half-lives, as of volTs */
  readonly volFast: number;
  readonly volSlow: number;
  readonly volTs: number;
  readonly lastOracle: number | null;
  readonly eventUntil: number;
  readonly eventCause: EventCause | null;
  readonly trending: boolean;
  /** the regime as of the market's last event, when it began, and the count of changes */
  readonly regime: Regime;
  readonly regimeSince: number;
  readonly transitions: number;
  readonly attribution: AttributionState;
}

const KEYS_TEMPLATE = (s: EdgeSettings): MarkoutSums[] => s.markoutHorizonsMs.map(() => ZERO_SUMS);
const ZERO_SUMS: MarkoutSums = { edge: 0, size: 0, n: 0 };

export function emptyEdge(settings: EdgeSettings): EdgeState {
  return {
    settings,
    pending: [],
    nextDue: Infinity,
    markouts: KEYS_TEMPLATE(settings),
    droppedPending: 0,
    toxNum: 0,
    toxDen: 0,
    toxCount: 0,
    toxTs: 0,
    flowNum: 0,
    flowDen: 0,
    flowTs: 0,
    volFast: 0,
    volSlow: 0,
    volTs: 0,
    lastOracle: null,
    eventUntil: -Infinity,
    eventCause: null,
    trending: false,
    regime: 'quiet',
    regimeSince: 0,
    transitions: 0,
    attribution: NO_ATTRIBUTION,
  };
}

/** Weight left after `dt` ms with half-life `h` (1 for dt ≤ 0). */
export const decay = (dt: number, h: number): number => (dt <= 0 ? 1 : Math.pow(0.5, dt / h));

/**
 * A copy of `e` with the fields of `c` replaced: one explicit literal (a spread of this many fields
 * takes V8's slow path; see marketWith in ./market-state.ts). No field of EdgeState is ever
 * undefined, so `undefined` in `c` means "keep".
 */
export function edgeWith(e: EdgeState, c: Partial<EdgeState>): EdgeState {
  return {
    settings: c.settings === undefined ? e.settings : c.settings,
    pending: c.pending === undefined ? e.pending : c.pending,
    nextDue: c.nextDue === undefined ? e.nextDue : c.nextDue,
    markouts: c.markouts === undefined ? e.markouts : c.markouts,
    droppedPending: c.droppedPending === undefined ? e.droppedPending : c.droppedPending,
    toxNum: c.toxNum === undefined ? e.toxNum : c.toxNum,
    toxDen: c.toxDen === undefined ? e.toxDen : c.toxDen,
    toxCount: c.toxCount === undefined ? e.toxCount : c.toxCount,
    toxTs: c.toxTs === undefined ? e.toxTs : c.toxTs,
    flowNum: c.flowNum === undefined ? e.flowNum : c.flowNum,
    flowDen: c.flowDen === undefined ? e.flowDen : c.flowDen,
    flowTs: c.flowTs === undefined ? e.flowTs : c.flowTs,
    volFast: c.volFast === undefined ? e.volFast : c.volFast,
    volSlow: c.volSlow === undefined ? e.volSlow : c.volSlow,
    volTs: c.volTs === undefined ? e.volTs : c.volTs,
    lastOracle: c.lastOracle === undefined ? e.lastOracle : c.lastOracle,
    eventUntil: c.eventUntil === undefined ? e.eventUntil : c.eventUntil,
    eventCause: c.eventCause === undefined ? e.eventCause : c.eventCause,
    trending: c.trending === undefined ? e.trending : c.trending,
    regime: c.regime === undefined ? e.regime : c.regime,
    regimeSince: c.regimeSince === undefined ? e.regimeSince : c.regimeSince,
    transitions: c.transitions === undefined ? e.transitions : c.transitions,
    attribution: c.attribution === undefined ? e.attribution : c.attribution,
  };
}

/**
 * Settle every pending markout due at or before `now` with `mid2` (twice the mid in force; null: no
 * two-sided book, the markout waits for the next event with one).
 */
export function settleMarkouts(e: EdgeState, now: number, mid2: number | null): EdgeState {
  if (e.nextDue > now || mid2 === null) return e;
  const hs = e.settings.markoutHorizonsMs;
  const toxIdx = hs.indexOf(e.settings.toxicityHorizonMs);
  const mid = mid2 / 2;
  const sums = e.markouts.slice();
  let { toxNum, toxDen, toxCount, toxTs } = e;
  const keep: PendingMarkout[] = [];
  let nextDue = Infinity;
  for (const p of e.pending) {
    let k = p.next;
    while (k < hs.length && p.ts + hs[k]! <= now) {
      const edge = p.sign * (mid - p.price);
      const shares = p.size / 1e6;
      const s = sums[k]!;
      sums[k] = { edge: s.edge + edge * shares, size: s.size + shares, n: s.n + 1 };
      if (k === toxIdx) {
        const at = p.ts + hs[k]!;
        const d = decay(at - toxTs, e.settings.toxicityHalfLifeMs);
        toxNum = toxNum * d + edge * shares;
        toxDen = toxDen * d + shares;
        toxCount = toxCount * d + 1;
        toxTs = Math.max(toxTs, at);
      }
      k++;
    }
    if (k < hs.length) {
      keep.push(k === p.next ? p : { ts: p.ts, sign: p.sign, price: p.price, size: p.size, next: k });
      nextDue = Math.min(nextDue, p.ts + hs[k]!);
    }
  }
  return edgeWith(e, { pending: keep, nextDue, markouts: sums, toxNum, toxDen, toxCount, toxTs });
}

/** An own fill: queue its markouts, fold its attribution. `mid2` = twice the mid just before it. */
export function onFillEdge(e: EdgeState, ts: number, qty: number, yesPrice: number, fee: number, mid2: number | null): EdgeState {
  const attribution = addFill(e.attribution, { qty, price: yesPrice, fee }, mid2);
  if (qty === 0 || e.settings.markoutHorizonsMs.length === 0) return edgeWith(e, { attribution });
  const p: PendingMarkout = { ts, sign: qty > 0 ? 1 : -1, price: yesPrice, size: Math.abs(qty), next: 0 };
  let pending = e.pending;
  let dropped = e.droppedPending;
  if (pending.length >= e.settings.maxPending) {
    pending = pending.slice(pending.length - e.settings.maxPending + 1);
    dropped++;
  }
  return edgeWith(e, { attribution, pending: [...pending, p], nextDue: Math.min(e.nextDue, ts + e.settings.markoutHorizonsMs[0]!), droppedPending: dropped });
}

/** The market resolved: book the jump from the last mid to the payout in the attribution. */
export function onResolvedEdge(e: EdgeState, lastMid2: number | null, payoutYes: number): EdgeState {
  const attribution = resolveAt(e.attribution, lastMid2, payoutYes);
  return attribution === e.attribution ? e : edgeWith(e, { attribution });
}

/** A market trade: flow imbalance and the volume-burst detector. */
export function onTradeEdge(e: EdgeState, ts: number, size: number, takerBuys: boolean): EdgeState {
  const s = e.settings;
  const shares = size / 1e6;
  const df = decay(ts - e.flowTs, s.flowHalfLifeMs);
  const flowNum = e.flowNum * df + (takerBuys ? shares : -shares);
  const flowDen = e.flowDen * df + shares;
  const fast = e.volFast * decay(ts - e.volTs, s.burstFastMs) + shares;
  const slow = e.volSlow * decay(ts - e.volTs, s.burstSlowMs) + shares;
  const r = s.regime;
  // rates: a decayed sum over a half-life h holds ~h / ln 2 ms of volume
  const fastRate = fast / s.burstFastMs;
  const slowRate = slow / s.burstSlowMs;
  const burst = fast * 1e6 >= r.burstMinSize && fastRate >= r.burstFactor * slowRate;
  return edgeWith(e, {
    flowNum,
    flowDen,
    flowTs: Math.max(e.flowTs, ts),
    volFast: fast,
    volSlow: slow,
    volTs: Math.max(e.volTs, ts),
    // undefined keeps the field (edgeWith): no spread, no extra object per trade
    eventUntil: burst ? Math.max(e.eventUntil, ts + r.eventHoldMs) : undefined,
    eventCause: burst ? 'volume-burst' : undefined,
  });
}

/** The last mid sample at or before `t` (history oldest first), else the oldest; null when empty. */
export function midAtOrBefore(history: readonly MidSample[], t: number): number | null {
  if (history.length === 0) return null;
  let lo = 0;
  let hi = history.length - 1;
  let ans = 0;
  while (lo <= hi) {
    const k = (lo + hi) >> 1;
    if (history[k]!.ts <= t) {
      ans = k;
      lo = k + 1;
    } else hi = k - 1;
  }
  return history[ans]!.mid;
}

/**
 * The mid changed to `mid` (1e-6 USDC) at `ts`: mid-jump event and trend, against the sampled
 * history. Returns `e` itself when nothing changed (the hot path: most book events).
 */
export function onMidEdge(e: EdgeState, ts: number, mid: number, history: readonly MidSample[]): EdgeState {
  const r = e.settings.regime;
  const ref = midAtOrBefore(history, ts - r.midJumpWindowMs);
  const jump = ref !== null && Math.abs(mid - ref) >= r.midJump;
  const trendRef = midAtOrBefore(history, ts - r.trendWindowMs);
  const move = trendRef === null ? 0 : Math.abs(mid - trendRef);
  const trending = move >= r.trendMove || (e.trending && move >= r.trendMove / 2);
  if (!jump && trending === e.trending) return e;
  return edgeWith(e, { trending, eventUntil: jump ? Math.max(e.eventUntil, ts + r.eventHoldMs) : undefined, eventCause: jump ? 'mid-jump' : undefined });
}

/** A new oracle reading: an oracle jump is an event. */
export function onOracleEdge(e: EdgeState, ts: number, probability: number): EdgeState {
  const r = e.settings.regime;
  const jump = e.lastOracle !== null && Math.abs(probability - e.lastOracle) >= r.oracleJump;
  return edgeWith(e, { lastOracle: probability, eventUntil: jump ? Math.max(e.eventUntil, ts + r.eventHoldMs) : undefined, eventCause: jump ? 'oracle-jump' : undefined });
}
