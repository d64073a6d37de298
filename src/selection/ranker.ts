/**
 * The state ranking keeps between refreshes, and the scores of the markets it selected.
 *
 * `Ranker.rank(src, entry, cfg, ctx)` gathers the figures of one `rank:` entry (./gather.ts), decides
 * (./choose.ts) and keeps the report; `commit(selected, nowMs)` is called by selectMarkets with the
 * final selection so the hold times (minHoldSeconds) start when a market is really selected.
 * `scores()` is the accessor for the summary and the metrics: each selected ranked market's score and
 * terms. A ranker belongs to whoever selects again (the live bot's select phase, `bot.ranker`); without
 * one, selectMarkets ranks with a fresh one (a one-off selection: `markets`, `record`, the doctor). One
 * selection at a time per ranker (a refresh and a reload must not overlap).
 */
import type { Logger } from '../core/logger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { MarketConfig, RankSettings } from '../config/types.ts';
import { chooseRanked, isKept, type RankDecision } from './choose.ts';
import { gatherRank, type RankRow, type RankSource, type TermDrop } from './gather.ts';
import type { RankTerms } from './score.ts';

export interface RankedScore {
  readonly score: number;
  readonly terms: RankTerms;
  /** index of the config entry that ranked it */
  readonly entry: number;
  /** slug or short question */
  readonly name: string;
}

export type RankTableRow = RankDecision & Pick<RankRow, 'marketId' | 'name' | 'drops'>;

export interface RankReport {
  readonly entry: number;
  readonly rows: readonly RankTableRow[];
  readonly requests: number;
  readonly listTruncated: boolean;
  /** capital one market takes and the cap of the entry, 1e-6 USDC (0 = no cap) */
  readonly perMarket: number;
  readonly total: number;
}

/** The capital settings of an entry: rank.capital, else its risk limits. */
export function capitalOf(rank: RankSettings, cfg: MarketConfig): { perMarket: number; total: number } {
  return { perMarket: rank.perMarket ?? cfg.risk.maxNotional, total: rank.total ?? cfg.risk.maxTotalNotional };
}

export class Ranker {
  /** per entry: market → when it was selected, ms */
  private readonly entered = new Map<number, Map<string, number>>();
  private readonly reports = new Map<number, RankReport>();
  private selected = new Map<string, RankedScore>();

  async rank(
    src: RankSource,
    entry: number,
    cfg: MarketConfig,
    ctx: { nowMs: number; skip: (id: string) => boolean; previous: ReadonlySet<string> | undefined; log?: Logger },
  ): Promise<RankReport> {
    if (cfg.select.by !== 'rank') throw new Error(`entry ${entry} is not a rank entry`);
    const s = cfg.select.rank;
    const entered = this.entered.get(entry) ?? new Map<string, number>();
    const incumbents = new Set([...entered.keys()].filter((id) => ctx.previous?.has(id) ?? false));
    const g = await gatherRank(src, s, { nowMs: ctx.nowMs, skip: ctx.skip, incumbents, ...(ctx.log ? { log: ctx.log } : {}) });
    const cap = capitalOf(s, cfg);
    const decisions = chooseRanked(
      g.rows,
      { top: s.top, minScore: s.minScore, perMarket: cap.perMarket, total: cap.total, enterMargin: s.enterMargin, minHoldMs: s.minHoldMs },
      { previous: ctx.previous, enteredAt: entered, nowMs: ctx.nowMs },
    );
    const byId = new Map(g.rows.map((r) => [r.id, r]));
    const rows = decisions
      .map((d) => tableRow(d, byId.get(d.id)!))
      .sort((a, b) => Number(isKept(b.verdict)) - Number(isKept(a.verdict)) || (a.place || Infinity) - (b.place || Infinity) || b.score - a.score);
    const report: RankReport = { entry, rows, requests: g.requests, listTruncated: g.listTruncated, ...cap };
    this.reports.set(entry, report);
    const drops = rows.flatMap((r) => r.drops);
    if (drops.length > 0 && ctx.log)
      ctx.log.info(
        { entry, drops: dropCounts(drops), markets: rows.filter((r) => r.drops.length > 0).length },
        'rank: terms dropped for missing or bad data (they count 0)',
      );
    return report;
  }

  /** Record the final selection (after first-entry-wins and the cap): hold clocks start, scores are published. */
  commit(selected: ReadonlyMap<string, number>, nowMs: number): void {
    const scores = new Map<string, RankedScore>();
    const entered = new Map<number, Map<string, number>>();
    for (const [entry, report] of this.reports) {
      const prev = this.entered.get(entry) ?? new Map<string, number>();
      const next = new Map<string, number>();
      entered.set(entry, next);
      for (const r of report.rows) {
        if (selected.get(r.id) !== entry || !isKept(r.verdict)) continue;
        next.set(r.id, prev.get(r.id) ?? nowMs);
        scores.set(r.id, { score: r.score, terms: r.terms, entry, name: r.name });
      }
    }
    this.entered.clear();
    for (const [k, v] of entered) this.entered.set(k, v);
    this.selected = scores;
  }

  /** Forget the reports of a refresh (the entries that ranked nothing this time keep no scores). */
  beginRefresh(): void {
    this.reports.clear();
  }

  /** each selected ranked market's score and terms (market id → score) */
  scores(): ReadonlyMap<string, RankedScore> {
    return this.selected;
  }

  /**
   * Why the last selection did not keep a market a rank entry scored (for a retirement's reason):
   * `ranked-out` (beaten, out of capital, below the floor or outside the shortlist), `ineligible`
   * (not active), or null when no rank entry scored it or one kept it.
   */
  leftBecause(id: Bytes32): 'ranked-out' | 'ineligible' | null {
    let why: 'ranked-out' | 'ineligible' | null = null;
    for (const r of this.reports.values()) {
      const row = r.rows.find((x) => x.id === id);
      if (!row) continue;
      if (isKept(row.verdict)) return null;
      why = row.verdict === 'ineligible' ? 'ineligible' : 'ranked-out';
    }
    return why;
  }

  /** the last refresh's report of each rank entry */
  lastReports(): RankReport[] {
    return [...this.reports.values()];
  }
}

export function dropCounts(drops: readonly TermDrop[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of drops) out[`${d.term}:${d.reason}`] = (out[`${d.term}:${d.reason}`] ?? 0) + 1;
  return out;
}

/**
 * `{ ...d, marketId, name, drops }` as one literal, the same keys in the same order (a decision has exactly
 * choose.ts's fields): a spread followed by new keys gave each kept row a V8 map of its own (docs/performance/map-churn.md).
 */
export function tableRow(d: RankDecision, r: RankRow): RankTableRow {
  return {
    id: d.id,
    score: d.score,
    terms: d.terms,
    status: d.status,
    scored: d.scored,
    verdict: d.verdict,
    effective: d.effective,
    place: d.place,
    marketId: r.marketId,
    name: r.name,
    drops: r.drops,
  };
}
