/**
 * The adverse-selection helper shared by the shipped strategies: turns a market's toxicity, flow
 * and regime (MarketView.edge, src/state/edge-state.ts) into a wider half spread, a smaller size and,
 * when the flow is clearly one-way or the regime says so, quoting one side only or none.
 *
 * Rules, in order (parameters in probability / shares, see parseEdgeGuard):
 *   halted                      → pull every quote
 *   reduce-only                 → only the side that reduces the net position (none when flat)
 *   event                       → pull (event.pull) or widen by event.widen, size × event.size
 *   trending                    → widen by trending.widen, size × trending.size
 *   toxicity                    → with evidence (the guard's estimate, toxicityEvidence, below):
 *                                 adverse = −estimate − markoutThreshold; when > 0, widen by
 *                                 widenPerMarkout × adverse, and size × (1 − sizeCutPerCent × adverse
 *                                 in cents), at least minSizeFactor
 *   one-way flow                → |flow imbalance| ≥ oneSidedImbalance over ≥ minFlowShares of
 *                                 decayed taker volume: drop the side takers run over (buying flow →
 *                                 no ask; selling flow → no bid)
 *   adverse markouts            → while the gate's test holds (below), size × adverseSize; with
 *                                 pullAdding and a position, the side that would add to it is dropped
 * The extra half spread is capped at maxWiden. Disabled (`enabled: false`) or without view.edge it
 * changes nothing. Pure: a function of the view and the parameters.
 *
 * Per side (`perSide`, the default): with a position, the widening and size cuts above act on the
 * side that would add to it; the side that reduces it keeps its full size up to the position and
 * its half spread (narrowed by `reduceTighten`): a pick-off leaves the bot on the wrong side of the
 * news, and a guard that slows the unloading pays for it holding. guardedLadder / sideExtraHalf /
 * sideSize apply it; docs/edge.md, "The guard".
 *
 * The gate (`gate: measured`, the default): the responses above except halted and reduce-only act
 * only while the bot's own measured markouts say the flow is adverse — the upper bound of the
 * one-sided `confidence` interval of the guard's estimate of the market's markout (mean + z·sd) is
 * below zero. Otherwise the helper backs off to neutral: on benign flow a regime change or one-way
 * flow costs no spread. `gate: always` is the earlier behaviour (regimes and flow act whatever the
 * markouts).
 *
 * The estimate (`toxicityEvidence`): with `pooled` (the default) the account's markouts on its other
 * markets (view.edge.pool, kept by the store past a market's release) are the prior of a normal–normal
 * model: the market's true markout ~ N(pool average, pool stderr² + marketSpread²); the market's own
 * decayed average (at least `minFills` fills' weight behind it) is weighed in by precision as it
 * arrives. A fresh market listed into an account whose fills have been picked off starts guarded; one
 * whose own fills earn backs off as its evidence outweighs the prior. Without a pool (or `pooled:
 * false`), the market's own average and standard error alone, as before. With `prints`, the market's
 * print markout (view.edge.prints: the passive side of every trade at the toxicity horizon) is one
 * more measurement, N(print average, its error² + printSpread²), weighed in by precision beside the
 * pool: the touch's markout, which tells the flow within a minute, where the bot's own fills take
 * dozens of minutes. docs/edge.md, "The guard".
 */
import { at, readBoolean, readEnum, readNumber, readOptionalObject } from '../core/fields.ts';
import { ladder, type LadderSpec } from './ladder.ts';
import type { DesiredQuote, MarketView } from './types.ts';

export interface RegimeResponse {
  /** extra half spread, 1e-6 price units */
  readonly widen: number;
  /** size multiplier (0, 1] */
  readonly size: number;
}

