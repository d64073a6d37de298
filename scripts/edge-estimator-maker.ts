/**
 * The oracle maker of scripts/edge-oracle-maker.ts with its fair value taken from a book-only
 * estimator instead of the hidden fair value F, for scripts/edge-estimators.ts: how much of the
 * oracle's edge in lopsided markets (docs/edge-feasibility.md) a maker keeps when it sees only what a
 * strategy sees. It quotes `size` shares at least `d` from the estimate (a bid at E − d rounded down to
 * the tick, an ask at E + d rounded up, never crossing the book), opening a position only
 * where min(E, 1 − E) ≤ maxPQ (elsewhere it only takes a position down). With `source: fair` it is the
 * oracle maker (the estimate is F, and so is the gate). With `insideOnly` it drops a quote that would
 * not improve the others' touch (where the others' size rests ahead of it and only a jump reaches it).
 *
 * The estimators (probability; every book figure from the others' book, without the bot's own quotes):
 *   mid      the mid
 *   micro    the microprice (size-weighted mid)
 *   touch    the touch on the side toward the nearer bound (the bid below ½, the ask above)
 *   last     the last trade's price
 *   trades   the trades of the view, size-weighted, each decayed by e^(−age / 10 s) (the mid without any)
 *   ewma1, ewma3, ewma10   the mid's EWMA over the bot's ticks, time constant 1, 3, 10 s
 *   smooth   ewma1 restarted at the mid whenever the mid is more than 1.5¢ from it (a jump): the
 *            `lopsided` strategy's estimate (src/strategy/smooth-mid.ts)
 *   oracle   the oracle's last answer
 *   fair     the hidden fair value (the reference: no strategy sees it)
 *
 * The script lends F and a recorder with `setEstimatorRun` before each run: every call records each
 * estimator's error (E − F) where min(F, 1 − F) ≤ 0.2, and ≤ 0.1, from which the script prints the
 * estimators' bias and spread. The EWMAs' memory is this module's, per market, cleared by the call.
 */
import { ConfigError } from '../src/model/errors.ts';
import { othersBook } from '../src/strategy/others-book.ts';
import { type SmoothMidMemory, smoothMid } from '../src/strategy/smooth-mid.ts';
import type { DesiredQuote, MarketView, StrategyModule } from '../src/strategy/types.ts';
import { numberSetting, quoteAround } from './edge-oracle-maker.ts';

export const ESTIMATORS = ['fair', 'mid', 'micro', 'touch', 'last', 'trades', 'ewma1', 'ewma3', 'ewma10', 'smooth', 'oracle'] as const;
export type Estimator = (typeof ESTIMATORS)[number];
/** the buckets of min(F, 1 − F) the errors are kept for */
export const PQ_BUCKETS = [0.1, 0.2] as const;

export interface EstimatorMakerConfig {
  readonly source: Estimator;
  /** distance from the estimate, USDC per share (≥ 0) */
  readonly d: number;
  /** shares a quote */
  readonly size: number;
  /** min(E, 1 − E) above which it opens nothing, only takes a position down (0.5: opens everywhere) */
  readonly maxPQ: number;
  /** true: a quote that would not improve the others' touch (join it or rest behind it) is dropped (default false) */
  readonly insideOnly: boolean;
}

/** Σ error, Σ error², count (error in probability) */
export interface ErrorSums {
  sum: number;
  sq: number;
  n: number;
}
/** errors[estimator][bucket index of PQ_BUCKETS] */
export type ErrorTable = Record<Estimator, ErrorSums[]>;

export function emptyErrors(): ErrorTable {
  return Object.fromEntries(ESTIMATORS.map((e) => [e, PQ_BUCKETS.map(() => ({ sum: 0, sq: 0, n: 0 }))])) as ErrorTable;
}

interface Memory {
  t: number;
  ewma: number[];
  smooth: Map<string, SmoothMidMemory>;
}
const TAUS = [1, 3, 10] as const;
const SMOOTH_RESET = 0.015;
const TRADE_TAU_MS = 10_000;

interface RunState {
  fair: ((marketId: string) => number | undefined) | undefined;
  errors: ErrorTable | undefined;
  memory: Map<string, Memory>;
}
const KEY = Symbol.for('bookmaker.scripts.edge-estimators.run');
function state(): RunState {
  const g = globalThis as Record<symbol, RunState | undefined>;
  g[KEY] ??= { fair: undefined, errors: undefined, memory: new Map() };
  return g[KEY];
}

/** Before a run: the hidden fair value's reader and the table its errors go to (both undefined after it); clears the EWMAs. */
export function setEstimatorRun(fair: ((marketId: string) => number | undefined) | undefined, errors: ErrorTable | undefined): void {
  const s = state();
  s.fair = fair;
  s.errors = errors;
  s.memory.clear();
}

