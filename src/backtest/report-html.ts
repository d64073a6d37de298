/**
 * The self-contained HTML report of a backtest: one file, inline CSS, inline SVG charts
 * (./svg-chart.ts, ./svg-bars.ts) and one small inline script for the zoom control; no font or CDN
 * link, so it opens offline and prints. Charts: total PnL with drawdown, the PnL attribution as a
 * waterfall, inventory per market, the markout curve per horizon, and for the most-traded market
 * the recorded best bid and ask with our own quotes and every fill on them (with a legend); a time
 * range control zooms every time chart. Then the run (strategy and parameters, data, models), the
 * summary and per-market tables, markets named by the recording's names where it has them.
 */
import { RANK_TERMS } from '../config/types.ts';
import { markoutHorizons } from './report-summary.ts';
import { categoryChart, waterfallChart } from './svg-bars.ts';
import { lineChart, zoomScript, type ChartMarker, type ChartSeries } from './svg-chart.ts';
import type { BacktestSummary } from './report-summary.ts';
import type { BacktestRun } from './run-backtest.ts';
import { esc } from './escape-html.ts';
import { reportCss } from './report-css.ts';

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const short = (id: string): string => (id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);

/** A market's display name: the recording's name, else a short id. */
function namer(run: BacktestRun): (id: string) => string {
  const names = new Map(run.source.manifest.markets.map((m) => [m.id, m.name]));
  return (id) => names.get(id) ?? short(id);
}

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
    .map((f) => ({
      t: f.at,
      v: f.yesPrice / 10_000,
      color: f.yesSide === 'bid' ? '#2ca02c' : '#d62728',
      up: f.yesSide === 'bid',
      title: `${new Date(f.at).toISOString().slice(11, 23)} ${f.yesSide === 'bid' ? 'bought' : 'sold'} ${f.size / 1e6} @ ${f.yesPrice / 10_000}¢ (${f.maker ? 'maker' : 'taker'}, ${f.cause})`,
    }));
  return lineChart({
    title: `Best bid and ask with own quotes and fills — ${namer(run)(ser.marketId)} (YES price, cents)`,
    width: 1300,
    height,
    yLabel: 'cents',
    zoom: true,
    series: [
      { name: 'recorded best bid', color: '#8fbc8f', t, v: cents(ser.bestBid) },
      { name: 'recorded best ask', color: '#e9967a', t, v: cents(ser.bestAsk) },
      { name: 'recorded mid', color: '#999', t, v: cents(ser.mid) },
      { name: 'own bid', color: '#2ca02c', t, v: cents(ser.bid), dash: true },
      { name: 'own ask', color: '#d62728', t, v: cents(ser.ask), dash: true },
      // legend entries for the fill markers (no line)
      { name: '▲ bought (fill)', color: '#2ca02c', t: [], v: [] },
      { name: '▼ sold (fill)', color: '#d62728', t: [], v: [] },
    ],
    markers,
  });
}

