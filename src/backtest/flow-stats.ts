/**
 * The character of a market's order flow, measured the same way on a recording (the Polymarket
 * capture) and on synthetic markets, so a flow preset can be fitted to the real one
 * (scripts/flow-fit.ts, docs/edge.md):
 *
 *   trade rate       trade prints per minute per market (markets with trades, while each is listed)
 *   trade sizes      shares per print: mean and quantiles
 *   passive markout  for every print, what its passive side (the maker) made against the mid h later:
 *                    (mid(t + h) − p) for a maker who bought (the taker sold), (p − mid(t + h)) for one
 *                    who sold, in ¢ per share, size-weighted, with a 95 % interval (normal, over prints)
 *   quote markout    the same, each print weighted by min(size, 25 shares): what a 25-share quote at
 *                    the front of the touch made (it takes the first 25 shares of every print at its
 *                    price), where the size-weighted figure is the large prints'
 *   mid jumps        moves of the mid by ≥ 5¢ within 10 s, per market-hour (while listed)
 *   sweeps           runs of same-side taker prints adding up to ≥ N shares within 2 s (N = 100, 300,
 *                    600; src/strategy/sweep.ts), per market-hour, with what follows them: the mid's
 *                    move in the sweep's direction from 1 s after it to 5/30/60 s after it, a follower's
 *                    markout (the touch it pays 1 s after the sweep against the mid 5/30/60 s after),
 *                    and the prints of the 10 s after it (rate against the market's, share on its side)
 *
 * The mid is the book's (a drop-copy recording: the others' book, which is the whole book when no bot
 * is recorded). Rows are walked in local-time order.
 */
import { KIND_CLEAR, KIND_LEVEL, KIND_TRADE } from './recording/columns.ts';
import { othersRows } from './others-rows.ts';
import type { ReplaySource } from './replay-source.ts';
import { lastAtOrBefore } from '../core/last-at-or-before.ts';

export interface MarkoutCi {
  readonly centsPerShare: number;
  readonly lo: number;
  readonly hi: number;
  readonly n: number;
}

export interface FlowStats {
  readonly markets: number;
  readonly minutes: number;
  readonly trades: number;
  readonly tradesPerMarketMinute: number;
  /** 95 % interval of the trade rate: mean ± 1.96·sd/√n over the market-minutes of the traded markets */
  readonly tradeRateCi: { readonly lo: number; readonly hi: number };
  /** 95 % intervals of the median and 90th percentile print size: distribution-free, from the binomial ranks */
  readonly sizeCi: { readonly p50: { readonly lo: number; readonly hi: number }; readonly p90: { readonly lo: number; readonly hi: number } };
  readonly size: { readonly mean: number; readonly p10: number; readonly p25: number; readonly p50: number; readonly p75: number; readonly p90: number };
  readonly passiveMarkouts: Readonly<Record<'1s' | '10s' | '60s', MarkoutCi>>;
  /** the passive markouts with each print weighted by min(size, QUOTE_SHARES): a small quote at the front of the touch */
  readonly quoteMarkouts: Readonly<Record<'1s' | '10s' | '60s', MarkoutCi>>;
  readonly jumpsPerMarketHour: number;
  /** sweeps of at least 100, 300 and 600 shares */
  readonly sweeps: Readonly<Record<SweepShares, SweepStats>>;
}

/** the quote of `quoteMarkouts`: the bots' usual size (config/backtest.yaml's 25 shares) */
export const QUOTE_SHARES = 25;

export const SWEEP_SHARES = [100, 300, 600] as const;
export type SweepShares = `${(typeof SWEEP_SHARES)[number]}`;
/** the window of a sweep's run of prints (follow's default `sweepSeconds`) */
export const SWEEP_WINDOW_MS = 2_000;
/** a follower sees the sweep and pays the touch this long after its last print */
export const FOLLOW_DELAY_MS = 1_000;
export const SWEEP_HORIZONS = [
  ['5s', 5_000],
  ['30s', 30_000],
  ['60s', 60_000],
] as const;
export type SweepHorizon = (typeof SWEEP_HORIZONS)[number][0];

