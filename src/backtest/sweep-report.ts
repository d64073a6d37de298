/**
 * The HTML report of a sweep (one machine or merged from shards): one offline file with the ranked
 * table (every combination, its parameters and the run's headline figures and PnL attribution) and,
 * when exactly two parameters vary, a heatmap of the ranking score over the grid.
 */
import { heatmapChart } from './svg-bars.ts';
import { rankScore, type RankBy, type SweepResult, type SweepSpec } from './sweep-grid.ts';
import { esc } from './escape-html.ts';
import { reportCss } from './report-css.ts';

const num = (v: number | null | undefined, d = 2): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(d));
const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
const SCORE: Record<RankBy, { label: string; unit: string; of: (r: SweepResult) => number | null }> = {
  pnl: { label: 'total PnL', unit: 'USDC', of: (r) => r.summary?.pnl.total ?? null },
  sharpe: { label: 'Sharpe per stated period', unit: '', of: (r) => r.summary?.sharpe.value ?? null },
  drawdown: { label: 'max drawdown (lower is better)', unit: 'USDC', of: (r) => r.summary?.maxDrawdown ?? null },
  fills: { label: 'fills', unit: '', of: (r) => r.summary?.fills ?? null },
  pnlPerVolume: { label: 'PnL per volume', unit: '', of: (r) => finite(rankScore(r, 'pnlPerVolume')) },
  pnlPerVolumeLow: { label: 'PnL per volume, 95 % lower bound', unit: '', of: (r) => finite(rankScore(r, 'pnlPerVolumeLow')) },
  worstWindow: { label: 'worst window PnL', unit: 'USDC', of: (r) => finite(rankScore(r, 'worstWindow')) },
};

export function buildSweepHtml(ranked: readonly SweepResult[], spec: Pick<SweepSpec, 'grid' | 'rankBy' | 'fast'>, title = 'bookmaker sweep'): string {
  const keys = spec.grid.map(([p]) => p);
  const score = SCORE[spec.rankBy];
  const head = [
    '#',
    ...keys.map((k) => k.split('.').slice(-2).join('.')),
    'PnL',
    'spread',
    'inventory',
    'fees',
    'fills',
    'volume',
    'max DD',
    'Sharpe',
    '10 s markout ¢',
    'uptime',
  ];
  const rows = ranked.map((r, i) => {
    const s = r.summary;
    const vals = keys.map((k) => `<td>${esc(JSON.stringify(r.combo[k]))}</td>`).join('');
    if (!s) return `<tr class="failed"><td>${i + 1}</td>${vals}<td colspan="${head.length - 1 - keys.length}">error: ${esc(r.error ?? '?')}</td></tr>`;
    const a = s.pnl.attribution;
    return `<tr><td>${i + 1}</td>${vals}<td>${num(s.pnl.total)}</td><td>${num(a?.spreadCapture)}</td><td>${num(a?.inventory)}</td><td>${num(a?.fees)}</td><td>${s.fills}</td><td>${num(s.volume, 0)}</td><td>${num(s.maxDrawdown)}</td><td>${s.sharpe.value === null ? '–' : `${num(s.sharpe.value, 3)}/${esc(s.sharpe.period ?? '?')}`}</td><td>${num(s.markouts['10s']?.centsPerShare, 3)}</td><td>${num(s.quoteUptime.twoSided * 100, 1)}%</td></tr>`;
  });
  const varying = spec.grid.filter(([, v]) => v.length > 1);
  let heat = '';
  if (varying.length === 2) {
    const [[rp, rv], [cp, cv]] = varying as [readonly [string, readonly unknown[]], readonly [string, readonly unknown[]]];
    const cell = (a: unknown, b: unknown): number | null => {
      const r = ranked.find((x) => JSON.stringify(x.combo[rp]) === JSON.stringify(a) && JSON.stringify(x.combo[cp]) === JSON.stringify(b));
      return r ? score.of(r) : null;
    };
    heat = heatmapChart({
      title: `${score.label} over the grid${score.unit ? ` (${score.unit})` : ''}`,
      rowName: rp,
      colName: cp,
      rows: rv.map((v) => JSON.stringify(v)),
      cols: cv.map((v) => JSON.stringify(v)),
      cells: rv.map((a) => cv.map((b) => cell(a, b))),
      unit: score.unit,
    });
  }
  const ok = ranked.filter((r) => r.summary).length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<style>
${reportCss('right')}
tr.failed td { color: #a00; }
</style>
</head>
<body>
<h1>${esc(title)}</h1>
<div class="sub">${ranked.length} combinations (${ok} ran, ${ranked.length - ok} failed) · ranked by ${esc(spec.rankBy)} · ${spec.fast ? 'fast mode (no queue model)' : 'full mode'} · grid: ${esc(spec.grid.map(([p, v]) => `${p} ∈ ${JSON.stringify(v)}`).join(' × '))}</div>
${heat}
<h2>Ranked</h2>
<table class="ranked">
<tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>
${rows.join('\n')}
</table>
</body>
</html>
`;
}