/** rank: entries: the markets ranked in, with their score and terms, and the terms the recording could not give. */
function rankingHtml(s: BacktestSummary): string {
  const r = s.ranking;
  if (!r) return '';
  const out = [
    `<h2>Ranked markets</h2>`,
    `<p id="ranking">Ranked at ${esc(r.at)} over a ${r.lookbackSeconds} s look-back${r.windowMovedFrom ? ` (the replay starts there; the window started at ${esc(r.windowMovedFrom)})` : ''}.</p>`,
  ];
  for (const e of r.entries) {
    const terms = RANK_TERMS.filter((t) => e.selected.some((m) => m.terms[t] !== null));
    out.push(
      `<p>markets entry ${e.entry}: ${e.selected.length} selected of ${e.candidates} candidates (${e.eligible} eligible)${e.droppedTerms.length > 0 ? `; terms dropped: ${esc(e.droppedTerms.map((d) => `${d.term} (${d.reason}${d.note ? `: ${d.note}` : ''}, ${d.markets})`).join(', '))}` : ''}</p>`,
    );
    out.push(`<table class="ranking"><tr><th>market</th><th>score</th>${terms.map((t) => `<th>${t}</th>`).join('')}</tr>`);
    for (const m of e.selected)
      out.push(
        `<tr><td>${esc(m.name)}</td><td>${m.score.toFixed(3)}</td>${terms.map((t) => `<td>${m.terms[t] === null ? '–' : m.terms[t]!.toFixed(2)}</td>`).join('')}</tr>`,
      );
    out.push('</table>');
  }
  return out.join('\n') + '\n';
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
      zoom: true,
      series: [
        { name: 'total PnL', color: '#1f77b4', t, v: pnl },
        { name: 'drawdown', color: '#d62728', t, v: drawdownSeries(pnl), area: true },
      ],
    }),
  );
  const a = s.pnl.attribution;
  charts.push(
    waterfallChart({
      title: 'Where the PnL came from (USDC): spread capture, inventory, fees, resolution → total',
      width: 1300,
      height: 260,
      unit: 'USDC',
      steps: [
        { name: 'spread capture', value: a.spreadCapture },
        { name: 'inventory', value: a.inventory },
        { name: 'fees', value: a.fees },
        { name: 'resolution', value: a.resolution },
      ],
      totalName: 'total PnL',
    }),
  );
  const name = namer(run);
  const inv: ChartSeries[] = c.series.map((ser, m) => ({ name: name(ser.marketId), color: COLORS[m % COLORS.length]!, t, v: ser.net.map((x) => x / 1e6) }));
  charts.push(lineChart({ title: 'Inventory per market (YES-terms net, shares)', width: 1300, height: 260, yLabel: 'shares', series: inv, zoom: true }));
  charts.push(markoutChart(run, s));
  const fm = focusMarket(run);
  charts.push(quotesChart(run, fm, 380));
  // the other quoted markets, smaller, below the tables
  const quoted = new Set<string>(run.quoted);
  const others = c.series.map((ser, m) => (m !== fm && quoted.has(ser.marketId) ? quotesChart(run, m, 220) : '')).filter(Boolean);
  const rows: [string, string][] = [
    [
      'PnL attribution',
      `spread capture ${num(a.spreadCapture, 6)} · inventory ${num(a.inventory, 6)} · fees ${num(a.fees, 6)} · resolution ${num(a.resolution, 6)} = ${num(s.pnl.total, 6)} USDC`,
    ],
    [
      'regimes (share of samples)',
      Object.entries(s.regimes)
        .map(([k, v]) => `${esc(k)} ${num(v * 100, 1)}%`)
        .join(' · '),
    ],
    ['recording', `${esc(s.recording.source)} · ${s.recording.markets} markets · ${s.recording.rows.toLocaleString('en-US')} rows`],
    ['window', `${s.recording.from} → ${s.recording.to} (${num(s.recording.seconds, 0)} s)`],
    ['mode', `${s.settings.mode} · queue ${esc(s.settings.queueModel)} · strategies ${esc(s.settings.strategies.join(', '))}`],
    ['total PnL', `${num(s.pnl.total)} USDC (realised ${num(s.pnl.realised)}, unrealised ${num(s.pnl.unrealised)})`],
    ['fees paid', `${num(s.feesPaid)} USDC`],
    ['volume', `${num(s.volume)} USDC in ${s.fills} fills`],
    ['maker / taker', `${s.maker.fills} fills (${num(s.maker.volume)} USDC) / ${s.taker.fills} fills (${num(s.taker.volume)} USDC)`],
    [
      'fill causes',
      Object.entries(s.fillCauses)
        .map(([k, v]) => `${k} ${v}`)
        .join(' · '),
    ],
    [
      'inventory',
      `max long ${num(s.inventory.maxLong)} · max short ${num(s.inventory.maxShort)} · mean |net| ${num(s.inventory.meanAbs)} · final Σ|net| ${num(s.inventory.finalAbs)} shares`,
    ],
    ['max drawdown', `${num(s.maxDrawdown)} USDC`],
    [
      'Sharpe',
      s.sharpe.value === null
        ? `– (${s.sharpe.note ?? 'undefined'})`
        : `${num(s.sharpe.value, 3)} per ${s.sharpe.period} (${s.sharpe.periods} ${s.sharpe.period}s, not annualised)`,
    ],
    [
      'markouts (¢/share)',
      Object.entries(s.markouts)
        .map(([h, k]) => `${h}: ${num(k.centsPerShare, 3)} (n=${k.n})`)
        .join(' · '),
    ],
    ['quote uptime', `two-sided ${num(s.quoteUptime.twoSided * 100, 1)}% · any side ${num(s.quoteUptime.anySide * 100, 1)}%`],
    [
      'orders',
      `${s.orders.placed} placed · ${s.orders.cancelled} cancelled · ${s.orders.rejected} rejected · ${s.orders.venueCalls} venue calls · order-to-fill ${num(s.orderToFill, 1)}`,
    ],
    ['kill switch', s.killed ? esc(s.killed) : 'not fired'],
  ];
  const table = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join('\n');
  const mrows = s.markets
    .map(
      (m) =>
        `<tr><td title="${esc(m.marketId)}">${esc(name(m.marketId))}</td><td>${m.quoted ? 'yes' : 'no'}</td><td>${m.fills}</td><td>${num(m.volume)}</td><td>${num(m.realisedPnl)}</td><td>${num(m.unrealisedPnl)}</td><td>${num(m.totalPnl)}</td><td>${num(m.feesPaid)}</td><td>${num(m.finalPosition)}</td><td>${num(m.maxLong)} / ${num(m.maxShort)}</td><td>${num(m.quoteUptime * 100, 1)}%</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(s.incomplete ? `${title} (incomplete)` : title)}</title>
<style>
${reportCss('left')}
.kpi { display: flex; gap: 12px; flex-wrap: wrap; margin: 8px 0 12px; }
.kpi div { background: #fff; border: 1px solid #ddd; padding: 8px 14px; min-width: 150px; }
.kpi b { display: block; font-size: 18px; }
.banner { border: 1px solid; padding: 10px 14px; margin: 8px 0 12px; background: #fff; }
.banner.incomplete { border-color: #d62728; background: #fdecea; }
.banner.warning { border-color: #e0a800; background: #fff8e1; }
.banner ul { margin: 4px 0 0; padding-left: 20px; }
.zoom { position: sticky; top: 0; background: #fafafa; padding: 6px 0; z-index: 1; }
.zoom input { width: 300px; vertical-align: middle; }
table.run td { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
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
<div class="zoom">zoom the time charts: <input id="zoom-from" type="range" min="0" max="1000" value="0" aria-label="from"> <input id="zoom-to" type="range" min="0" max="1000" value="1000" aria-label="to"> <span id="zoom-label">${esc(s.recording.from.slice(11, 19))} → ${esc(s.recording.to.slice(11, 19))}</span> <button id="zoom-reset" type="button">reset</button></div>
${charts.join('\n')}
<h2>Summary</h2>
<table class="summary">
${table}
</table>
<h2>Run: strategy, parameters, data, models</h2>
<table class="run">
${runTable(run, s)}
</table>
${rankingHtml(s)}<h2>Markets</h2>
<table class="markets">
<tr><th>market</th><th>quoted</th><th>fills</th><th>volume</th><th>realised</th><th>unrealised</th><th>total PnL</th><th>fees</th><th>final pos.</th><th>max long / short</th><th>uptime</th></tr>
${mrows}
</table>
${others.length > 0 ? `<h2>Other markets: mid vs own quotes</h2>\n${others.join('\n')}` : ''}
${zoomScript()}
</body>
</html>
`;
}