export function parseEstimatorMakerConfig(raw: unknown, path: string): EstimatorMakerConfig {
  const o = (raw ?? {}) as Record<string, unknown>;
  const num = numberSetting(o, path);
  const source = o.source ?? 'mid';
  if (!(ESTIMATORS as readonly unknown[]).includes(source)) throw new ConfigError(`${path}.source: one of ${ESTIMATORS.join(', ')}, got ${String(source)}`);
  for (const k of Object.keys(o)) if (!['source', 'd', 'size', 'maxPQ', 'insideOnly'].includes(k)) throw new ConfigError(`${path}.${k}: unknown setting`);
  const insideOnly = o.insideOnly ?? false;
  if (typeof insideOnly !== 'boolean') throw new ConfigError(`${path}.insideOnly: true or false, got ${String(insideOnly)}`);
  return {
    source: source as Estimator,
    d: num('d', 0.005, (x) => x >= 0 && x < 0.5),
    size: num('size', 5, (x) => x > 0),
    maxPQ: num('maxPQ', 0.2, (x) => x > 0 && x <= 0.5),
    insideOnly,
  };
}

/**
 * Every estimator's value on this view (probability; undefined where it has none), the EWMAs moved on
 * by the time since the market's last call. `fair` is the hidden fair value given, if any.
 */
export function estimate(view: MarketView, memory: Map<string, Memory>, fair: number | undefined): Record<Estimator, number | undefined> {
  const book = othersBook(view);
  const p = (x: number | null | undefined) => (x == null ? undefined : x / 1e6);
  const mid = p(book?.mid);
  let ewma: (number | undefined)[] = TAUS.map(() => undefined);
  let smooth: number | undefined;
  if (mid !== undefined) {
    const m = memory.get(view.marketId);
    if (m === undefined) memory.set(view.marketId, { t: view.now, ewma: TAUS.map(() => mid), smooth: new Map() });
    else {
      const dt = Math.max(0, view.now - m.t) / 1000;
      m.ewma = m.ewma.map((v, i) => v + (1 - Math.exp(-dt / TAUS[i]!)) * (mid - v));
      m.t = view.now;
    }
    const mem = memory.get(view.marketId)!;
    ewma = mem.ewma;
    // the lopsided strategy's estimate (src/strategy/smooth-mid.ts), in probability here
    smooth = smoothMid(mem.smooth, view.marketId, view.now, mid, TAUS[0], SMOOTH_RESET);
  }
  const last = view.trades.at(-1);
  let w = 0;
  let wp = 0;
  for (const t of view.trades) {
    const k = (t.size / 1e6) * Math.exp(-Math.max(0, view.now - t.ts) / TRADE_TAU_MS);
    w += k;
    wp += k * t.price;
  }
  const toward = mid === undefined ? undefined : mid < 0.5 ? p(book?.bestBid) : p(book?.bestAsk);
  return {
    fair,
    mid,
    micro: p(book?.microprice),
    touch: toward,
    last: p(last?.price),
    trades: w > 1e-9 ? wp / w / 1e6 : mid,
    ewma1: ewma[0],
    ewma3: ewma[1],
    ewma10: ewma[2],
    smooth,
    oracle: view.oracle?.probability,
  };
}

/** Adds each estimator's error on this call to `errors`, in the buckets of min(F, 1 − F) it falls in. */
export function recordErrors(errors: ErrorTable, est: Record<Estimator, number | undefined>, fair: number): void {
  const pq = Math.min(fair, 1 - fair);
  PQ_BUCKETS.forEach((b, i) => {
    if (pq > b) return;
    for (const e of ESTIMATORS) {
      const v = est[e];
      if (v === undefined) continue;
      const s = errors[e][i]!;
      s.sum += v - fair;
      s.sq += (v - fair) ** 2;
      s.n++;
    }
  });
}

export function quoteEstimatorMaker(view: MarketView, c: EstimatorMakerConfig): DesiredQuote[] | null {
  const s = state();
  const fair = s.fair?.(view.marketId);
  const est = estimate(view, s.memory, fair);
  if (s.errors && fair !== undefined) recordErrors(s.errors, est, fair);
  const e = est[c.source];
  if (e === undefined || view.status !== 'active' || !view.book) return null;
  // the whole book, own quotes included, as the oracle maker (source fair is it, fill for fill)
  const quotes = quoteAround(view, e, { ...c, sides: 'both' });
  const others = c.insideOnly ? othersBook(view) : null;
  const inside = (side: 'bid' | 'ask', price: number): boolean => {
    if (others === null) return true;
    const touch = side === 'bid' ? others.bestBid : others.bestAsk;
    return touch === null || (side === 'bid' ? price > touch : price < touch);
  };
  return quotes.filter((q) => inside(q.side, q.price));
}

const estimatorMaker: StrategyModule<EstimatorMakerConfig> = { name: 'estimator-maker', parseConfig: parseEstimatorMakerConfig, quote: quoteEstimatorMaker };
export default estimatorMaker;