/** A mean over events with its 95 % interval (normal: mean ± 1.96·sd/√n; NaN below 2 events). */
export interface MeanCi {
  readonly mean: number;
  readonly lo: number;
  readonly hi: number;
  readonly n: number;
}

export interface SweepStats {
  readonly count: number;
  /** per market-hour while listed, with the 95 % interval of a Poisson count */
  readonly perMarketHour: number;
  readonly perMarketHourCi: { readonly lo: number; readonly hi: number };
  /** shares of the whole run (every same-side print chained within the window), median with its 95 % interval */
  readonly sizeP50: number;
  readonly sizeP50Ci: { readonly lo: number; readonly hi: number };
  /** ms from the run's first print to the print that made it a sweep, median (0: at once) */
  readonly spanP50Ms: number;
  /** ¢ the mid moved in the sweep's direction from 1 s after it to h after it */
  readonly continuation: Readonly<Record<SweepHorizon, MeanCi>>;
  /** ¢ a share made by paying the far touch 1 s after the sweep (the ask after a buy sweep), against the mid h after it */
  readonly follower: Readonly<Record<SweepHorizon, MeanCi>>;
  /** prints in the 10 s after the sweep, per minute, as a multiple of the market's rate while listed */
  readonly afterRate: MeanCi;
  /** of the shares printed in the 10 s after the sweep, the share on its side (taker buys after a buy sweep), over the sweeps followed by prints */
  readonly afterSameSide: MeanCi;
}

const HORIZONS = [
  ['1s', 1_000],
  ['10s', 10_000],
  ['60s', 60_000],
] as const;

function meanCi(xs: readonly number[]): MeanCi {
  const n = xs.length;
  const mean = n > 0 ? xs.reduce((a, b) => a + b, 0) / n : NaN;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : NaN;
  const half = n > 1 ? (1.96 * sd) / Math.sqrt(n) : NaN;
  return { mean, lo: mean - half, hi: mean + half, n };
}

/** 95 % interval of the q-quantile of a sorted sample: the order statistics at ranks n·q ∓ 1.96·√(n·q·(1 − q)). */
export function quantileCi(sorted: readonly number[], q: number): { lo: number; hi: number } {
  const n = sorted.length;
  if (n === 0) return { lo: NaN, hi: NaN };
  const half = 1.96 * Math.sqrt(n * q * (1 - q));
  const at = (r: number) => sorted[Math.min(n - 1, Math.max(0, Math.round(r)))]!;
  return { lo: at(n * q - half - 1), hi: at(n * q + half - 1) };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i]!;
}

/**
 * When each market was listed: from the data's first row, or its `active` metadata event when later
 * (a synthetic market listed during the run), to the data's last row, or its `resolved`/`closed`
 * event when earlier (a synthetic market resolved and replaced).
 */
function listedSpans(source: ReplaySource, n: number, first: number, last: number): { from: Float64Array; to: Float64Array } {
  const from = new Float64Array(n).fill(first);
  const to = new Float64Array(n).fill(last);
  const index = new Map(source.cols.markets.map((id, i) => [id, i]));
  for (const e of source.side) {
    if (e.t !== 'market') continue;
    const m = index.get(e.m);
    if (m === undefined) continue;
    const st = e.meta.status;
    if (st === 'active' && e.lts > first && e.lts < to[m]!) from[m] = e.lts;
    else if ((st === 'resolved' || st === 'closed') && e.lts < to[m]! && e.lts > from[m]!) to[m] = e.lts;
  }
  return { from, to };
}