export interface EdgeGuardConfig {
  readonly enabled: boolean;
  /** adverse markout tolerated before widening, 1e-6 USDC per share */
  readonly markoutThreshold: number;
  /** extra half spread per unit of adverse markout beyond the threshold */
  readonly widenPerMarkout: number;
  /** cap on the extra half spread, 1e-6 price units */
  readonly maxWiden: number;
  /** fraction of size cut per cent of adverse markout beyond the threshold */
  readonly sizeCutPerCent: number;
  readonly minSizeFactor: number;
  /** decayed fills needed behind the markout before it counts */
  readonly minFills: number;
  /** |flow imbalance| at or above this drops the side run over (> 1 = off) */
  readonly oneSidedImbalance: number;
  /** decayed taker volume needed behind the imbalance, 1e-6 shares */
  readonly minFlowSize: number;
  readonly trending: RegimeResponse;
  readonly event: RegimeResponse & { readonly pull: boolean };
  /** measured: act only on markouts shown adverse with `confidence`; always: act on regimes and flow whatever the markouts */
  readonly gate: 'measured' | 'always';
  /** one-sided confidence that the markout is below zero before the gate opens, in (0.5, 1) */
  readonly confidence: number;
  /** size multiplier (0, 1] while the bot's markouts are shown adverse (the gate's test), on top of the rest */
  readonly adverseSize: number;
  /** weigh the account's markouts on its other markets in as the prior of each market's (view.edge.pool) */
  readonly pooled: boolean;
  /** standard deviation of a market's own markout around the account's, 1e-6 USDC per share (the prior's spread beyond the pool's error) */
  readonly marketSpread: number;
  /**
   * weigh the market's print markout in (view.edge.prints: the passive side of every trade, marked
   * out at the toxicity horizon) as evidence of the market's own markout, beside the pool's
   */
  readonly prints: boolean;
  /** standard deviation of the bot's own markout around the prints' (the touch's), 1e-6 USDC per share */
  readonly printSpread: number;
  /** prints' weight (decayed count) needed behind the print markout before it counts */
  readonly minPrints: number;
  /** the side that reduces the position keeps its size (up to the position) and is not widened; the cuts act on the side that adds */
  readonly perSide: boolean;
  /** with perSide, the reducing side's half spread narrowed by this much toward the fair price, 1e-6 price units */
  readonly reduceTighten: number;
  /** while the gate's test holds and the bot holds a position, pull the side that would add to it (the side the flow picks off) */
  readonly pullAdding: boolean;
}

/** The guard's estimate of a market's markout at the toxicity horizon: mean and standard deviation, 1e-6 USDC per share. */
export interface ToxicityEvidence {
  readonly mean: number;
  /** null: the market's own average without a standard error (one fill's worth of weight) */
  readonly sd: number | null;
  /**
   * 'market' (its own fills alone), 'pool' (the account's other markets alone), 'both' (the two);
   * 'prints', 'prints+pool', 'prints+market', 'all' with the market's print markout among them
   */
  readonly from: 'market' | 'pool' | 'both' | 'prints' | 'prints+pool' | 'prints+market' | 'all';
}

export interface EdgeAdjustment {
  /** extra half spread, 1e-6 price units (≥ 0) */
  readonly extraHalf: number;
  /** size multiplier in [0, 1] */
  readonly sizeFactor: number;
  readonly bid: boolean;
  readonly ask: boolean;
  /** why it is not neutral: e.g. ['toxicity', 'event'] */
  readonly reasons: readonly string[];
  /**
   * perSide: the side that reduces the net position ('ask' long, 'bid' short; null flat, neutral or
   * perSide off). extraHalf and sizeFactor are then the adding side's; the reducing side's are
   * reduceExtraHalf and, up to reduceShares, its full size (sideExtraHalf, sideSize).
   */
  readonly reduce: 'bid' | 'ask' | null;
  /** the reducing side's extra half spread, 1e-6 price units (≤ 0: −reduceTighten) */
  readonly reduceExtraHalf: number;
  /** |net position|, 1e-6 shares: what the reducing side quotes at full size */
  readonly reduceShares: number;
}

export const NEUTRAL: EdgeAdjustment = { extraHalf: 0, sizeFactor: 1, bid: true, ask: true, reasons: [], reduce: null, reduceExtraHalf: 0, reduceShares: 0 };

