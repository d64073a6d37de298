/**
 * Per-market edge measures kept by the store (pure: time comes in on the events):
 *
 * - markouts: for every own fill, the mid's move against it at each horizon (1 s … 300 s by
 *   default): (mid(t + h) − price) for a YES-terms buy, (price − mid(t + h)) for a sell, in 1e-6 USDC
 *   per share, summed size-weighted per horizon. A fill waits in `pending` until the first event of
 *   its market at or after t + h; the mid then in force (the state's mid before that event) is the
 *   mid at t + h, since the mid only changes on the market's own book events.
 * - toxicity: a decayed, size-weighted average of those markouts at one horizon (10 s by default;
 *   negative = the flow we trade with is informed), with the decayed count of fills behind it, and
 *   the same sums over the picked-off fills alone (markout below −pickoffMarkout), for the guard's
 *   test (src/state/edge-view.ts toxicityStdErr).
 * - the account's pool (`ToxicitySums`, held by the store's state, not a market's): every market's
 *   markouts at the toxicity horizon folded the same way with the pool's own half-life, kept when a
 *   market resolves and is released, so the guard's evidence outlives a market
 *   (src/strategy/edge-adjust.ts; docs/edge.md, "The guard").
 * - the market's prints: the passive side of every trade of the market (the touch that was hit or
 *   lifted, whoever quoted it), marked out at the toxicity horizon like a fill (./pending-prints.ts
 *   holds them until then, a buffer slot each) and folded into decayed sums of the same shape as the
 *   pool's (`prints`, with its own half-life `printHalfLifeMs`): the market's print markout, the
 *   guard's evidence before the bot's own fills say anything (src/strategy/edge-adjust.ts).
 * - taker-flow imbalance: decayed (buy − sell) / (buy + sell) taker volume of the market's trades.
 * - regime triggers: an event (a mid jump, an oracle jump or a burst of volume) holds the event
 *   regime for `eventHoldMs`; `trending` records whether the mid's move over `trendWindowMs` was a
 *   trend at the last mid change (the hysteresis state of ./regime.ts).
 * - the exact PnL attribution of the fills (./pnl-attribution.ts).
 *
 * Entry points: `emptyEdge(settings)`, and the reducer's hooks `onFillEdge`, `onTradeEdge`,
 * `onMidEdge`, `onOracleEdge`, `settleMarkouts` (`settleMarkoutsPooled` with the account's pool); `regimeOf` (./regime.ts) turns the state into a
 * regime.
 */
import type { MidSeries } from '../strategy/types.ts';
import type { Regime } from '../strategy/types.ts';
import type { EdgeSettings } from './edge-settings.ts';
import { addFill, NO_ATTRIBUTION, resolveAt, type AttributionState } from './pnl-attribution.ts';
import { MidHistory } from './mid-history.ts';
import { PrintBuffer, printPrice, printSign, printSize, printTs, pushPrint } from './pending-prints.ts';

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
  /** earliest time a pending markout (a fill's or a print's) is due (Infinity: none) */
  readonly nextDue: number;
  /** earliest time a fill's pending markout is due (Infinity: none) */
  readonly fillDue: number;
  /** the prints waiting for their markout: slots [printHead, printTail) of printBuf (./pending-prints.ts), oldest first */
  readonly printBuf: PrintBuffer;
  readonly printHead: number;
  readonly printTail: number;
  /** when the oldest pending print is due (Infinity: none) */
  readonly printDue: number;
  /** prints dropped beyond maxPending before their markout */
  readonly droppedPrints: number;
  /** the prints' markouts at the toxicity horizon, decayed with printHalfLifeMs (the passive side's: sign × (mid − price)) */
  readonly prints: ToxicitySums;
  /** per horizon of settings.markoutHorizonsMs */
  readonly markouts: readonly MarkoutSums[];
  /** fills dropped from `pending` beyond maxPending (their later horizons never settle) */
  readonly droppedPending: number;
  /** decayed Σ markout × size, Σ size and fill count at the toxicity horizon, as of toxTs */
  readonly toxNum: number;
  readonly toxDen: number;
  readonly toxCount: number;
  /** decayed Σ markout² × size and Σ size² (weights decay twice as fast), for the average's standard error */
  readonly toxSq: number;
  readonly toxW2: number;
  /** the same Σ size, Σ markout × size and Σ markout² × size over the picked-off fills alone (markout below −settings.pickoffMarkout) */
  readonly toxPDen: number;
  readonly toxPNum: number;
  readonly toxPSq: number;
  readonly toxTs: number;
  /** this market's own share of the account's pool (the same markouts, the pool's half-life): what the pool holds beyond it is the other markets' */
  readonly pooled: ToxicitySums;
  /** decayed signed and total taker volume (shares), as of flowTs */
  readonly flowNum: number;
  readonly flowDen: number;
  readonly flowTs: number;
  /** decayed trade volume (shares) with the fast and slow half-lives, as of volTs */
  readonly volFast: number;
  readonly volSlow: number;
  readonly volTs: number;
  readonly lastOracle: number | null;
  /** running mean of |Δ| between consecutive oracle readings (probability), and how many went into it */
  readonly oracleNoise: number;
  readonly oracleDiffs: number;
  readonly eventUntil: number;
  readonly eventCause: EventCause | null;
  readonly trending: boolean;
  /** the regime as of the market's last event, when it began, and the count of changes */
  readonly regime: Regime;
  readonly regimeSince: number;
  readonly transitions: number;
  readonly attribution: AttributionState;
}