export function flowStats(source: ReplaySource): FlowStats {
  const { cols, rows } = source;
  const n = cols.markets.length;
  // a market with drop-copy rows is measured on them (the others' book), else on the public book
  const others = othersRows(source);
  const books = others.books;
  const midT: number[][] = Array.from({ length: n }, () => []);
  const midV: number[][] = Array.from({ length: n }, () => []);
  const bidV: number[][] = Array.from({ length: n }, () => []);
  const askV: number[][] = Array.from({ length: n }, () => []);
  const trades: { m: number; t: number; p: number; s: number; takerBuy: boolean }[] = [];
  let first = Infinity;
  let last = -Infinity;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    const m = cols.market[r]!;
    const t = cols.lts[r]!;
    first = Math.min(first, t);
    last = Math.max(last, t);
    const kind = others.kindAt(r);
    if (kind === KIND_TRADE) {
      trades.push({ m, t, p: cols.price[r]!, s: cols.size[r]!, takerBuy: cols.side[r] === 0 });
      continue;
    }
    if (kind !== KIND_LEVEL && kind !== KIND_CLEAR) continue;
    const b = books[m]!;
    if (!others.apply(r, kind)) continue;
    const bid = b.bestBid();
    const ask = b.bestAsk();
    if (!(bid > 0 && ask > 0 && ask > bid)) continue;
    const mid = (bid + ask) / 2;
    const ts = midT[m]!;
    if (ts.length > 0 && ts[ts.length - 1] === t) {
      midV[m]![ts.length - 1] = mid;
      bidV[m]![ts.length - 1] = bid;
      askV[m]![ts.length - 1] = ask;
    } else {
      ts.push(t);
      midV[m]!.push(mid);
      bidV[m]!.push(bid);
      askV[m]!.push(ask);
    }
  }
  const minutes = Math.max(1e-9, (last - first) / 60_000);
  const tradedMarkets = new Set(trades.map((x) => x.m)).size;
  const sizes = trades.map((x) => x.s / 1e6).sort((a, b) => a - b);
  const markouts = passiveMarkouts(trades, midT, midV, last, (x) => x.s / 1e6);
  const quoteMarkouts = passiveMarkouts(trades, midT, midV, last, (x) => Math.min(QUOTE_SHARES, x.s / 1e6));
  let jumps = 0;
  for (let m = 0; m < n; m++) {
    const ts = midT[m]!;
    const vs = midV[m]!;
    let j = 0;
    let lastJump = -Infinity;
    for (let i = 0; i < ts.length; i++) {
      while (ts[j]! < ts[i]! - 10_000) j++;
      if (ts[i]! - lastJump < 10_000) continue;
      let lo = Infinity;
      let hi = -Infinity;
      for (let q = j; q <= i; q++) {
        lo = Math.min(lo, vs[q]!);
        hi = Math.max(hi, vs[q]!);
      }
      if (hi - lo >= 50_000) {
        jumps++;
        lastJump = ts[i]!;
      }
    }
  }
  const bookMarkets = midT.filter((t) => t.length > 0).length;
  const life = listedSpans(source, n, first, last);
  // the hours the markets with a book were listed (the mid jumps' denominator)
  let bookHours = 0;
  for (let m = 0; m < n; m++) if (midT[m]!.length > 0) bookHours += Math.max(0, life.to[m]! - life.from[m]!) / 3_600_000;
  if (bookHours <= 0) bookHours = Math.max(1, bookMarkets) * (minutes / 60);
  // trades per market-minute bin of the traded markets while each is listed (empty bins count as 0)
  const tradedIds = [...new Set(trades.map((x) => x.m))];
  const binStart = new Map<number, number>();
  let nBins = 0;
  let marketMinutes = 0;
  for (const m of tradedIds) {
    binStart.set(m, nBins);
    nBins += Math.max(1, Math.ceil((life.to[m]! - life.from[m]!) / 60_000));
    marketMinutes += Math.max(1e-9, (life.to[m]! - life.from[m]!) / 60_000);
  }
  const bins = new Float64Array(nBins);
  for (const x of trades) {
    const b0 = binStart.get(x.m)!;
    const span = Math.max(1, Math.ceil((life.to[x.m]! - life.from[x.m]!) / 60_000));
    bins[b0 + Math.max(0, Math.min(span - 1, Math.floor((x.t - life.from[x.m]!) / 60_000)))]! += 1;
  }
  const binMean = bins.reduce((a, b) => a + b, 0) / Math.max(1, bins.length);
  const binSd = Math.sqrt(bins.reduce((a, b) => a + (b - binMean) ** 2, 0) / Math.max(1, bins.length - 1));
  const rateHalf = bins.length > 1 ? (1.96 * binSd) / Math.sqrt(bins.length) : NaN;
  const rate = tradedMarkets > 0 ? trades.length / marketMinutes : 0;
  return {
    markets: bookMarkets,
    minutes,
    trades: trades.length,
    tradesPerMarketMinute: rate,
    tradeRateCi: { lo: rate - rateHalf, hi: rate + rateHalf },
    sizeCi: { p50: quantileCi(sizes, 0.5), p90: quantileCi(sizes, 0.9) },
    size: {
      mean: sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length),
      p10: quantile(sizes, 0.1),
      p25: quantile(sizes, 0.25),
      p50: quantile(sizes, 0.5),
      p75: quantile(sizes, 0.75),
      p90: quantile(sizes, 0.9),
    },
    passiveMarkouts: markouts,
    quoteMarkouts,
    jumpsPerMarketHour: jumps / Math.max(1e-9, bookHours),
    sweeps: sweepStats(trades, { t: midT, mid: midV, bid: bidV, ask: askV }, life, last, bookHours),
  };
}