export const EDGE_GUARD_DEFAULTS: EdgeGuardConfig = {
  enabled: false,
  markoutThreshold: 5_000,
  widenPerMarkout: 1,
  maxWiden: 50_000,
  sizeCutPerCent: 0.25,
  minSizeFactor: 0.25,
  minFills: 3,
  oneSidedImbalance: 0.8,
  minFlowSize: 100_000_000,
  trending: { widen: 10_000, size: 0.5 },
  event: { widen: 20_000, size: 0.5, pull: false },
  gate: 'measured',
  confidence: 0.8,
  adverseSize: 0.5,
  pooled: true,
  marketSpread: 5_000,
  prints: false,
  printSpread: 30_000,
  minPrints: 10,
  perSide: true,
  reduceTighten: 0,
  pullAdding: false,
};

/**
 * Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9), for the
 * gate's one-sided z at a confidence.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/**
 * The guard's estimate of the market's markout (see the file's head): the market's own decayed average
 * once `minFills` fills' weight stand behind it, shrunk toward the account's pool when `pooled` and the
 * pool has `minFills` fills' weight and a standard error; the pool alone before the market's own
 * count. With `prints`, the market's print markout (at least `minPrints` prints' weight and a standard
 * error) is one more measurement of the same markout: N(print average, its error² + printSpread²),
 * weighed in by precision with the pool's prior (its spread says how far the bot's own markout sits
 * from the touch's). Null: no evidence. A hand-built view without a standard error takes the average
 * as exact.
 */
export function toxicityEvidence(e: NonNullable<MarketView['edge']>, cfg: EdgeGuardConfig): ToxicityEvidence | null {
  const own = e.toxicity !== null && e.toxicityWeight >= cfg.minFills ? e.toxicity : null;
  const ownSd = e.toxicityStdErr === undefined ? 0 : e.toxicityStdErr;
  const p = cfg.pooled ? e.pool : undefined;
  const hasPool = !(p === undefined || p.toxicity === null || p.weight < cfg.minFills || p.stdErr === null);
  const q = cfg.prints ? e.prints : undefined;
  const hasPrints = !(q === undefined || q.toxicity === null || q.weight < cfg.minPrints || q.stdErr === null);
  if (!hasPool && !hasPrints) return own === null ? null : { mean: own, sd: ownSd, from: 'market' };
  // the prior: the pool's N(average, its error² + marketSpread²) and the prints' N(average, error² + printSpread²), by precision
  let w = 0;
  let wm = 0;
  let exact: number | null = null;
  let single = 0;
  let singleV = 0;
  if (hasPool) {
    const v = p!.stdErr! * p!.stdErr! + cfg.marketSpread * cfg.marketSpread;
    if (v === 0) exact = p!.toxicity!;
    else {
      w += 1 / v;
      wm += p!.toxicity! * (1 / v);
      single = p!.toxicity!;
      singleV = v;
    }
  }
  if (hasPrints) {
    const v = q!.stdErr! * q!.stdErr! + cfg.printSpread * cfg.printSpread;
    if (v === 0) exact ??= q!.toxicity!;
    else {
      w += 1 / v;
      wm += q!.toxicity! * (1 / v);
      single = q!.toxicity!;
      singleV = v;
    }
  }
  const prior = hasPrints ? (hasPool ? 'prints+pool' : 'prints') : 'pool';
  if (own === null || ownSd === null) {
    if (exact !== null) return { mean: exact, sd: 0, from: prior };
    // one source: its own average, as it is
    return hasPool && hasPrints ? { mean: wm / w, sd: Math.sqrt(1 / w), from: prior } : { mean: single, sd: Math.sqrt(singleV), from: prior };
  }
  const from = hasPrints ? (hasPool ? 'all' : 'prints+market') : 'both';
  if (ownSd === 0) return { mean: own, sd: 0, from: 'market' };
  if (exact !== null) return { mean: exact, sd: 0, from: prior };
  // the posterior: precisions add, the means weighed by them
  const wo = 1 / (ownSd * ownSd);
  return { mean: (wm + own * wo) / (w + wo), sd: Math.sqrt(1 / (w + wo)), from };
}