/**
 * Decayed sums of markouts at the toxicity horizon, as of `ts`: Σ size × markout, Σ size, the fill
 * count, Σ size × markout² and Σ size² (the last decaying twice as fast), markouts in 1e-6 USDC per
 * share and sizes in shares; pden / pnum / psq: Σ size, Σ size × markout and Σ size × markout² of
 * the picked-off fills alone (markout below −pickoffMarkout). The account's pool across its markets
 * (the store's `toxicityPool`).
 */
export interface ToxicitySums {
  readonly num: number;
  readonly den: number;
  readonly count: number;
  readonly sq: number;
  readonly w2: number;
  readonly pden: number;
  readonly pnum: number;
  readonly psq: number;
  readonly ts: number;
}

export const NO_TOXICITY: ToxicitySums = Object.freeze({ num: 0, den: 0, count: 0, sq: 0, w2: 0, pden: 0, pnum: 0, psq: 0, ts: 0 });

/**
 * `s` with one more markout `edge` of `shares` settled at `at`, older weights halved every
 * `halfLifeMs`; a picked-off fill (edge < −pickoff) is summed apart too.
 */
export function foldMarkout(s: ToxicitySums, at: number, edge: number, shares: number, halfLifeMs: number, pickoff: number): ToxicitySums {
  const d = decay(at - s.ts, halfLifeMs);
  const p = edge < -pickoff;
  return {
    num: s.num * d + edge * shares,
    den: s.den * d + shares,
    count: s.count * d + 1,
    sq: s.sq * d + edge * edge * shares,
    w2: s.w2 * d * d + shares * shares,
    pden: s.pden * d + (p ? shares : 0),
    pnum: s.pnum * d + (p ? edge * shares : 0),
    psq: s.psq * d + (p ? edge * edge * shares : 0),
    ts: Math.max(s.ts, at),
  };
}

const KEYS_TEMPLATE = (s: EdgeSettings): MarkoutSums[] => s.markoutHorizonsMs.map(() => ZERO_SUMS);
const ZERO_SUMS: MarkoutSums = { edge: 0, size: 0, n: 0 };

