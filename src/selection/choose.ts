/**
 * Which scored markets a `rank:` entry keeps (pure: the time is passed in).
 *
 * 1. Only eligible markets count: status active (resolved, closed, paused/pending ones are out at once,
 *    whatever their hold) and shortlisted (scored in full).
 * 2. Hysteresis. A market now quoted (`previous`) competes with its score + enterMargin, so a
 *    challenger must beat it by more than the margin to take its place, and the floor (minScore)
 *    applies to it minus the margin too. A market selected less than minHoldMs ago is held: it goes
 *    first, whatever its score.
 * 3. Greedy by that order (held first, then effective score, then id for a stable tie-break): a market
 *    is kept while fewer than `top` are kept and its capital fits in what is left of `total`.
 */
import type { RankTerms } from './score.ts';

export interface RankCandidate {
  /** lower-case market id */
  readonly id: string;
  readonly score: number;
  readonly terms: RankTerms;
  /** the venue's status; only 'active' is eligible */
  readonly status: string;
  /** scored in full (false: outside the shortlist or the request budget) */
  readonly scored: boolean;
}

export interface ChooseSettings {
  readonly top: number;
  readonly minScore: number | null;
  /** 1e-6 USDC */
  readonly perMarket: number;
  /** 1e-6 USDC; 0 = no cap */
  readonly total: number;
  readonly enterMargin: number;
  readonly minHoldMs: number;
}

export interface ChooseState {
  /** lower-case ids quoted now (undefined = the first selection: no hysteresis) */
  readonly previous: ReadonlySet<string> | undefined;
  /** when each market now selected by this entry was selected, ms */
  readonly enteredAt: ReadonlyMap<string, number>;
  readonly nowMs: number;
}

/** Why a market was or was not kept, as the table and the log show it. */
export type RankVerdict =
  | 'selected' // kept on its score
  | 'kept' // quoted already, kept thanks to the margin (it would not have entered on its score alone)
  | 'held' // kept for its minimum hold
  | 'ineligible' // not active (resolved, closed, pending)
  | 'not-shortlisted' // outside the markets scored in full this refresh
  | 'below-min-score'
  | 'ranked-out' // beyond the top N
  | 'capital'; // no capital left for it

export interface RankDecision extends RankCandidate {
  readonly verdict: RankVerdict;
  /** score + enterMargin for a market quoted now, else the score */
  readonly effective: number;
  /** 1-based place in the order of consideration among eligible markets (0 = not eligible) */
  readonly place: number;
}

/** (fields listed, not spread: a spread of thousands of candidates is slow, and extra fields of the caller's rows are not carried) */
function decision(c: RankCandidate, verdict: RankVerdict, effective: number, place: number): RankDecision {
  return { id: c.id, score: c.score, terms: c.terms, status: c.status, scored: c.scored, verdict, effective, place };
}

export const isKept = (v: RankVerdict): boolean => v === 'selected' || v === 'kept' || v === 'held';

export function chooseRanked(cands: readonly RankCandidate[], s: ChooseSettings, st: ChooseState): RankDecision[] {
  const out: RankDecision[] = [];
  const pool: { c: RankCandidate; eff: number; held: boolean; inc: boolean }[] = [];
  for (const c of cands) {
    const inc = st.previous?.has(c.id) ?? false;
    const eff = c.score + (inc ? s.enterMargin : 0);
    if (c.status !== 'active') out.push(decision(c, 'ineligible', eff, 0));
    else if (!c.scored) out.push(decision(c, 'not-shortlisted', eff, 0));
    else {
      const since = st.enteredAt.get(c.id);
      const held = inc && since !== undefined && st.nowMs - since < s.minHoldMs;
      pool.push({ c, eff, held, inc });
    }
  }
  pool.sort((a, b) => Number(b.held) - Number(a.held) || b.eff - a.eff || (a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0));
  let kept = 0;
  let used = 0;
  pool.forEach(({ c, eff, held, inc }, i) => {
    let verdict: RankVerdict;
    if (!held && s.minScore !== null && eff < s.minScore) verdict = 'below-min-score';
    else if (kept >= s.top) verdict = 'ranked-out';
    else if (s.total > 0 && used + s.perMarket > s.total) verdict = 'capital';
    else {
      kept++;
      used += s.perMarket;
      verdict = held ? 'held' : inc && !wouldEnter(pool, i, s) ? 'kept' : 'selected';
    }
    out.push(decision(c, verdict, eff, i + 1));
  });
  return out;
}

/** Would the market at `i` have been kept on its bare score, without the margin? (for the verdict text only) */
function wouldEnter(pool: readonly { c: RankCandidate; eff: number; held: boolean }[], i: number, s: ChooseSettings): boolean {
  const me = pool[i]!.c.score;
  if (s.minScore !== null && me < s.minScore) return false;
  let ahead = 0;
  for (const [j, p] of pool.entries()) if (j !== i && (p.held || (p.eff > me && (s.minScore === null || p.eff >= s.minScore)))) ahead++;
  const cap = s.total > 0 && s.perMarket > 0 ? Math.min(s.top, Math.floor(s.total / s.perMarket)) : s.top;
  return ahead < cap;
}