/**
 * The gate: are the bot's own markouts adverse with the configured confidence? The guard's estimate
 * (toxicityEvidence) plus z of the one-sided `confidence` standard deviations is below zero.
 */
export function markoutsAdverse(e: NonNullable<MarketView['edge']>, cfg: EdgeGuardConfig): boolean {
  return adverseBy(toxicityEvidence(e, cfg), cfg);
}

function adverseBy(ev: ToxicityEvidence | null, cfg: EdgeGuardConfig): boolean {
  if (ev === null || ev.sd === null) return false;
  return ev.mean + normalQuantile(cfg.confidence) * ev.sd < 0;
}

export function edgeAdjust(view: MarketView, cfg: EdgeGuardConfig): EdgeAdjustment {
  const e = view.edge;
  if (!cfg.enabled || e === undefined) return NEUTRAL;
  const reasons: string[] = [];
  if (e.regime === 'halted') return { ...NEUTRAL, sizeFactor: 0, bid: false, ask: false, reasons: ['halted'] };
  const evidence = toxicityEvidence(e, cfg);
  const adverse = adverseBy(evidence, cfg);
  if (cfg.gate === 'measured' && e.regime !== 'reduce-only' && !adverse) return NEUTRAL;
  let bid = true;
  let ask = true;
  let extra = 0;
  let size = 1;
  if (adverse && cfg.adverseSize < 1) {
    size *= cfg.adverseSize;
    reasons.push('adverse');
  }
  if (e.regime === 'reduce-only') {
    const net = view.position.net;
    bid = net < 0;
    ask = net > 0;
    reasons.push('reduce-only');
  } else if (e.regime === 'event') {
    if (cfg.event.pull) return { ...NEUTRAL, sizeFactor: 0, bid: false, ask: false, reasons: ['event'] };
    extra += cfg.event.widen;
    size *= cfg.event.size;
    reasons.push('event');
  } else if (e.regime === 'trending') {
    extra += cfg.trending.widen;
    size *= cfg.trending.size;
    reasons.push('trending');
  }
  if (evidence !== null) {
    const adverse = -evidence.mean - cfg.markoutThreshold;
    if (adverse > 0) {
      extra += cfg.widenPerMarkout * adverse;
      size *= Math.max(cfg.minSizeFactor, 1 - cfg.sizeCutPerCent * (adverse / 10_000));
      reasons.push('toxicity');
    }
  }
  if (e.flowSize >= cfg.minFlowSize && Math.abs(e.flowImbalance) >= cfg.oneSidedImbalance) {
    if (e.flowImbalance > 0) ask = false;
    else bid = false;
    reasons.push('one-way-flow');
  }
  const net = view.position.net;
  // pullAdding: on flow shown adverse, what adds to a position is what the takers pick off; only the side that unloads it quotes
  if (adverse && cfg.pullAdding && net !== 0) {
    if (net > 0) bid = false;
    else ask = false;
    reasons.push('pull-adding');
  }
  if (reasons.length === 0) return NEUTRAL;
  const extraHalf = Math.round(Math.min(cfg.maxWiden, extra));
  const sizeFactor = Math.max(0, Math.min(1, size));
  // per side: a pick-off leaves a position on the wrong side of the news; the side that unloads it
  // is spared the cuts (and may be tightened), the side that would add to it takes them
  const reduce = cfg.perSide && net !== 0 ? (net > 0 ? 'ask' : 'bid') : null;
  if (reduce === null) return { extraHalf, sizeFactor, bid, ask, reasons, reduce: null, reduceExtraHalf: 0, reduceShares: 0 };
  return { extraHalf, sizeFactor, bid, ask, reasons, reduce, reduceExtraHalf: cfg.reduceTighten > 0 ? -cfg.reduceTighten : 0, reduceShares: Math.abs(net) };
}

/** A size scaled by the adjustment, in whole 1e-6 shares; 0 when it falls below the market minimum. */
export function adjustedSize(size: number, adj: EdgeAdjustment, minSize: number): number {
  if (adj.sizeFactor === 1) return size;
  const s = Math.floor(size * adj.sizeFactor);
  return s >= Math.max(1, minSize) ? s : 0;
}