export function emptyEdge(settings: EdgeSettings): EdgeState {
  return {
    settings,
    pending: [],
    nextDue: Infinity,
    fillDue: Infinity,
    printBuf: PrintBuffer.EMPTY,
    printHead: 0,
    printTail: 0,
    printDue: Infinity,
    droppedPrints: 0,
    prints: NO_TOXICITY,
    markouts: KEYS_TEMPLATE(settings),
    droppedPending: 0,
    toxNum: 0,
    toxDen: 0,
    toxCount: 0,
    toxSq: 0,
    toxW2: 0,
    toxPDen: 0,
    toxPNum: 0,
    toxPSq: 0,
    toxTs: 0,
    pooled: NO_TOXICITY,
    flowNum: 0,
    flowDen: 0,
    flowTs: 0,
    volFast: 0,
    volSlow: 0,
    volTs: 0,
    lastOracle: null,
    oracleNoise: 0,
    oracleDiffs: 0,
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

/** EdgeState with writable fields: a fresh copy is filled in before anyone else sees it. */
type EdgeDraft = { -readonly [K in keyof EdgeState]: EdgeState[K] };

/**
 * A field-for-field copy of `e`, for an update to assign its changed fields to before returning it
 * (every update here goes through it).
 * One explicit literal read from one object shape: a spread of this many fields takes V8's slow
 * path (see marketWith in ./market-state.ts), and a `Partial` of changes read field by field is a
 * different object shape at every call site, which made each update (one per market trade) cost
 * ~1 µs of megamorphic loads.
 */
function copyEdge(e: EdgeState): EdgeDraft {
  return {
    settings: e.settings,
    pending: e.pending,
    nextDue: e.nextDue,
    fillDue: e.fillDue,
    printBuf: e.printBuf,
    printHead: e.printHead,
    printTail: e.printTail,
    printDue: e.printDue,
    droppedPrints: e.droppedPrints,
    prints: e.prints,
    markouts: e.markouts,
    droppedPending: e.droppedPending,
    toxNum: e.toxNum,
    toxDen: e.toxDen,
    toxCount: e.toxCount,
    toxSq: e.toxSq,
    toxW2: e.toxW2,
    toxPDen: e.toxPDen,
    toxPNum: e.toxPNum,
    toxPSq: e.toxPSq,
    toxTs: e.toxTs,
    pooled: e.pooled,
    flowNum: e.flowNum,
    flowDen: e.flowDen,
    flowTs: e.flowTs,
    volFast: e.volFast,
    volSlow: e.volSlow,
    volTs: e.volTs,
    lastOracle: e.lastOracle,
    oracleNoise: e.oracleNoise,
    oracleDiffs: e.oracleDiffs,
    eventUntil: e.eventUntil,
    eventCause: e.eventCause,
    trending: e.trending,
    regime: e.regime,
    regimeSince: e.regimeSince,
    transitions: e.transitions,
    attribution: e.attribution,
  };
}

/** The market's regime changed to `regime` at `ts` (counted). */
export function edgeWithRegime(e: EdgeState, regime: Regime, ts: number): EdgeState {
  const n = copyEdge(e);
  n.regime = regime;
  n.regimeSince = ts;
  n.transitions = e.transitions + 1;
  return n;
}

/**
 * Settle every pending markout due at or before `now` with `mid2` (twice the mid in force; null: no
 * two-sided book, the markout waits for the next event with one).
 */
export function settleMarkouts(e: EdgeState, now: number, mid2: number | null): EdgeState {
  return settle(e, now, mid2, null).edge;
}

/** settleMarkouts, and the account's `pool` with the same markouts at the toxicity horizon folded in (its own half-life). */
export function settleMarkoutsPooled(e: EdgeState, now: number, mid2: number | null, pool: ToxicitySums): { edge: EdgeState; pool: ToxicitySums } {
  return settle(e, now, mid2, pool);
}

function settle<P extends ToxicitySums | null>(e: EdgeState, now: number, mid2: number | null, pool0: P): { edge: EdgeState; pool: P } {
  if (e.nextDue > now || mid2 === null) return { edge: e, pool: pool0 };
  const n = copyEdge(e);
  let pool: ToxicitySums | null = pool0;
  if (e.fillDue <= now) pool = settleFills(n, e, now, mid2 / 2, pool);
  if (e.printDue <= now) settlePrints(n, e, now, mid2 / 2);
  n.nextDue = Math.min(n.fillDue, n.printDue);
  return { edge: n, pool: pool as P };
}

/** The fills' markouts due by `now` settled at `mid` into the copy `n` of `e` (and the account's `pool`, when given). */
function settleFills(n: EdgeDraft, e: EdgeState, now: number, mid: number, pool0: ToxicitySums | null): ToxicitySums | null {
  const hs = e.settings.markoutHorizonsMs;
  const toxIdx = hs.indexOf(e.settings.toxicityHorizonMs);
  const sums = e.markouts.slice();
  let { toxNum, toxDen, toxCount, toxSq, toxW2, toxPDen, toxPNum, toxPSq, toxTs } = e;
  const pickoff = e.settings.pickoffMarkout;
  let pool = pool0;
  let pooled = e.pooled;
  const keep: PendingMarkout[] = [];
  let fillDue = Infinity;
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
        toxSq = toxSq * d + edge * edge * shares;
        toxW2 = toxW2 * d * d + shares * shares;
        const picked = edge < -pickoff;
        toxPDen = toxPDen * d + (picked ? shares : 0);
        toxPNum = toxPNum * d + (picked ? edge * shares : 0);
        toxPSq = toxPSq * d + (picked ? edge * edge * shares : 0);
        toxTs = Math.max(toxTs, at);
        pooled = foldMarkout(pooled, at, edge, shares, e.settings.poolHalfLifeMs, pickoff);
        if (pool !== null) pool = foldMarkout(pool, at, edge, shares, e.settings.poolHalfLifeMs, pickoff);
      }
      k++;
    }
    if (k < hs.length) {
      keep.push(k === p.next ? p : { ts: p.ts, sign: p.sign, price: p.price, size: p.size, next: k });
      fillDue = Math.min(fillDue, p.ts + hs[k]!);
    }
  }
  n.pending = keep;
  n.fillDue = fillDue;
  n.markouts = sums;
  n.toxNum = toxNum;
  n.toxDen = toxDen;
  n.toxCount = toxCount;
  n.toxSq = toxSq;
  n.toxW2 = toxW2;
  n.toxPDen = toxPDen;
  n.toxPNum = toxPNum;
  n.toxPSq = toxPSq;
  n.toxTs = toxTs;
  n.pooled = pooled;
  return pool;
}

