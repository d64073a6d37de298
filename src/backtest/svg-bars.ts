/**
 * Category charts for the report, inline SVG like ./svg-chart.ts: a waterfall (the PnL attribution:
 * each component a floating bar from the running sum, then the total from zero) and a category
 * line chart (the markout curve: one point per horizon, one line per series, with a legend).
 */
import { esc } from './escape-html.ts';
import { svgLegend } from './svg-chart.ts';
const fmt = (v: number, d = 2): string => (Number.isFinite(v) ? v.toFixed(d) : '–');

interface Frame {
  readonly W: number;
  readonly H: number;
  readonly pad: { l: number; r: number; t: number; b: number };
  readonly y: (v: number) => number;
  readonly v0: number;
  readonly v1: number;
}

function frame(W: number, H: number, lo: number, hi: number): Frame {
  const pad = { l: 64, r: 16, t: 28, b: 40 };
  let v0 = Math.min(0, lo);
  let v1 = Math.max(0, hi);
  if (v1 === v0) v1 = v0 + 1;
  const padV = (v1 - v0) * 0.08;
  v0 -= padV;
  v1 += padV;
  const ih = H - pad.t - pad.b;
  return { W, H, pad, v0, v1, y: (v) => pad.t + (1 - (v - v0) / (v1 - v0)) * ih };
}

function axes(f: Frame, title: string, yLabel: string): string[] {
  const { W, H, pad } = f;
  const out: string[] = [];
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${pad.l}" y="18" font-size="13" font-weight="600" fill="#222">${esc(title)}</text>`);
  const step = niceStep((f.v1 - f.v0) / 5);
  for (let v = Math.ceil(f.v0 / step) * step; v <= f.v1 + 1e-9; v += step) {
    const yy = f.y(v).toFixed(1);
    out.push(
      `<line x1="${pad.l}" x2="${W - pad.r}" y1="${yy}" y2="${yy}" stroke="${Math.abs(v) < step / 1e6 ? '#999' : '#eee'}"/><text x="${pad.l - 6}" y="${yy}" font-size="10" text-anchor="end" dominant-baseline="middle" fill="#666">${fmt(Number(v.toPrecision(12)), Math.abs(step) >= 1 ? 0 : 2)}</text>`,
    );
  }
  out.push(
    `<text x="12" y="${(pad.t + H - pad.b) / 2}" font-size="10" fill="#666" transform="rotate(-90 12 ${(pad.t + H - pad.b) / 2})" text-anchor="middle">${esc(yLabel)}</text>`,
  );
  return out;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? raw;
}

export interface WaterfallStep {
  readonly name: string;
  readonly value: number;
}

/** Floating bars from the running sum for each step, then a total bar from zero. */
export function waterfallChart(o: { title: string; width: number; height: number; unit: string; steps: readonly WaterfallStep[]; totalName: string }): string {
  let run = 0;
  let lo = 0;
  let hi = 0;
  for (const s of o.steps) {
    run += s.value;
    lo = Math.min(lo, run);
    hi = Math.max(hi, run);
  }
  const f = frame(o.width, o.height, lo, hi);
  const parts = [
    `<svg class="chart waterfall" viewBox="0 0 ${o.width} ${o.height}" width="${o.width}" height="${o.height}" role="img" aria-label="${esc(o.title)}">`,
    ...axes(f, o.title, o.unit),
  ];
  const n = o.steps.length + 1;
  const slot = (o.width - f.pad.l - f.pad.r) / n;
  const bw = slot * 0.6;
  run = 0;
  const bar = (i: number, from: number, to: number, color: string, name: string, value: number): void => {
    const x = f.pad.l + slot * i + (slot - bw) / 2;
    const y0 = f.y(Math.max(from, to));
    const h = Math.max(1, Math.abs(f.y(from) - f.y(to)));
    parts.push(
      `<rect class="bar" x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${bw.toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"><title>${esc(name)}: ${fmt(value, 6)} ${esc(o.unit)}</title></rect>`,
    );
    parts.push(
      `<text x="${(x + bw / 2).toFixed(1)}" y="${(y0 - 4).toFixed(1)}" font-size="11" text-anchor="middle" fill="#222">${value >= 0 ? '+' : ''}${fmt(value)}</text>`,
    );
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${o.height - 22}" font-size="11" text-anchor="middle" fill="#333">${esc(name)}</text>`);
  };
  o.steps.forEach((s, i) => {
    bar(i, run, run + s.value, s.value >= 0 ? '#2ca02c' : '#d62728', s.name, s.value);
    run += s.value;
  });
  bar(o.steps.length, 0, run, '#1f77b4', o.totalName, run);
  parts.push('</svg>');
  return parts.join('');
}

