/**
 * The rank reports as a table (`bookmaker markets rank`) or JSON: per rank entry, every candidate with
 * its score, each enabled term (0..1; `-` = dropped, with the reason in JSON), and whether it was
 * selected or why not.
 */
import type { RankTerm } from '../config/types.ts';
import type { RankReport, RankTableRow } from './ranker.ts';
import { RANK_TERMS } from '../config/types.ts';

const SHORT: Record<RankTerm, string> = {
  spread: 'SPREAD',
  depth: 'DEPTH',
  volume: 'VOL',
  volume24h: 'VOL24H',
  volatility: 'VOLAT',
  tradeRate: 'TRADES',
  timeToDeadline: 'DEADLINE',
  oracleDisagreement: 'ORACLE',
  fee: 'FEE',
};

/** What the table says in its last column: the verdict, or why a kept market is not quoted after all. */
export function verdictText(r: RankTableRow, finalSelected: ReadonlySet<string>): string {
  if (r.verdict === 'selected' || r.verdict === 'kept' || r.verdict === 'held') return finalSelected.has(r.id) ? r.verdict : 'max-markets';
  if (r.verdict === 'ineligible') return `ineligible (${r.status})`;
  return r.verdict;
}

const clip = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const usdc = (v: number): string => (v / 1e6).toFixed(2);

export function formatRankTable(
  reports: readonly RankReport[],
  weights: (entry: number) => Readonly<Record<RankTerm, number>>,
  finalSelected: ReadonlySet<string>,
): string {
  if (reports.length === 0) return 'no rank entries in markets:\n';
  const out: string[] = [];
  for (const rep of reports) {
    const w = weights(rep.entry);
    const terms = RANK_TERMS.filter((t) => w[t] !== 0);
    const kept = rep.rows.filter((r) => finalSelected.has(r.id) && ['selected', 'kept', 'held'].includes(r.verdict)).length;
    out.push(
      `markets entry ${rep.entry}: ${kept} selected of ${rep.rows.length} candidates; capital ${usdc(rep.perMarket)} USDC a market, ${rep.total > 0 ? `${usdc(rep.total)} USDC in all` : 'no total cap'}; ${rep.requests} requests${rep.listTruncated ? ' (market list cut at its budget)' : ''}`,
    );
    out.push(`weights: ${terms.map((t) => `${t} ${w[t]}`).join(', ') || 'none'}`);
    const head = ['MARKET', 'NAME', 'SCORE', ...terms.map((t) => SHORT[t]), 'SELECTED'];
    const rows = rep.rows.map((r) => [
      r.marketId,
      clip(r.name, 40),
      r.score.toFixed(3),
      ...terms.map((t) => (r.terms[t] === null ? '-' : r.terms[t]!.toFixed(2))),
      verdictText(r, finalSelected),
    ]);
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : i >= 2 ? c.padStart(width[i]!) : c.padEnd(width[i]!))).join('  ');
    out.push(line(head), ...rows.map(line), '');
  }
  return out.join('\n');
}

export function rankJson(reports: readonly RankReport[], finalSelected: ReadonlySet<string>): unknown {
  return {
    entries: reports.map((rep) => ({
      entry: rep.entry,
      requests: rep.requests,
      listTruncated: rep.listTruncated,
      perMarketUsdc: rep.perMarket / 1e6,
      totalUsdc: rep.total / 1e6,
      markets: rep.rows.map((r) => ({
        marketId: r.marketId,
        name: r.name,
        status: r.status,
        score: r.score,
        effective: r.effective,
        terms: r.terms,
        drops: r.drops,
        verdict: verdictText(r, finalSelected),
        selected: finalSelected.has(r.id) && ['selected', 'kept', 'held'].includes(r.verdict),
      })),
    })),
  };
}