/** One side's extra half spread under the adjustment, 1e-6 price units (the reducing side's with perSide). */
export function sideExtraHalf(adj: EdgeAdjustment, side: 'bid' | 'ask'): number {
  return side === adj.reduce ? adj.reduceExtraHalf : adj.extraHalf;
}

/**
 * One side's size (per level) under the adjustment, in whole 1e-6 shares; 0 below the market minimum.
 * The adding side (and both when flat or without perSide): adjustedSize. The reducing side: its full
 * size up to the position, the cut beyond it: max(cut size, min(size, |net|)).
 */
export function sideSize(size: number, adj: EdgeAdjustment, side: 'bid' | 'ask', minSize: number): number {
  if (side !== adj.reduce || adj.sizeFactor === 1) return adjustedSize(size, adj, minSize);
  const s = Math.max(Math.floor(size * adj.sizeFactor), Math.min(size, adj.reduceShares));
  return s >= Math.max(1, minSize) ? s : 0;
}

/**
 * A strategy's ladder (src/strategy/ladder.ts) with the adjustment applied: each side's half spread
 * widened and its size scaled as sideExtraHalf / sideSize say, the sides the adjustment drops left out,
 * no zero sizes. `spec` is the strategy's own ladder, before the helper. A tightened reducing side
 * keeps at least one tick of half spread (or the strategy's own, when smaller).
 */
export function guardedLadder(spec: LadderSpec, adj: EdgeAdjustment, minSize: number): DesiredQuote[] {
  if (adj.reduce === null) {
    const size = adjustedSize(spec.size, adj, minSize);
    if (size === 0) return [];
    const quotes = adj.extraHalf === 0 && size === spec.size ? ladder(spec) : ladder({ ...spec, half: spec.half + adj.extraHalf / 1e6, size });
    return adj.bid && adj.ask ? quotes : allowedSides(quotes, adj);
  }
  const bids = adj.bid ? sideOf(spec, adj, 'bid', minSize) : [];
  const asks = adj.ask ? sideOf(spec, adj, 'ask', minSize) : [];
  if (bids.length === 0) return asks;
  if (asks.length === 0) return bids;
  // level by level, bid before ask, as ladder() orders them
  const out: DesiredQuote[] = [];
  let i = 0;
  let j = 0;
  while (i < bids.length || j < asks.length) {
    if (j >= asks.length || (i < bids.length && (bids[i]!.level ?? 0) <= (asks[j]!.level ?? 0))) out.push(bids[i++]!);
    else out.push(asks[j++]!);
  }
  return out;
}

function sideOf(spec: LadderSpec, adj: EdgeAdjustment, side: 'bid' | 'ask', minSize: number): DesiredQuote[] {
  const size = sideSize(spec.size, adj, side, minSize);
  if (size === 0) return [];
  const x = sideExtraHalf(adj, side) / 1e6;
  const half = x >= 0 ? spec.half + x : Math.max(Math.min(spec.half, spec.tick / 1e6), spec.half + x);
  return ladder({ ...spec, half, size }).filter((q) => q.side === side);
}

/** The quotes of the sides the adjustment allows, without zero sizes. */
export function allowedSides(quotes: readonly DesiredQuote[], adj: EdgeAdjustment): DesiredQuote[] {
  return quotes.filter((q) => q.size > 0 && (q.side === 'bid' ? adj.bid : adj.ask));
}

const KEYS = [
  'enabled',
  'markoutThreshold',
  'widenPerMarkout',
  'maxWiden',
  'sizeCutPerCent',
  'minSizeFactor',
  'minFills',
  'oneSidedImbalance',
  'minFlowShares',
  'trending',
  'event',
  'gate',
  'confidence',
  'adverseSize',
  'pooled',
  'marketSpread',
  'prints',
  'printSpread',
  'minPrints',
  'perSide',
  'reduceTighten',
  'pullAdding',
];

