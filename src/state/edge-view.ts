/**
 * The strategy's ViewEdge of one market (markouts, toxicity, flow, regime), and the exact PnL
 * attribution of a market in 1e-6 USDC for metrics, summaries and reports.
 *
 * Entry points: `edgeView(market, now)`, `printView(edge, now)`, `marketAttribution(market, books?)`.
 * The markouts are remembered in the market's memo (src/state/market-memo.ts) and rebuilt only when they change; the regime and the
 * decayed weights are read at `now` on every call. The attribution (bigint maths) is computed only
 * when asked for, never per tick.
 */
import type { PooledToxicity, ViewEdge, ViewMarkout } from '../strategy/types.ts';
import { decay, type EdgeState, type ToxicitySums } from './edge-state.ts';
import type { MarketState } from './market-state.ts';
import { attributionMicro, attributionToBooks } from './pnl-attribution.ts';
import type { Account } from '../account/account.ts';
import { toMicro, unrealisedScaled } from './position.ts';
import { regimeOf, toxicityWeight } from './regime.ts';

const mark2Of = (m: MarketState): number | null => (m.payoutYes !== null ? m.payoutYes * 2 : m.lastMid2);

export interface MarketAttribution {
  readonly spreadCapture: bigint;
  readonly inventory: bigint;
  readonly fees: bigint;
  readonly resolution: bigint;
  /** = the four summed; the store's PnL of the fills (realised + unrealised at the mark) */
  readonly total: bigint;
}

/**
 * The market's attribution in 1e-6 USDC. With the account's books (every runtime consumer: metrics,
 * terminal summary, run report), summing exactly to the books' PnL of the market
 * (src/state/pnl-attribution.ts attributionToBooks; docs/books-and-pnl.md). Without (tools, tests),
 * summing exactly to the PnL the fills imply at the current
 * mark (the last mid, or the payout once resolved), rounded as src/state/position.ts rounds it. A
 * position sync that rewrote the holdings (PositionSynced) is not a fill: the store's own PnL then
 * differs from this by what the venue reported beyond the fills.
 */
export function marketAttribution(m: MarketState, books?: Account): MarketAttribution {
  const a = m.edge.attribution;
  if (books !== undefined) {
    // the books' figures (one PnL function): the components add up to the account's
    // per-market PnL to the unit, the PnL every other consumer shows
    const pnl = books.marketPnl(m.marketId);
    return attributionToBooks(a, books.market(m.marketId)?.fees ?? 0n, pnl.realised + pnl.unrealised);
  }
  const mark2 = mark2Of(m);
  // the same rounding as the reported PnL: realised and unrealised each floored to 1e-6 USDC
  const target = a.fills === 0 ? 0n : fillsPnlMicro(a.net, a.mid2, mark2, m);
  return attributionMicro(a, mark2, target, m.position.basis);
}

/**
 * PnL in 1e-6 USDC of the fills at the mark. With the store's position built from the same fills
 * (no sync changed it), this is exactly marketPnl's realised + unrealised; otherwise the exact
 * total floored.
 */
function fillsPnlMicro(net: bigint, mid2: bigint | null, mark2: number | null, m: MarketState): bigint | undefined {
  const p = m.position;
  if (BigInt(p.net) !== net || mid2 === null) return undefined;
  return toMicro(p.realised) + (mark2 === null ? 0n : toMicro(unrealisedScaled(p, mark2)));
}

/** The view's markouts, rebuilt only when the market's markout sums change (kept in its memo, src/state/market-memo.ts). */
function markoutsOf(m: MarketState): readonly ViewMarkout[] {
  const memo = m.memo;
  const e = m.edge;
  if (memo.markoutSums !== e.markouts) {
    memo.markouts = e.settings.markoutHorizonsMs.map((h, i) => {
      const s = e.markouts[i]!;
      return { horizonMs: h, perShare: s.size > 0 ? s.edge / s.size : null, n: s.n };
    });
    memo.markoutSums = e.markouts;
  }
  return memo.markouts;
}

/** The decayed sums behind a toxicity average (a market's own, or the pool's), as toxicityStdErr reads them. */
export interface ToxicityMoments {
  readonly toxNum: number;
  readonly toxDen: number;
  readonly toxSq: number;
  readonly toxW2: number;
  /** decayed number of fills behind the sums (absent: the pick-offs' count is not asked for) */
  readonly toxCount?: number;
  /** the picked-off fills' Σ size, Σ markout × size, Σ markout² × size (absent: none kept apart) */
  readonly toxPDen?: number;
  readonly toxPNum?: number;
  readonly toxPSq?: number;
}

/**
 * Standard error of the decayed toxicity average, for the guard's one-sided test that the mean
 * markout is below zero: a variance over the effective sample size (Σw)² / Σw² of the decayed
 * weights (both unchanged by the common decay to now). Null with fewer than two fills' worth of
 * weight.
 *
 * The variance: with picked-off fills among the rest and the rest earning (their mean c > 0, the
 * pick-offs' mean loss J), the variance of one markout at the break-even share of pick-offs
 * π* = c / (c + J), where the mean is zero: c·J + (1 − π*)·var(rest) + π*·var(pick-offs) — a
 * score test, the variance taken under the null rather than from the sample. Markouts on news
 * are a mixture of many small gains and a few large losses; the sample's variance grows with the
 * share of pick-offs, so the more the bot is picked off the wider its own interval (the Wald
 * test penalises itself), and a strategy that trades a few dozen fills a market never shows its
 * losses. The break-even variance does not grow with them. It needs at least MIN_PICKOFFS fills'
 * worth of pick-offs (their share of the weight × the fills behind it): with one pick-off among a
 * handful of fills the normal bound is far from the binomial truth (one pick-off in five fills
 * happens by chance a third of the time at a break-even share of 7 %), and a benign run's rare jump
 * would open the gate. Otherwise (fewer pick-offs, nothing but pick-offs, or the rest losing too)
 * the sample's weighted variance. docs/edge.md, "The guard".
 */