/**
 * The passive side's markout of every print h after it (1/10/60 s), weighted by `weight` (shares),
 * with a 95 % interval (normal over prints, effective n = W² / Σw²).
 */
function passiveMarkouts(
  trades: readonly Print[],
  midT: readonly number[][],
  midV: readonly number[][],
  last: number,
  weight: (x: Print) => number,
): Record<'1s' | '10s' | '60s', MarkoutCi> {
  const out = {} as Record<'1s' | '10s' | '60s', MarkoutCi>;
  for (const [label, h] of HORIZONS) {
    const vals: number[] = [];
    const ws: number[] = [];
    for (const x of trades) {
      if (x.t + h > last) continue;
      const i = lastAtOrBefore(midT[x.m]!, x.t + h);
      if (i < 0) continue;
      const mid = midV[x.m]![i]!;
      // the maker sold when the taker bought
      const edge = x.takerBuy ? x.p - mid : mid - x.p;
      vals.push(edge / 10_000);
      ws.push(weight(x));
    }
    const W = ws.reduce((a, b) => a + b, 0);
    const mean = W > 0 ? vals.reduce((a, v, i) => a + v * ws[i]!, 0) / W : NaN;
    // weighted variance of the mean, effective n = W² / Σw²
    const w2 = ws.reduce((a, w) => a + w * w, 0);
    const varW = W > 0 ? vals.reduce((a, v, i) => a + ws[i]! * (v - mean) ** 2, 0) / W : NaN;
    const nEff = w2 > 0 ? (W * W) / w2 : 0;
    const half = nEff > 1 ? 1.96 * Math.sqrt(varW / nEff) : NaN;
    out[label] = { centsPerShare: mean, lo: mean - half, hi: mean + half, n: vals.length };
  }
  return out;
}

interface Print {
  readonly m: number;
  readonly t: number;
  readonly p: number;
  readonly s: number;
  readonly takerBuy: boolean;
}

/**
 * The sweeps of the tape at each size in SWEEP_SHARES. At each print, the run is the prints back
 * from it on its side within SWEEP_WINDOW_MS (a print on the other side ends it), as follow sees
 * it; a sweep starts at the print whose run first reaches N shares, and the next can start only
 * after a run falls short of N again. Its size is the whole run: the prints chained on its side,
 * each within the window of the one before, until the other side prints.
 */