/** Markouts per horizon, size-weighted, for all fills and for maker and taker fills apart (¢/share). */
function markoutChart(run: BacktestRun, s: BacktestSummary): string {
  const c = run.collector;
  const hs = markoutHorizons(run);
  const curve = (keep: (maker: boolean) => boolean): (number | null)[] =>
    hs.map((h) => {
      let num = 0;
      let den = 0;
      for (const f of c.fills) {
        if (!keep(f.maker) || f.at + h > run.end) continue;
        const mid = c.midAt(f.market, f.at + h);
        if (!Number.isFinite(mid)) continue;
        num += (f.yesSide === 'bid' ? mid - f.yesPrice : f.yesPrice - mid) * f.size;
        den += f.size;
      }
      return den > 0 ? num / den / 10_000 : null;
    });
  return categoryChart({
    title: `Markout curve: mid move after our fills, cents per share (positive = in our favour; ${s.fills} fills)`,
    width: 1300,
    height: 260,
    yLabel: '¢ / share',
    categories: hs.map((h) => `${h / 1000} s`),
    series: [
      { name: 'all fills', color: '#1f77b4', v: curve(() => true) },
      { name: 'maker fills', color: '#2ca02c', v: curve((m) => m) },
      { name: 'taker fills', color: '#d62728', v: curve((m) => !m) },
    ],
  });
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : typeof x === 'function' ? undefined : x));

/** What ran: strategies with their parsed parameters (integer units), the data, and the models. */
function runTable(run: BacktestRun, s: BacktestSummary): string {
  const name = namer(run);
  const rows: [string, string][] = [];
  const seen = new Map<string, string[]>();
  for (const p of run.strategyParams ?? []) {
    const key = `${p.strategy} ${json(p.params)}`;
    seen.set(key, [...(seen.get(key) ?? []), name(p.marketId)]);
  }
  for (const [key, markets] of seen) {
    const i = key.indexOf(' ');
    rows.push([`strategy ${key.slice(0, i)}`, `${esc(key.slice(i + 1))}\n(markets: ${esc(markets.join(', '))}; prices in 1e-6 USDC, sizes in 1e-6 shares)`]);
  }
  const m = run.source.manifest;
  rows.push(['data', `${esc(m.source)} · ${esc(run.source.dir)} · ${m.markets.length} markets · ${s.recording.from} → ${s.recording.to}`]);
  for (const mk of m.markets)
    rows.push([`market ${esc(name(mk.id))}`, `${esc(mk.id)} · tick ${mk.tick / 1e6}${mk.origin ? ` · ${esc(json(mk.origin))}` : ''}`]);
  rows.push(['queue model', `${esc(s.settings.queueModel)}${run.fast ? ' (fast mode: always at the front)' : ''}`]);
  rows.push(['latency model', esc(json(s.settings.latency))]);
  rows.push(['fee model', `maker ${s.settings.fees.makerBps} bps · taker ${s.settings.fees.takerBps} bps`]);
  rows.push(['seed · sample', `${s.settings.seed} · ${s.sharpe.sampleSeconds} s`]);
  return rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join('\n');
}
