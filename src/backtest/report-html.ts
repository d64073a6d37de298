/**
 * The self-contained HTML report of a backtest: one file, inline CSS and inline SVG charts
 * (./svg-chart.ts), no script, no font or CDN link, so it opens offline and prints. Charts: total PnL
 * with drawdown, inventory per market, and for the most-traded market the recorded mid against our
 * own best bid/ask with every fill marked on the price; then the summary and per-market tables.
 */
import { lineChart, type ChartMarker, type ChartSeries } from './svg-chart.ts';
import type { BacktestSummary } from './report-summary.ts';
import type { BacktestRun } from './run-backtest.ts';

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const short = (id: string): string => (id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);

function num(v: number | null, d = 2): string {
  if (v === null || !Number.isFinite(v)) return '–';
  return v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

function drawdownSeries(pnl: readonly number[]): number[] {
  let peak = -Infinity;
  return pnl.map((v) => {
    peak = Math.max(peak, v);
    return -(peak - v);
  });
}

/** The market with the most fills (ties: first), or the first quoted market. */
function focusMarket(run: BacktestRun): number {
  const counts = run.collector.positions.map((p) => p.fills);
  let best = -1;
  for (let m = 0; m < counts.length; m++) if (best < 0 || counts[m]! > counts[best]!) best = m;
  return Math.max(0, best);
}

/** Recorded mid against our best bid/ask in one market, every fill marked on the price. */
function quotesChart(run: BacktestRun, m: number, height: number): string {
  const c = run.collector;
  const ser = c.series[m]!;
  const t = c.sampleT;
  const cents = (v: readonly number[]): number[] => v.map((x) => x / 10_000);
  const markers: ChartMarker[] = c.fills
    .filter((f) => f.market === m)
    .map((f) => ({ t: f.at, v: f.yesPrice / 10_000, color: f.yesSide === 'bid' ? '#2ca02c' : '#d62728', up: f.yesSide === 'bid', title: `${f.yesSide === 'bid' ? 'bought' : 'sold'} ${f.size / 1e6} @ ${f.yesPrice / 10_000}¢ (${f.maker ? 'maker' : 'taker'}, ${f.cause})` }));
  return lineChart({
    title: `Mid vs own quotes, fills marked — ${short(ser.marketId)} (YES price, cents)`,
    width: 1300,
    height,
    yLabel: 'cents',
    series: [
      { name: 'recorded mid', color: '#555', t, v: cents(ser.mid) },
      { name: 'own bid', color: '#2ca02c', t, v: cents(ser.bid), dash: true },
      { name: 'own ask', color: '#d62728', t, v: cents(ser.ask), dash: true },
    ],
    markers,
  });
}

/** The incomplete-run banner (Ctrl-C) and the no-order / no-fill warnings, above the charts. */
function banners(s: BacktestSummary): string {
  const out: string[] = [];
  if (s.incomplete) {
    const i = s.incomplete;
    out.push(
      `<div class="banner incomplete" id="incomplete"><b>Incomplete run:</b> interrupted at ${esc(new Date(i.stoppedAt).toISOString())} after ${i.rowsReplayed.toLocaleString('en-US')} of ${i.rowsTotal.toLocaleString('en-US')} rows; the figures cover the replayed part only.</div>`,
    );
  }
  if (s.warnings.length > 0) {
    const [head, ...rest] = s.warnings;
    out.push(`<div class="banner warning" id="warnings"><b>Warning: ${esc(head!)}.</b><ul>${rest.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`);
  }
  return out.join('\n');
}

export function buildHtml(run: BacktestRun, s: BacktestSummary, title = 'bookmaker backtest'): string {
  const c = run.collector;
  const t = c.sampleT;
  const toUsd = (v: readonly number[]): number[] => v.map((x) => x / 1e6);
  const pnl = toUsd(c.totalPnl);
  const charts: string[] = [];
  charts.push(
    lineChart({
      title: 'PnL and drawdown (USDC)',
      width: 1300,
      height: 300,
      yLabel: 'USDC',
      series: [
        { name: 'total PnL', color: '#1f77b4', t, v: pnl },
        { name: 'drawdown', color: '#d62728', t, v: drawdownSeries(pnl), area: true },
      ],
    }),
  );
  const inv: ChartSeries[] = c.series.map((ser, m) => ({ name: short(ser.marketId), color: COLORS[m % COLORS.length]!, t, v: ser.net.map((x) => x / 1e6) }));
  charts.push(lineChart({ title: 'Inventory per market (YES-terms net, shares)', width: 1300, height: 260, yLabel: 'shares', series: inv }));
  const fm = focusMarket(run);
  charts.push(quotesChart(run, fm, 380));
  // the other quoted markets, smaller, below the tables
  const quoted = new Set(run.quoted.map((q) => q.toLowerCase()));
  const others = c.series.map((ser, m) => (m !== fm && quoted.has(ser.marketId.toLowerCase()) ? quotesChart(run, m, 220) : '')).filter(Boolean);
  const rows: [string, string][] = [
    ['recording', `${esc(s.recording.source)} · ${s.recording.markets} markets · ${s.recording.rows.toLocaleString('en-US')} rows`],
    ['window', `${s.recording.from} → ${s.recording.to} (${num(s.recording.seconds, 0)} s)`],
    ['mode', `${s.settings.mode} · queue ${esc(s.settings.queueModel)} · strategies ${esc(s.settings.strategies.join(', '))}`],
    ['total PnL', `${num(s.pnl.total)} USDC (realised ${num(s.pnl.realised)}, unrealised ${num(s.pnl.unrealised)})`],
    ['fees paid', `${num(s.feesPaid)} USDC`],
    ['volume', `${num(s.volume)} USDC in ${s.fills} fills`],
    ['maker / taker', `${s.maker.fills} fills (${num(s.maker.volume)} USDC) / ${s.taker.fills} fills (${num(s.taker.volume)} USDC)`],
    ['fill causes', Object.entries(s.fillCauses).map(([k, v]) => `${k} ${v}`).join(' · ')],
    ['inventory', `max long ${num(s.inventory.maxLong)} · max short ${num(s.inventory.maxShort)} · mean |net| ${num(s.inventory.meanAbs)} · final Σ|net| ${num(s.inventory.finalAbs)} shares`],
    ['max drawdown', `${num(s.maxDrawdown)} USDC`],
    ['Sharpe', s.sharpe.value === null ? `– (${s.sharpe.note ?? 'undefined'})` : `${num(s.sharpe.value, 3)} per ${s.sharpe.period} (${s.sharpe.periods} ${s.sharpe.period}s, not annualised)`],
    ['markouts (¢/share)', (['1s', '10s', '60s'] as const).map((h) => `${h}: ${num(s.markouts[h].centsPerShare, 3)} (n=${s.markouts[h].n})`).join(' · ')],
    ['quote uptime', `two-sided ${num(s.quoteUptime.twoSided * 100, 1)}% · any side ${num(s.quoteUptime.anySide * 100, 1)}%`],
    ['orders', `${s.orders.placed} placed · ${s.orders.cancelled} cancelled · ${s.orders.rejected} rejected · ${s.orders.venueCalls} venue calls · order-to-fill ${num(s.orderToFill, 1)}`],
    ['kill switch', s.killed ? esc(s.killed) : 'not fired'],
  ];
  const table = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join('\n');
  const mrows = s.markets
    .map(
      (m) =>
        `<tr><td title="${esc(m.marketId)}">${esc(short(m.marketId))}</td><td>${m.quoted ? 'yes' : 'no'}</td><td>${m.fills}</td><td>${num(m.volume)}</td><td>${num(m.realisedPnl)}</td><td>${num(m.unrealisedPnl)}</td><td>${num(m.totalPnl)}</td><td>${num(m.feesPaid)}</td><td>${num(m.finalPosition)}</td><td>${num(m.maxLong)} / ${num(m.maxShort)}</td><td>${num(m.quoteUptime * 100, 1)}%</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(s.incomplete ? `${title} (incomplete)` : title)}</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.sub { color: #666; margin-bottom: 16px; }
.chart { display: block; margin: 12px 0; border: 1px solid #ddd; background: #fff; max-width: 100%; height: auto; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; font-weight: 600; }
.kpi { display: flex; gap: 12px; flex-wrap: wrap; margin: 8px 0 12px; }
.kpi div { background: #fff; border: 1px solid #ddd; padding: 8px 14px; min-width: 150px; }
.kpi b { display: block; font-size: 18px; }
.banner { border: 1px solid; padding: 10px 14px; margin: 8px 0 12px; background: #fff; }
.banner.incomplete { border-color: #d62728; background: #fdecea; }
.banner.warning { border-color: #e0a800; background: #fff8e1; }
.banner ul { margin: 4px 0 0; padding-left: 20px; }
</style>
</head>
<body>
<h1>${esc(title)}</h1>
<div class="sub">${esc(s.recording.source)} · ${esc(s.recording.from)} → ${esc(s.recording.to)} · ${esc(s.settings.strategies.join(', '))} · ${s.settings.mode} mode</div>
${banners(s)}
<div class="kpi">
<div>total PnL<b>${num(s.pnl.total)} USDC</b></div>
<div>fills<b>${s.fills}</b></div>
<div>volume<b>${num(s.volume)} USDC</b></div>
<div>max drawdown<b>${num(s.maxDrawdown)} USDC</b></div>
<div>two-sided uptime<b>${num(s.quoteUptime.twoSided * 100, 1)}%</b></div>
<div>10 s markout<b>${num(s.markouts['10s'].centsPerShare, 3)} ¢</b></div>
</div>
${charts.join('\n')}
<h2>Summary</h2>
<table class="summary">
${table}
</table>
<h2>Markets</h2>
<table class="markets">
<tr><th>market</th><th>quoted</th><th>fills</th><th>volume</th><th>realised</th><th>unrealised</th><th>total PnL</th><th>fees</th><th>final pos.</th><th>max long / short</th><th>uptime</th></tr>
${mrows}
</table>
${others.length > 0 ? `<h2>Other markets: mid vs own quotes</h2>\n${others.join('\n')}` : ''}
</body>
</html>
`;
}