export interface CategorySeries {
  readonly name: string;
  readonly color: string;
  /** one value per category; null = no point */
  readonly v: readonly (number | null)[];
}

/** One point per category (evenly spaced), joined per series, with a legend. */
export function categoryChart(o: {
  title: string;
  width: number;
  height: number;
  yLabel: string;
  categories: readonly string[];
  series: readonly CategorySeries[];
}): string {
  const vals = o.series.flatMap((s) => s.v.filter((v): v is number => v !== null && Number.isFinite(v)));
  const f = frame(o.width, o.height, vals.length ? Math.min(...vals) : 0, vals.length ? Math.max(...vals) : 1);
  const parts = [
    `<svg class="chart category" viewBox="0 0 ${o.width} ${o.height}" width="${o.width}" height="${o.height}" role="img" aria-label="${esc(o.title)}">`,
    ...axes(f, o.title, o.yLabel),
  ];
  const n = o.categories.length;
  const slot = (o.width - f.pad.l - f.pad.r) / Math.max(1, n);
  const x = (i: number): number => f.pad.l + slot * (i + 0.5);
  o.categories.forEach((c, i) =>
    parts.push(`<text x="${x(i).toFixed(1)}" y="${o.height - 22}" font-size="11" text-anchor="middle" fill="#333">${esc(c)}</text>`),
  );
  for (const s of o.series) {
    let d = '';
    s.v.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      d += `${d ? 'L' : 'M'}${x(i).toFixed(1)},${f.y(v).toFixed(1)}`;
      parts.push(
        `<circle cx="${x(i).toFixed(1)}" cy="${f.y(v).toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(s.name)} ${esc(o.categories[i]!)}: ${fmt(v, 3)}</title></circle>`,
      );
    });
    if (d) parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"><title>${esc(s.name)}</title></path>`);
  }
  svgLegend(parts, f.pad, o.series);
  parts.push('</svg>');
  return parts.join('');
}

/** A heatmap of a two-parameter grid: rows × columns, colour from red (low) to green (high). */
export function heatmapChart(o: {
  title: string;
  rowName: string;
  colName: string;
  rows: readonly string[];
  cols: readonly string[];
  cells: readonly (readonly (number | null)[])[];
  unit: string;
}): string {
  const cw = Math.max(70, Math.min(140, Math.floor(900 / Math.max(1, o.cols.length))));
  const ch = 34;
  const left = 150;
  const top = 84;
  const W = left + cw * o.cols.length + 20;
  const H = top + ch * o.rows.length + 30;
  const vals = o.cells.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const lo = vals.length ? Math.min(...vals) : 0;
  const hi = vals.length ? Math.max(...vals) : 1;
  const color = (v: number): string => {
    const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    const r = Math.round(215 - 170 * t);
    const g = Math.round(48 + 130 * t);
    return `rgb(${r},${g},70)`;
  };
  const parts = [
    `<svg class="chart heatmap" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(o.title)}">`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`,
  ];
  parts.push(`<text x="12" y="18" font-size="13" font-weight="600" fill="#222">${esc(o.title)}</text>`);
  parts.push(`<text x="12" y="${top - 48}" font-size="11" fill="#333">rows: ${esc(o.rowName)} ↓</text>`);
  parts.push(`<text x="${left}" y="${top - 28}" font-size="11" fill="#333">columns: ${esc(o.colName)} →</text>`);
  o.cols.forEach((c, j) => parts.push(`<text x="${left + cw * j + cw / 2}" y="${top - 8}" font-size="11" text-anchor="middle" fill="#333">${esc(c)}</text>`));
  o.rows.forEach((r, i) => {
    parts.push(`<text x="${left - 8}" y="${top + ch * i + ch / 2}" font-size="11" text-anchor="end" dominant-baseline="middle" fill="#333">${esc(r)}</text>`);
    o.cols.forEach((_, j) => {
      const v = o.cells[i]?.[j] ?? null;
      const x = left + cw * j;
      const y = top + ch * i;
      parts.push(
        `<rect class="cell" x="${x}" y="${y}" width="${cw - 2}" height="${ch - 2}" fill="${v === null ? '#ddd' : color(v)}"><title>${esc(o.rowName)} ${esc(r)}, ${esc(o.colName)} ${esc(o.cols[j]!)}: ${v === null ? 'failed' : `${fmt(v)} ${esc(o.unit)}`}</title></rect>`,
      );
      parts.push(
        `<text x="${x + cw / 2 - 1}" y="${y + ch / 2}" font-size="11" text-anchor="middle" dominant-baseline="middle" fill="#fff">${v === null ? '×' : fmt(v)}</text>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}