function sweepStats(
  trades: readonly Print[],
  book: { t: number[][]; mid: number[][]; bid: number[][]; ask: number[][] },
  life: { from: Float64Array; to: Float64Array },
  last: number,
  bookHours: number,
): Record<SweepShares, SweepStats> {
  const n = book.t.length;
  const byMarket: Print[][] = Array.from({ length: n }, () => []);
  for (const x of trades) byMarket[x.m]!.push(x);
  for (const ps of byMarket) ps.sort((a, b) => a.t - b.t);
  // the market's print rate while listed, per minute (the baseline of the prints after a sweep)
  const ratePerMin = byMarket.map((ps, m) => ps.length / Math.max(1e-9, (life.to[m]! - life.from[m]!) / 60_000));
  const at = (m: number, t: number, v: number[][]): number => {
    const i = lastAtOrBefore(book.t[m]!, t);
    return i < 0 ? NaN : v[m]![i]!;
  };
  const out = {} as Record<SweepShares, SweepStats>;
  for (const N of SWEEP_SHARES) {
    const units = N * 1e6;
    const sizes: number[] = [];
    const spans: number[] = [];
    const cont: Record<SweepHorizon, number[]> = { '5s': [], '30s': [], '60s': [] };
    const follow: Record<SweepHorizon, number[]> = { '5s': [], '30s': [], '60s': [] };
    const afterRate: number[] = [];
    const same: number[] = [];
    for (let m = 0; m < n; m++) {
      const ps = byMarket[m]!;
      let armed = true;
      for (let i = 0; i < ps.length; i++) {
        const x = ps[i]!;
        let total = 0;
        let j = i;
        while (j >= 0 && ps[j]!.takerBuy === x.takerBuy && ps[j]!.t >= x.t - SWEEP_WINDOW_MS) total += ps[j--]!.s;
        if (total < units) {
          armed = true;
          continue;
        }
        if (!armed) continue;
        armed = false;
        spans.push(x.t - ps[j + 1]!.t);
        // the whole run: back to its first print, then forward while the same side chains within the window
        let size = total;
        for (let k = i + 1; k < ps.length && ps[k]!.takerBuy === x.takerBuy && ps[k]!.t - ps[k - 1]!.t <= SWEEP_WINDOW_MS; k++) size += ps[k]!.s;
        sizes.push(size / 1e6);
        const dir = x.takerBuy ? 1 : -1;
        const t1 = x.t + FOLLOW_DELAY_MS;
        const mid1 = at(m, t1, book.mid);
        const pay = at(m, t1, x.takerBuy ? book.ask : book.bid);
        for (const [label, h] of SWEEP_HORIZONS) {
          if (x.t + h > Math.min(last, life.to[m]!)) continue;
          const midH = at(m, x.t + h, book.mid);
          if (!Number.isFinite(midH) || !Number.isFinite(mid1)) continue;
          cont[label].push((dir * (midH - mid1)) / 10_000);
          follow[label].push((dir * (midH - pay)) / 10_000);
        }
        if (x.t + 10_000 <= Math.min(last, life.to[m]!) && ratePerMin[m]! > 0) {
          let k = i + 1;
          let count = 0;
          let shares = 0;
          let sameShares = 0;
          for (; k < ps.length && ps[k]!.t <= x.t + 10_000; k++) {
            count++;
            shares += ps[k]!.s;
            if (ps[k]!.takerBuy === x.takerBuy) sameShares += ps[k]!.s;
          }
          afterRate.push((count * 6) / ratePerMin[m]!);
          if (shares > 0) same.push(sameShares / shares);
        }
      }
    }
    const sorted = [...sizes].sort((a, b) => a - b);
    const spanSorted = [...spans].sort((a, b) => a - b);
    const hours = Math.max(1e-9, bookHours);
    const half = 1.96 * Math.sqrt(sizes.length);
    out[`${N}`] = {
      count: sizes.length,
      perMarketHour: sizes.length / hours,
      perMarketHourCi: { lo: Math.max(0, sizes.length - half) / hours, hi: (sizes.length + half) / hours },
      sizeP50: quantile(sorted, 0.5),
      sizeP50Ci: quantileCi(sorted, 0.5),
      spanP50Ms: quantile(spanSorted, 0.5),
      continuation: { '5s': meanCi(cont['5s']), '30s': meanCi(cont['30s']), '60s': meanCi(cont['60s']) },
      follower: { '5s': meanCi(follow['5s']), '30s': meanCi(follow['30s']), '60s': meanCi(follow['60s']) },
      afterRate: meanCi(afterRate),
      afterSameSide: meanCi(same),
    };
  }
  return out;
}