export function toxicityStdErr(e: ToxicityMoments): number | null {
  if (!(e.toxDen > 0) || !(e.toxW2 > 0)) return null;
  const mean = e.toxNum / e.toxDen;
  const nEff = (e.toxDen * e.toxDen) / e.toxW2;
  if (nEff < 2) return null;
  const v0 = breakEvenVariance(e);
  if (v0 !== null) return Math.sqrt(v0 / nEff);
  const variance = Math.max(0, e.toxSq / e.toxDen - mean * mean) * (nEff / (nEff - 1));
  return Math.sqrt(variance / nEff);
}

/** pick-offs (fills' worth) behind the break-even variance before toxicityStdErr uses it */
export const MIN_PICKOFFS = 2;

/** One markout's variance at the break-even share of pick-offs (see toxicityStdErr); null when it does not apply. */
function breakEvenVariance(e: ToxicityMoments): number | null {
  const pden = e.toxPDen ?? 0;
  const rden = e.toxDen - pden;
  // sums that cancel to rounding are empty
  if (!(pden > 1e-9 * e.toxDen) || !(rden > 1e-9 * e.toxDen)) return null;
  if (!(((e.toxCount ?? 0) * pden) / e.toxDen >= MIN_PICKOFFS)) return null;
  const pnum = e.toxPNum ?? 0;
  const c = (e.toxNum - pnum) / rden;
  const j = -pnum / pden;
  if (!(c > 0) || !(j > 0)) return null;
  const pi = c / (c + j);
  const psq = e.toxPSq ?? 0;
  const vRest = Math.max(0, (e.toxSq - psq) / rden - c * c);
  const vPicked = Math.max(0, psq / pden - j * j);
  return c * j + (1 - pi) * vRest + pi * vPicked;
}

/**
 * The pool without one market's own share of it (both decayed to the later of their times): the
 * other markets' evidence, so a market's own fills are not counted twice when the guard weighs them
 * against the pool. Sums that cancel to rounding are empty.
 */
export function poolWithout(pool: ToxicitySums, own: ToxicitySums, halfLifeMs: number): ToxicitySums {
  if (own.den <= 0) return pool;
  const t = Math.max(pool.ts, own.ts);
  const dp = decay(t - pool.ts, halfLifeMs);
  const d = decay(t - own.ts, halfLifeMs);
  const den = pool.den * dp - own.den * d;
  if (!(den > 1e-9 * pool.den * dp)) return { num: 0, den: 0, count: 0, sq: 0, w2: 0, pden: 0, pnum: 0, psq: 0, ts: t };
  return {
    num: pool.num * dp - own.num * d,
    den,
    count: Math.max(0, pool.count * dp - own.count * d),
    sq: Math.max(0, pool.sq * dp - own.sq * d),
    w2: Math.max(0, pool.w2 * dp * dp - own.w2 * d * d),
    pden: Math.max(0, pool.pden * dp - own.pden * d),
    pnum: Math.min(0, pool.pnum * dp - own.pnum * d),
    psq: Math.max(0, pool.psq * dp - own.psq * d),
    ts: t,
  };
}

/**
 * The account's pooled toxicity at `now` (the store's `toxicityPool`, decayed with `halfLifeMs`): its
 * average, the decayed fill count behind it and its standard error, as for one market.
 */
export function poolView(p: ToxicitySums, now: number, halfLifeMs: number): PooledToxicity {
  return {
    toxicity: p.den > 0 ? p.num / p.den : null,
    weight: p.den > 0 ? p.count * decay(now - p.ts, halfLifeMs) : 0,
    stdErr: toxicityStdErr({ toxNum: p.num, toxDen: p.den, toxSq: p.sq, toxW2: p.w2, toxCount: p.count, toxPDen: p.pden, toxPNum: p.pnum, toxPSq: p.psq }),
  };
}

/**
 * The market's print markout at `now` (its `prints` sums, decayed with `printHalfLifeMs`): the same
 * average, weight and standard error as the pool's (poolView), over the passive side of the market's
 * trades. One function for the view, the metrics and the guard's evidence.
 */
export function printView(e: EdgeState, now: number): PooledToxicity {
  return poolView(e.prints, now, e.settings.printHalfLifeMs);
}

/** The market's edge view at `now`; with `pool` (the account's, poolView), the guard's prior for it. */
export function edgeView(m: MarketState, now: number, pool?: PooledToxicity): ViewEdge {
  const markouts = markoutsOf(m);
  const e = m.edge;
  const r = regimeOf(m, now);
  // no taker volume yet: the decayed size is 0 without the pow
  const flowSize = e.flowDen > 0 ? e.flowDen * decay(now - e.flowTs, e.settings.flowHalfLifeMs) : 0;
  return {
    regime: r.regime,
    regimeSince: r.regime === e.regime ? e.regimeSince : now,
    regimeCause: r.cause,
    toxicity: e.toxDen > 0 ? e.toxNum / e.toxDen : null,
    toxicityWeight: toxicityWeight(e, now),
    toxicityStdErr: toxicityStdErr(e),
    pool,
    prints: printView(e, now),
    flowImbalance: e.flowDen > 0 ? e.flowNum / e.flowDen : 0,
    flowSize: flowSize * 1e6,
    markouts,
  };
}
