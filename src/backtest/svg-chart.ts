/**
 * A small line-chart renderer to inline SVG (no library, no network), for the HTML report.
 * Series share one time axis; NaN values break a line (no quote resting, no book). Points beyond
 * `maxPoints` are thinned by taking every k-th sample, so a long run still makes a small file.
 */
import { esc } from './escape-html.ts';

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
  /**
   * a time chart the report's zoom control can rescale: the plot is clipped to its frame and carries
   * its time range; `zoomScript()` holds the control's code (one inline script per report)
   */
  readonly zoom?: boolean;
}

/** A stable id from a string (the same report gives the same bytes). */
function idOf(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return `c${(h >>> 0).toString(36)}`;
}

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
  const zoom = spec.zoom === true;
  const clip = idOf(spec.title);
  parts.push(
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(spec.title)}"${zoom ? ` data-zoom="1" data-t0="${t0}" data-t1="${t1}" data-px="${pad.l}" data-pw="${iw}"` : ''}>`,
  );
  if (zoom) parts.push(`<defs><clipPath id="${clip}"><rect x="${pad.l}" y="${pad.t}" width="${iw}" height="${ih}"/></clipPath></defs>`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="${pad.l}" y="18" font-size="13" font-weight="600" fill="#222">${esc(spec.title)}</text>`);
  for (const v of niceTicks(v0, v1, 5)) {
    const yy = y(v).toFixed(1);
    parts.push(
      `<line x1="${pad.l}" x2="${W - pad.r}" y1="${yy}" y2="${yy}" stroke="#eee"/><text x="${pad.l - 6}" y="${yy}" font-size="10" text-anchor="end" dominant-baseline="middle" fill="#666">${fmtNum(v)}</text>`,
    );
  }
  for (let k = 0; k <= 5; k++) {
    const t = t0 + ((t1 - t0) * k) / 5;
    const anchor = k === 0 ? 'start' : k === 5 ? 'end' : 'middle';
    parts.push(
      `<text${zoom ? ` class="xt" data-f="${k / 5}"` : ''} x="${x(t).toFixed(1)}" y="${H - 8}" font-size="10" text-anchor="${anchor}" fill="#666">${fmtTime(t)}</text>`,
    );
  }
  parts.push(
    `<text x="12" y="${pad.t + ih / 2}" font-size="10" fill="#666" transform="rotate(-90 12 ${pad.t + ih / 2})" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  );
  parts.push(`<rect x="${pad.l}" y="${pad.t}" width="${iw}" height="${ih}" fill="none" stroke="#ccc"/>`);
  const maxPts = spec.maxPoints ?? 1500;
  if (zoom) parts.push(`<g clip-path="url(#${clip})"><g class="zx">`);
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
    parts.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.4"${s.dash ? ' stroke-dasharray="4 3"' : ''}${zoom ? ' vector-effect="non-scaling-stroke"' : ''}><title>${esc(s.name)}</title></path>`,
    );
  }
  if (zoom) parts.push('</g>');
  for (const m of spec.markers ?? []) {
    const cx = x(m.t);
    const cy = y(m.v);
    if (zoom) {
      // drawn around (0, 0) and moved by the zoom control, so a marker keeps its shape
      const pts = m.up ? '0,-6 -5,4 5,4' : '0,6 -5,-4 5,-4';
      parts.push(
        `<g class="mk" data-x="${cx.toFixed(1)}" data-y="${cy.toFixed(1)}" transform="translate(${cx.toFixed(1)},${cy.toFixed(1)})"><polygon class="fill-marker" points="${pts}" fill="${m.color}" stroke="#000" stroke-width="0.5"><title>${esc(m.title)}</title></polygon></g>`,
      );
      continue;
    }
    const pts = m.up ? `${cx},${cy - 6} ${cx - 5},${cy + 4} ${cx + 5},${cy + 4}` : `${cx},${cy + 6} ${cx - 5},${cy - 4} ${cx + 5},${cy - 4}`;
    parts.push(`<polygon class="fill-marker" points="${pts}" fill="${m.color}" stroke="#000" stroke-width="0.5"><title>${esc(m.title)}</title></polygon>`);
  }
  if (zoom) parts.push('</g>');
  svgLegend(parts, pad, spec.series);
  parts.push('</svg>');
  return parts.join('');
}

/** The legend row of a chart (a colour swatch and the name of each series) along the top of its plot area. */
export function svgLegend(parts: string[], pad: { l: number; t: number }, series: readonly { name: string; color: string }[]): void {
  let lx = pad.l + 8;
  for (const s of series) {
    parts.push(
      `<rect x="${lx}" y="${pad.t + 6}" width="10" height="3" fill="${s.color}"/><text x="${lx + 14}" y="${pad.t + 10}" font-size="10" fill="#333">${esc(s.name)}</text>`,
    );
    lx += 24 + s.name.length * 6;
  }
}

/**
 * The zoom control's code (inline, no network): rescales every `data-zoom` chart to the fraction
 * [from, to] of its time range — the series by a transform, the fill markers moved one by one so
 * they keep their shape, and the time labels rewritten. `#zoom=A,B` in the URL opens at that range.
 */
export function zoomScript(): string {
  return `<script>
(function () {
  function iso(t) { return new Date(t).toISOString().slice(11, 19); }
  function apply(f0, f1) {
    var k = 1 / Math.max(1e-6, f1 - f0);
    document.querySelectorAll('svg[data-zoom]').forEach(function (svg) {
      var t0 = +svg.dataset.t0, t1 = +svg.dataset.t1, px = +svg.dataset.px, pw = +svg.dataset.pw;
      var off = px + f0 * pw;
      svg.querySelector('.zx').setAttribute('transform', 'translate(' + (px - off * k) + ',0) scale(' + k + ',1)');
      svg.querySelectorAll('.mk').forEach(function (m) { m.setAttribute('transform', 'translate(' + (px + (+m.dataset.x - off) * k) + ',' + m.dataset.y + ')'); });
      svg.querySelectorAll('.xt').forEach(function (t) { t.textContent = iso(t0 + (f0 + +t.dataset.f * (f1 - f0)) * (t1 - t0)); });
    });
  }
  var from = document.getElementById('zoom-from'), to = document.getElementById('zoom-to'), label = document.getElementById('zoom-label');
  if (!from || !to) return;
  var svg = document.querySelector('svg[data-zoom]');
  function update() {
    var a = Math.min(+from.value, +to.value - 1) / 1000, b = Math.max(+to.value, +from.value + 1) / 1000;
    apply(a, b);
    if (svg && label) { var t0 = +svg.dataset.t0, t1 = +svg.dataset.t1; label.textContent = iso(t0 + a * (t1 - t0)) + ' → ' + iso(t0 + b * (t1 - t0)); }
  }
  from.addEventListener('input', update);
  to.addEventListener('input', update);
  document.getElementById('zoom-reset').addEventListener('click', function () { from.value = 0; to.value = 1000; update(); });
  // a link can carry a range: report.html#zoom=0.25,0.5 (fractions of the run)
  var m = /zoom=([0-9.]+),([0-9.]+)/.exec(location.hash);
  if (m) { from.value = Math.round(+m[1] * 1000); to.value = Math.round(+m[2] * 1000); update(); }
})();
</script>`;
}
