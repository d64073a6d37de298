/**
 * Fill intensity of a recording for the GLFT strategy (strategies/glft): how often a market order
 * reaches δ ticks from the mid, λ(δ) = A·e^(−kδ) per second, fitted from the recorded trades and
 * books (as hftbacktest's GLFT example measures it):
 *
 *   for each trade, its depth δ = |price − mid| / tick against the book as it stood (the public
 *   book, or the others' book of a drop-copy recording); λ(δ_j) = trades with depth ≥ δ_j per second,
 *   on the grid δ_j = ½, 1½, 2½, … ticks while at least `minTrades` trades reach it; then ordinary
 *   least squares of ln λ on δ: ln A = intercept, k = −slope, with their standard errors, R² in log
 *   space and the root-mean-square relative error of the fitted λ at the grid points.
 *
 * Per market (markets with enough trades) and pooled (all trades, the time span × markets).
 */
import { KIND_TRADE } from './recording/columns.ts';
import { othersRows } from './others-rows.ts';
import type { ReplaySource } from './replay-source.ts';

export interface IntensityPoint {
  /** depth, ticks from the mid */
  readonly depth: number;
  /** trades reaching it */
  readonly trades: number;
  /** per second */
  readonly lambda: number;
}

export interface IntensityFit {
  readonly market: string;
  readonly trades: number;
  readonly seconds: number;
  /** λ at the mid, per second */
  readonly A: number;
  /** decay per tick */
  readonly k: number;
  /** standard errors (A's by the delta method: A·se(ln A)) */
  readonly seA: number;
  readonly seK: number;
  readonly r2: number;
  /** root-mean-square of (fitted − measured) / measured λ over the points */
  readonly rmsRelError: number;
  readonly points: readonly IntensityPoint[];
}

export interface CalibrationResult {
  readonly markets: readonly IntensityFit[];
  /** all markets' trades together (seconds = span × markets with trades) */
  readonly pooled: IntensityFit | null;
}

function fit(market: string, depths: readonly number[], seconds: number, minTrades: number): IntensityFit | null {
  if (depths.length < minTrades || !(seconds > 0)) return null;
  const sorted = [...depths].sort((a, b) => a - b);
  const points: IntensityPoint[] = [];
  for (let j = 0; j < 200; j++) {
    const d = j + 0.5;
    // trades with depth ≥ d: sorted ascending, find the first index ≥ d
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < d) lo = mid + 1;
      else hi = mid;
    }
    const n = sorted.length - lo;
    if (n < minTrades) break;
    points.push({ depth: d, trades: n, lambda: n / seconds });
  }
  if (points.length < 2) return null;
  const xs = points.map((p) => p.depth);
  const ys = points.map((p) => Math.log(p.lambda));
  const m = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / m;
  const my = ys.reduce((a, b) => a + b, 0) / m;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < m; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  let sst = 0;
  let rel = 0;
  for (let i = 0; i < m; i++) {
    const yhat = intercept + slope * xs[i]!;
    sse += (ys[i]! - yhat) ** 2;
    sst += (ys[i]! - my) ** 2;
    rel += (Math.exp(yhat) / points[i]!.lambda - 1) ** 2;
  }
  const s2 = m > 2 ? sse / (m - 2) : 0;
  const seSlope = Math.sqrt(s2 / sxx);
  const seIntercept = Math.sqrt(s2 * (1 / m + (mx * mx) / sxx));
  const A = Math.exp(intercept);
  return {
    market,
    trades: depths.length,
    seconds,
    A,
    k: -slope,
    seA: A * seIntercept,
    seK: seSlope,
    r2: sst > 0 ? 1 - sse / sst : 1,
    rmsRelError: Math.sqrt(rel / m),
    points,
  };
}

export function calibrateIntensity(source: ReplaySource, minTrades = 5): CalibrationResult {
  const { cols, rows } = source;
  const n = cols.markets.length;
  const others = othersRows(source);
  const books = others.books;
  const depths: number[][] = Array.from({ length: n }, () => []);
  let first = Infinity;
  let last = -Infinity;
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j]!;
    const m = cols.market[r]!;
    const t = cols.lts[r]!;
    if (t < first) first = t;
    if (t > last) last = t;
    const kind = others.kindAt(r);
    const b = books[m]!;
    if (kind === KIND_TRADE) {
      const bid = b.bestBid();
      const ask = b.bestAsk();
      if (bid > 0 && ask > 0 && ask > bid) depths[m]!.push(Math.abs(cols.price[r]! - (bid + ask) / 2) / source.ticks[m]!);
      continue;
    }
    others.apply(r, kind);
  }
  const seconds = Math.max(0, (last - first) / 1000);
  const markets: IntensityFit[] = [];
  for (let m = 0; m < n; m++) {
    const f = fit(source.manifest.markets.find((x) => x.id === cols.markets[m])?.name ?? cols.markets[m]!, depths[m]!, seconds, minTrades);
    if (f) markets.push(f);
  }
  const traded = depths.filter((d) => d.length > 0).length;
  const pooled = fit('all markets', depths.flat(), seconds * Math.max(1, traded), minTrades);
  return { markets, pooled };
}
