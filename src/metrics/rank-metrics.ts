/**
 * Gauges of the rank selector (src/selection/), for the selected markets only:
 *
 *   {p}market_rank_score{market}              the market's score (Σ weight · term)
 *   {p}market_rank_term{market,term}          each known term, 0..1 (a dropped term has no series)
 *   {p}market_rank_term_drops_total{term,reason}  terms dropped for missing or bad data, per refresh and market
 *   {p}market_rank_requests                   requests the last refresh's ranking spent
 *
 * `registerRankMetrics(registry)` → `update(scores, reports?)`, called after each selection: series of
 * markets that left the selection (or terms that became unknown) are removed, so the gauges show the
 * current selection and nothing else.
 */
import type { Registry } from 'prom-client';
import { declareOn } from './declare.ts';
import { RANK_TERMS } from '../config/types.ts';
import type { RankedScore, RankReport } from '../selection/ranker.ts';

export interface RankMetrics {
  /** scores: lower-case id → the selected market's score; reports: the refresh's rank reports (drops, requests) */
  update(scores: ReadonlyMap<string, RankedScore>, reports?: readonly RankReport[]): void;
}

export function registerRankMetrics(registry: Registry, prefix = 'bookmaker_', label: (id: string, s: RankedScore) => string = (id) => id): RankMetrics {
  const d = declareOn(registry, prefix);
  const score = d.gauge('market_rank_score', 'Rank score of each selected market (sum of weight x term; src/selection/score.ts)', ['market']);
  const term = d.gauge('market_rank_term', 'Each known rank term of each selected market, 0..1', ['market', 'term']);
  const drops = d.counter('market_rank_term_drops_total', 'Rank terms dropped for missing or bad data (one per market and refresh), by term and reason', [
    'term',
    'reason',
  ]);
  const requests = d.gauge('market_rank_requests', "Requests the last refresh's ranking spent (all rank entries)");
  /** market label → the terms it has series for */
  let shown = new Map<string, Set<string>>();
  return {
    update(scores, reports) {
      const next = new Map<string, Set<string>>();
      for (const [id, s] of scores) {
        const m = label(id, s);
        score.set({ market: m }, s.score);
        const ts = new Set<string>();
        for (const t of RANK_TERMS) {
          const v = s.terms[t];
          if (v === null) continue;
          term.set({ market: m, term: t }, v);
          ts.add(t);
        }
        next.set(m, ts);
      }
      for (const [m, ts] of shown) {
        const now = next.get(m);
        if (!now) score.remove({ market: m });
        for (const t of ts) if (!now?.has(t)) term.remove({ market: m, term: t });
      }
      shown = next;
      if (reports) {
        requests.set(reports.reduce((n, x) => n + x.requests, 0));
        for (const rep of reports) for (const row of rep.rows) for (const d of row.drops) drops.inc({ term: d.term, reason: d.reason });
      }
    },
  };
}