/**
 * The prints due by `now` (oldest first, until the first one not due) marked out at `mid` and
 * folded into the copy `n` of `e`: one new sums object for the lot, none per print.
 */
function settlePrints(n: EdgeDraft, e: EdgeState, now: number, mid: number): void {
  const h = e.settings.toxicityHorizonMs;
  const hl = e.settings.printHalfLifeMs;
  const pickoff = e.settings.pickoffMarkout;
  const b = e.printBuf;
  const s = e.prints;
  let { num, den, count, sq, w2, pden, pnum, psq, ts } = s;
  let k = e.printHead;
  const tail = e.printTail;
  while (k < tail) {
    const at = printTs(b, k) + h;
    if (at > now) break;
    const edge = printSign(b, k) * (mid - printPrice(b, k));
    const shares = printSize(b, k) / 1e6;
    const d = decay(at - ts, hl);
    const picked = edge < -pickoff;
    num = num * d + edge * shares;
    den = den * d + shares;
    count = count * d + 1;
    sq = sq * d + edge * edge * shares;
    w2 = w2 * d * d + shares * shares;
    pden = pden * d + (picked ? shares : 0);
    pnum = pnum * d + (picked ? edge * shares : 0);
    psq = psq * d + (picked ? edge * edge * shares : 0);
    if (at > ts) ts = at;
    k++;
  }
  n.printHead = k;
  n.printDue = k < tail ? printTs(b, k) + h : Infinity;
  if (k !== e.printHead) n.prints = { num, den, count, sq, w2, pden, pnum, psq, ts };
}

/** An own fill: queue its markouts, fold its attribution. `mid2` = twice the mid just before it. */
export function onFillEdge(e: EdgeState, ts: number, qty: number, yesPrice: number, fee: number, mid2: number | null): EdgeState {
  const attribution = addFill(e.attribution, { qty, price: yesPrice, fee }, mid2);
  const n = copyEdge(e);
  n.attribution = attribution;
  if (qty === 0 || e.settings.markoutHorizonsMs.length === 0) return n;
  const p: PendingMarkout = { ts, sign: qty > 0 ? 1 : -1, price: yesPrice, size: Math.abs(qty), next: 0 };
  let pending = e.pending;
  let dropped = e.droppedPending;
  if (pending.length >= e.settings.maxPending) {
    pending = pending.slice(pending.length - e.settings.maxPending + 1);
    dropped++;
  }
  n.pending = [...pending, p];
  n.fillDue = Math.min(e.fillDue, ts + e.settings.markoutHorizonsMs[0]!);
  n.nextDue = Math.min(n.fillDue, e.printDue);
  n.droppedPending = dropped;
  return n;
}

/** The market resolved: book the jump from the last mid to the payout in the attribution. */
export function onResolvedEdge(e: EdgeState, lastMid2: number | null, payoutYes: number): EdgeState {
  const attribution = resolveAt(e.attribution, lastMid2, payoutYes);
  if (attribution === e.attribution) return e;
  const n = copyEdge(e);
  n.attribution = attribution;
  return n;
}

/**
 * A market trade (YES terms): flow imbalance, the volume-burst detector and, with a price, its print
 * queued for the passive side's markout (the side that sold to a taker buy, bought from a taker sale).
 */