/**
 * A strategy's `toxicity:` parameter block (probabilities and shares, as in YAML):
 *   toxicity: { enabled: true, markoutThreshold: 0.005, widenPerMarkout: 1, maxWiden: 0.05,
 *               sizeCutPerCent: 0.25, minSizeFactor: 0.25, minFills: 3, oneSidedImbalance: 0.8,
 *               minFlowShares: 100, trending: { widen: 0.01, size: 0.5 },
 *               event: { widen: 0.02, size: 0.5, pull: false }, gate: measured, confidence: 0.8,
 *               adverseSize: 0.5, pooled: true, marketSpread: 0.005, prints: false, printSpread: 0.03,
 *               minPrints: 10, perSide: true, reduceTighten: 0, pullAdding: false }
 * `toxicity: true` / `false` is short for `{ enabled: … }` with the defaults.
 */
export function parseEdgeGuard(raw: unknown, path: string): EdgeGuardConfig {
  if (raw === undefined || raw === null) return EDGE_GUARD_DEFAULTS;
  if (typeof raw === 'boolean') return { ...EDGE_GUARD_DEFAULTS, enabled: raw };
  const o = readOptionalObject(raw, path, KEYS);
  const d = EDGE_GUARD_DEFAULTS;
  const p = (k: string, dflt: number, max = 0.5) => Math.round(readNumber(o, k, path, { min: 0, max }, dflt / 1e6) * 1e6);
  const response = (k: 'trending' | 'event', dflt: RegimeResponse): RegimeResponse & { pull: boolean } => {
    const r = readOptionalObject(o[k], at(path, k), k === 'event' ? ['widen', 'size', 'pull'] : ['widen', 'size']);
    return {
      widen: Math.round(readNumber(r, 'widen', at(path, k), { min: 0, max: 0.5 }, dflt.widen / 1e6) * 1e6),
      size: readNumber(r, 'size', at(path, k), { min: 0, gt: true, max: 1 }, dflt.size),
      pull: k === 'event' ? readBoolean(r, 'pull', at(path, k), d.event.pull) : false,
    };
  };
  const minSizeFactor = readNumber(o, 'minSizeFactor', path, { min: 0, max: 1 }, d.minSizeFactor);
  const cfg: EdgeGuardConfig = {
    enabled: readBoolean(o, 'enabled', path, true),
    markoutThreshold: p('markoutThreshold', d.markoutThreshold),
    widenPerMarkout: readNumber(o, 'widenPerMarkout', path, { min: 0, max: 100 }, d.widenPerMarkout),
    maxWiden: p('maxWiden', d.maxWiden),
    sizeCutPerCent: readNumber(o, 'sizeCutPerCent', path, { min: 0, max: 1 }, d.sizeCutPerCent),
    minSizeFactor,
    minFills: readNumber(o, 'minFills', path, { min: 0, max: 1e6 }, d.minFills),
    oneSidedImbalance: readNumber(o, 'oneSidedImbalance', path, { min: 0, gt: true, max: 1.01 }, d.oneSidedImbalance),
    minFlowSize: Math.round(readNumber(o, 'minFlowShares', path, { min: 0, max: 1e12 }, d.minFlowSize / 1e6) * 1e6),
    trending: response('trending', d.trending),
    event: response('event', d.event),
    gate: readEnum(o, 'gate', path, ['measured', 'always'] as const, d.gate),
    confidence: readNumber(o, 'confidence', path, { min: 0.5, gt: true, max: 0.9999 }, d.confidence),
    adverseSize: readNumber(o, 'adverseSize', path, { min: 0, gt: true, max: 1 }, d.adverseSize),
    pooled: readBoolean(o, 'pooled', path, d.pooled),
    marketSpread: p('marketSpread', d.marketSpread),
    prints: readBoolean(o, 'prints', path, d.prints),
    printSpread: p('printSpread', d.printSpread),
    minPrints: readNumber(o, 'minPrints', path, { min: 0, max: 1e6 }, d.minPrints),
    perSide: readBoolean(o, 'perSide', path, d.perSide),
    reduceTighten: p('reduceTighten', d.reduceTighten, 0.1),
    pullAdding: readBoolean(o, 'pullAdding', path, d.pullAdding),
  };
  return cfg;
}
