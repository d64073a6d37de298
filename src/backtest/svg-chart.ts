/**
 * A small line-chart renderer to inline SVG (no library, no network), for the HTML report.
 * Series share one time axis; NaN values break a line (no quote resting, no book). Points beyond
 * `maxPoints` are thinned by taking every k-th sample, so a long run still makes a small file.
 */
export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  readonly t: readonly number[];
  readonly v: readonly number[];
  /** draw as a filled area down to zero */
  readonly area?: boolean;
  readonly dash?: boolean;
}

export interface ChartMarker {
  readonly t: number;
  readonly v: number;
  readonly color: string;
  /** ▲ for buys, ▼ for sells */
  readonly up: boolean;
  readonly title: string;
}

export interface ChartSpec {
  readonly title: string;
  readonly width: number;
  readonly height: number;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  readonly markers?: readonly ChartMarker[];
  readonly maxPoints?: number;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function niceTicks(lo: number, hi: number, n: number): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let x = Math.ceil(lo / step) * step; x <= hi + 1e-9; x += step) out.push(Number(x.toPrecision(12)));
  return out;
}

const fmtTime = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
const fmtNum = (v: number): string => (Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(Math.abs(v) >= 1 ? 2 : 3));

export function lineChart(spec: ChartSpec): string {
  const { width: W, height: H } = spec;
  const pad = { l: 64, r: 16, t: 28, b: 28 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  let t0 = Infinity;
  let t1 = -Infinity;
  let v0 = Infinity;
  let v1 = -Infinity;
  for (const s of spec.series) {
    for (let i = 0; i < s.t.length; i++) {
      const v = s.v[i]!;
      t0 = Math.min(t0, s.t[i]!);
      t1 = Math.max(t1, s.t[i]!);
      if (Number.isFinite(v)) {
        v0 = Math.min(v0, v);
        v1 = Math.max(v1, v);
      }
    }
    if (s.area) {
      v0 = Math.min(v0, 0);
      v1 = Math.max(v1, 0);
    }
  }
  for (const m of spec.markers ?? []) {
    v0 = Math.min(v0, m.v);
    v1 = Math.max(v1, m.v);
  }
  if (!Number.isFinite(t0)) {
    t0 = 0;
    t1 = 1;
  }
  if (!Number.isFinite(v0)) {
    v0 = 0;
    v1 = 1;
  }
  if (v1 === v0) {
    v0 -= 1;
    v1 += 1;
  }
  const padV = (v1 - v0) * 0.05;
  v0 -= padV;
  v1 += padV;
  if (t1 === t0) t1 = t0 + 1;
  const x = (t: number): number => pad.l + ((t - t0) / (t1 - t0)) * iw;
  const y = (v: number): number => pad.t + (1 - (v - v0) / (v1 - v0)) * ih;
  const parts: string[] = [];
  parts.push(`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(spec.title)}">`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="${pad.l}" y="18" font-size="13" font-weight="600" fill="#222">${esc(spec.title)}</text>`);
  for (const v of niceTicks(v0, v1, 5)) {
    const yy = y(v).toFixed(1);
    parts.push(`<line x1="${pad.l}" x2="${W - pad.r}" y1="${yy}" y2="${yy}" stroke="#eee"/><text x="${pad.l - 6}" y="${yy}" font-size="10" text-anchor="end" dominant-baseline="middle" fill="#666">${fmtNum(v)}</text>`);
  }
  for (let k = 0; k <= 5; k++) {
    const t = t0 + ((t1 - t0) * k) / 5;
    const anchor = k === 0 ? 'start' : k === 5 ? 'end' : 'middle';
    parts.push(`<text x="${x(t).toFixed(1)}" y="${H - 8}" font-size="10" text-anchor="${anchor}" fill="#666">${fmtTime(t)}</text>`);
  }
  parts.push(`<text x="12" y="${pad.t + ih / 2}" font-size="10" fill="#666" transform="rotate(-90 12 ${pad.t + ih / 2})" text-anchor="middle">${esc(spec.yLabel)}</text>`);
  parts.push(`<rect x="${pad.l}" y="${pad.t}" width="${iw}" height="${ih}" fill="none" stroke="#ccc"/>`);
  const maxPts = spec.maxPoints ?? 1500;
  for (const s of spec.series) {
    const step = Math.max(1, Math.ceil(s.t.length / maxPts));
    let d = '';
    let pen = false;
    let firstX = 0;
    let lastX = 0;
    for (let i = 0; i < s.t.length; i += step) {
      const v = s.v[i]!;
      if (!Number.isFinite(v)) {
        pen = false;
        continue;
      }
      const px = x(s.t[i]!).toFixed(1);
      const py = y(v).toFixed(1);
      if (!pen && d === '') firstX = Number(px);
      d += `${pen ? 'L' : 'M'}${px},${py}`;
      lastX = Number(px);
      pen = true;
    }
    if (!d) continue;
    if (s.area) {
      const y0 = y(0).toFixed(1);
      parts.push(`<path d="${d}L${lastX},${y0}L${firstX},${y0}Z" fill="${s.color}" fill-opacity="0.18" stroke="none"/>`);
    }
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.4"${s.dash ? ' stroke-dasharray="4 3"' : ''}><title>${esc(s.name)}</title></path>`);
  }
  for (const m of spec.markers ?? []) {
    const cx = x(m.t);
    const cy = y(m.v);
    const pts = m.up ? `${cx},${cy - 6} ${cx - 5},${cy + 4} ${cx + 5},${cy + 4}` : `${cx},${cy + 6} ${cx - 5},${cy - 4} ${cx + 5},${cy - 4}`;
    parts.push(`<polygon class="fill-marker" points="${pts}" fill="${m.color}" stroke="#000" stroke-width="0.5"><title>${esc(m.title)}</title></polygon>`);
  }
  // legend
  let lx = pad.l + 8;
  for (const s of spec.series) {
    parts.push(`<rect x="${lx}" y="${pad.t + 6}" width="10" height="3" fill="${s.color}"/><text x="${lx + 14}" y="${pad.t + 10}" font-size="10" fill="#333">${esc(s.name)}</text>`);
    lx += 24 + s.name.length * 6;
  }
  parts.push('</svg>');
  return parts.join('');
}