export function onTradeEdge(e: EdgeState, ts: number, size: number, takerBuys: boolean, price?: number): EdgeState {
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
  const n = copyEdge(e);
  n.flowNum = flowNum;
  n.flowDen = flowDen;
  n.flowTs = Math.max(e.flowTs, ts);
  n.volFast = fast;
  n.volSlow = slow;
  n.volTs = Math.max(e.volTs, ts);
  if (burst) {
    n.eventUntil = Math.max(e.eventUntil, ts + r.eventHoldMs);
    n.eventCause = 'volume-burst';
  }
  if (price !== undefined && size > 0 && s.maxPending > 0) {
    const w = pushPrint(e.printBuf, e.printHead, e.printTail, ts, takerBuys ? -1 : 1, price, size, s.maxPending);
    n.printBuf = w.buf;
    n.printHead = w.head;
    n.printTail = w.tail;
    if (w.dropped) n.droppedPrints = e.droppedPrints + 1;
    // the oldest pending print is the first due (prints arrive in time order)
    n.printDue = w.tail - w.head === 1 ? ts + s.toxicityHorizonMs : w.dropped ? printTs(w.buf, w.head) + s.toxicityHorizonMs : e.printDue;
    n.nextDue = Math.min(e.fillDue, n.printDue);
  }
  return n;
}

/** The last mid sample at or before `t` (history oldest first), else the oldest; null when empty. */
export function midAtOrBefore(history: MidSeries, t: number): number | null {
  // the store's history searches its own buffer (src/state/mid-history.ts): the same search
  if (history instanceof MidHistory) return history.midAtOrBefore(t);
  if (history.length === 0) return null;
  let lo = 0;
  let hi = history.length - 1;
  let ans = 0;
  while (lo <= hi) {
    const k = (lo + hi) >> 1;
    if (history.at(k)!.ts <= t) {
      ans = k;
      lo = k + 1;
    } else hi = k - 1;
  }
  return history.at(ans)!.mid;
}

/**
 * The mid changed to `mid` (1e-6 USDC) at `ts`: mid-jump event and trend, against the sampled
 * history. Returns `e` itself when nothing changed (the hot path: most book events).
 */
export function onMidEdge(e: EdgeState, ts: number, mid: number, history: MidSeries): EdgeState {
  const r = e.settings.regime;
  const ref = midAtOrBefore(history, ts - r.midJumpWindowMs);
  const jump = ref !== null && Math.abs(mid - ref) >= r.midJump;
  const trendRef = midAtOrBefore(history, ts - r.trendWindowMs);
  const move = trendRef === null ? 0 : Math.abs(mid - trendRef);
  const trending = move >= r.trendMove || (e.trending && move >= r.trendMove / 2);
  if (!jump && trending === e.trending) return e;
  const n = copyEdge(e);
  n.trending = trending;
  if (jump) startEvent(n, e, ts, 'mid-jump');
  return n;
}

/** A jump starts (or extends) an event regime on the copy `n` of `e`: it holds for eventHoldMs from `ts`. */
function startEvent(n: EdgeDraft, e: EdgeState, ts: number, cause: EventCause): void {
  n.eventUntil = Math.max(e.eventUntil, ts + e.settings.regime.eventHoldMs);
  n.eventCause = cause;
}

/** readings' differences behind the oracle's noise before its threshold counts, and the running mean's weight */
const ORACLE_WARMUP = 4;
const ORACLE_NOISE_WEIGHT = 0.2;

/**
 * A new oracle reading: an oracle jump is an event. A jump is a change of at least `oracleJump` and,
 * once `ORACLE_WARMUP` differences are known, of at least `oracleJumpNoise` × the running mean of the
 * oracle's own |Δ| between readings: an oracle whose readings scatter by several cents around the
 * truth (low confidence, few sources) moves by `oracleJump` between two readings without any news,
 * and a fixed threshold then reads its noise as events (docs/edge.md, "The regime detector"). The
 * mean is updated after the test, with a difference counted at most 3× the mean so far (one real
 * jump does not blind the detector to the next).
 */
export function onOracleEdge(e: EdgeState, ts: number, probability: number): EdgeState {
  const r = e.settings.regime;
  const d = e.lastOracle === null ? null : Math.abs(probability - e.lastOracle);
  const noiseBar = r.oracleJumpNoise > 0 && e.oracleDiffs >= ORACLE_WARMUP ? r.oracleJumpNoise * e.oracleNoise : 0;
  const jump = d !== null && d >= r.oracleJump && d >= noiseBar;
  const n = copyEdge(e);
  n.lastOracle = probability;
  if (d !== null) {
    const x = e.oracleDiffs > 0 ? Math.min(d, 3 * e.oracleNoise) : d;
    n.oracleNoise = e.oracleDiffs === 0 ? x : e.oracleNoise + ORACLE_NOISE_WEIGHT * (x - e.oracleNoise);
    n.oracleDiffs = e.oracleDiffs + 1;
  }
  if (jump) startEvent(n, e, ts, 'oracle-jump');
  return n;
}
