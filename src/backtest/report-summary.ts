/**
 * The JSON summary of a backtest run. Money in USDC and sizes in shares as plain
 * numbers converted from exact integers (never accumulated in floats); nothing from the wall clock,
 * so the same run gives the same bytes.
 *
 * Definitions:
 * - pnl: realised (closed positions, net of fees) + unrealised (open net position marked at the
 *   last recorded mid); fees paid are already inside realised and also reported alone. A market that
 *   resolved paid its position out at the payout: its PnL is realised, nothing is held after
 *   (src/backtest/run-collector.ts onResolved).
 * - volume: Σ fill price × size in USDC (order terms); maker/taker split by fill count and volume.
 * - inventory: YES-terms net position (shares) per market over the samples: the largest long and
 *   short of any market, mean |net| over markets and samples, and Σ|net| at the end.
 * - maxDrawdown: largest fall of total PnL from its running peak over the samples (USDC).
 * - sharpe: mean / standard deviation of the change in total PnL per period, on the longest period
 *   (day, hour, minute) the run covers at least 3 times, stated with the number of periods; never
 *   annualised (src/backtest/period-sharpe.ts).
 * - markouts at 1 s / 10 s / 60 s: for every fill, (mid(t + h) − price) for a YES-terms buy and
 *   (price − mid(t + h)) for a sell, size-weighted, in cents per share; fills whose horizon passes the
 *   end of the data are left out (`n` counts those included).
 * - quoteUptime: fraction of samples with both a bid and an ask resting at the venue (and with any side).
 * - orderToFill: orders placed per fill.
 * - pnl.attribution (USDC, exact in 1e-6 USDC: the four sum to pnl.total to the last unit):
 *   spreadCapture Σ each fill's price against the recorded mid just before it; inventory the mid's
 *   moves on the position held (to the last mid); fees −fees paid; resolution the jump from the last
 *   mid to the payout on the position held when a market resolved (0 in a recording without
 *   resolution). src/state/pnl-attribution.ts.
 * - markouts also at the config's `edge.markoutHorizonsSeconds` (default 1, 5, 10, 30, 60, 300 s).
 * - regimes: share of samples each quoted market spent in each regime, as the bot's store saw it.
 */
import { rankingSummary, type RankingSummary } from './rank-recording.ts';
import { DEFAULT_EDGE, horizonLabel } from '../state/edge-settings.ts';
import { REGIMES, type Regime } from '../strategy/types.ts';
import type { BacktestRun, Incomplete } from './run-backtest.ts';
import { explainRun, type DiagnosticsCounts } from './run-diagnostics.ts';
import { periodSharpe, type PeriodSharpe } from './period-sharpe.ts';

export interface Markout {
  readonly centsPerShare: number | null;
  readonly n: number;
}

export interface Attribution {
  readonly spreadCapture: number;
  readonly inventory: number;
  readonly fees: number;
  readonly resolution: number;
}

export interface MarketSummary {
  readonly marketId: string;
  /** the recording's market name when it has one */
  readonly name?: string;
  readonly quoted: boolean;
  readonly fills: number;
  readonly volume: number;
  readonly realisedPnl: number;
  readonly unrealisedPnl: number;
  readonly totalPnl: number;
  readonly feesPaid: number;
  readonly finalPosition: number;
  readonly maxLong: number;
  readonly maxShort: number;
  readonly quoteUptime: number;
  readonly attribution: Attribution;
}

export interface BacktestSummary {
  readonly format: 'bookmaker-backtest-summary';
  readonly version: 1;
  readonly recording: {
    readonly source: string;
    readonly markets: number;
    readonly rows: number;
    readonly from: string;
    readonly to: string;
    readonly seconds: number;
  };
  readonly settings: {
    readonly mode: 'full' | 'fast';
    readonly queueModel: string;
    readonly latency: unknown;
    readonly fees: { readonly makerBps: number; readonly takerBps: number };
    readonly strategies: readonly string[];
    readonly seed: number;
  };
  readonly pnl: { readonly realised: number; readonly unrealised: number; readonly total: number; readonly attribution: Attribution };
  readonly feesPaid: number;
  readonly volume: number;
  readonly fills: number;
  readonly maker: { readonly fills: number; readonly volume: number };
  readonly taker: { readonly fills: number; readonly volume: number };
  readonly fillCauses: Readonly<Record<string, number>>;
  readonly inventory: { readonly maxLong: number; readonly maxShort: number; readonly meanAbs: number; readonly finalAbs: number };
  readonly maxDrawdown: number;
  /** Sharpe of the PnL change per stated period (day, hour or minute: the longest the span covers 3 times); never annualised */
  readonly sharpe: PeriodSharpe & { readonly sampleSeconds: number };
  readonly markouts: { readonly '1s': Markout; readonly '10s': Markout; readonly '60s': Markout } & Readonly<Record<string, Markout>>;
  /** share of samples in each regime over the quoted markets */
  readonly regimes: Readonly<Record<Regime, number>>;
  readonly quoteUptime: { readonly twoSided: number; readonly anySide: number };
  readonly orders: { readonly placed: number; readonly cancelled: number; readonly rejected: number; readonly venueCalls: number };
  readonly orderToFill: number | null;
  readonly kernelTicks: number;
  readonly killed: string | null;
  /** false when the run stopped before the end of its data (Ctrl-C); `incomplete` says where */
  readonly complete: boolean;
  readonly incomplete: Incomplete | null;
  /** why a run placed no order or filled nothing (src/backtest/run-diagnostics.ts); empty otherwise */
  readonly warnings: readonly string[];
  /** what the kernel decided, counted over all quoted markets */
  readonly diagnostics: DiagnosticsCounts & { readonly quotedBookRows: number; readonly quotedTradeRows: number };
  readonly markets: readonly MarketSummary[];
  /** rank: entries: what was ranked in, when, with which scores and terms (src/backtest/rank-recording.ts); absent without rank entries */
  readonly ranking?: RankingSummary;
}

const usdc = (micro: bigint | number): number => Number(micro) / 1e6;
const shares = (micro: number): number => micro / 1e6;
const round = (x: number, d = 6): number => (Number.isFinite(x) ? Number(x.toFixed(d)) : x);

/** Markout horizons of the run: 1, 10 and 60 s always, plus the config's (edge.markoutHorizonsSeconds). */
export function markoutHorizons(run: BacktestRun): number[] {
  const hs = new Set([1_000, 10_000, 60_000, ...(run.edgeHorizonsMs ?? DEFAULT_EDGE.markoutHorizonsMs)]);
  return [...hs].sort((a, b) => a - b);
}

/**
 * The size-weighted markout of the run's fills at one horizon, in ¢ per share; `only`: the fills of
 * these column markets only (a strategy's markets, src/backtest/seed-summary.ts).
 */
export function markout(run: BacktestRun, horizonMs: number, only?: ReadonlySet<number>): Markout {
  const c = run.collector;
  let num = 0;
  let den = 0;
  let n = 0;
  for (const f of c.fills) {
    if (only !== undefined && !only.has(f.market)) continue;
    const t = f.at + horizonMs;
    if (t > run.end) continue;
    const mid = c.midAt(f.market, t);
    if (!Number.isFinite(mid)) continue;
    const edge = f.yesSide === 'bid' ? mid - f.yesPrice : f.yesPrice - mid;
    num += edge * f.size;
    den += f.size;
    n++;
  }
  return { centsPerShare: den > 0 ? round(num / den / 10_000, 4) : null, n };
}

function drawdown(pnl: readonly number[]): number {
  let peak = -Infinity;
  let dd = 0;
  for (const v of pnl) {
    peak = Math.max(peak, v);
    dd = Math.max(dd, peak - v);
  }
  return dd;
}

export function buildSummary(run: BacktestRun): BacktestSummary {
  const c = run.collector;
  const quoted = new Set<string>(run.quoted);
  let realised = 0n;
  let unrealised = 0n;
  let fees = 0n;
  let volume = 0n;
  const markets: MarketSummary[] = [];
  let maxLong = 0;
  let maxShort = 0;
  let absSum = 0;
  let absN = 0;
  let finalNet = 0;
  let up2 = 0;
  let up1 = 0;
  const attr = { spreadCapture: 0n, inventory: 0n, fees: 0n, resolution: 0n };
  const names = new Map(run.source.manifest.markets.map((mk) => [mk.id, mk.name]));
  for (let m = 0; m < c.markets.length; m++) {
    const p = c.positions[m]!;
    const pnl = c.pnlOf(m);
    const a = c.attributionOf(m);
    attr.spreadCapture += a.spreadCapture;
    attr.inventory += a.inventory;
    attr.fees += a.fees;
    attr.resolution += a.resolution;
    const name = names.get(c.markets[m]!);
    realised += pnl.realised;
    unrealised += pnl.unrealised;
    fees += p.fees;
    volume += p.volume;
    const net = c.series[m]!.net;
    let ml = 0;
    let ms = 0;
    for (const v of net) {
      ml = Math.max(ml, v);
      ms = Math.min(ms, v);
      absSum += Math.abs(v);
      absN++;
    }
    maxLong = Math.max(maxLong, ml);
    maxShort = Math.min(maxShort, ms);
    finalNet += Math.abs(p.net);
    const isQuoted = quoted.has(c.markets[m]!);
    const up = c.uptime(m);
    if (isQuoted) {
      up2 += up.twoSided;
      up1 += up.anySide;
    }
    markets.push({
      marketId: c.markets[m]!,
      ...(name !== undefined ? { name } : {}),
      quoted: isQuoted,
      fills: p.fills,
      volume: usdc(p.volume / 1_000_000n),
      realisedPnl: usdc(pnl.realised),
      unrealisedPnl: usdc(pnl.unrealised),
      totalPnl: usdc(pnl.realised + pnl.unrealised),
      feesPaid: usdc(p.fees),
      finalPosition: shares(p.net),
      maxLong: shares(ml),
      maxShort: shares(ms),
      quoteUptime: round(up.twoSided, 4),
      attribution: { spreadCapture: usdc(a.spreadCapture), inventory: usdc(a.inventory), fees: usdc(a.fees), resolution: usdc(a.resolution) },
    });
  }
  let makerFills = 0;
  let makerVol = 0n;
  let takerVol = 0n;
  const causes: Record<string, number> = { trade: 0, cross: 0, take: 0 };
  for (const f of c.fills) {
    const v = BigInt(f.price) * BigInt(f.size);
    if (f.maker) {
      makerFills++;
      makerVol += v;
    } else takerVol += v;
    causes[f.cause] = (causes[f.cause] ?? 0) + 1;
  }
  const x = run.exchange;
  const nq = Math.max(1, quoted.size);
  const sh = periodSharpe(c.sampleT, c.totalPnl);
  const first = run.rowsReplayed > 0 ? run.start : 0;
  return {
    format: 'bookmaker-backtest-summary',
    version: 1,
    recording: {
      source: run.source.manifest.source,
      markets: c.markets.length,
      rows: run.rowsReplayed,
      from: new Date(first).toISOString(),
      to: new Date(run.end).toISOString(),
      seconds: round((run.end - first) / 1000, 3),
    },
    settings: {
      mode: run.fast ? 'fast' : 'full',
      queueModel: run.fast ? 'none' : run.settings.queueModel,
      latency: run.settings.latency,
      fees: run.settings.fees,
      strategies: run.strategies,
      seed: run.settings.seed,
    },
    pnl: {
      realised: usdc(realised),
      unrealised: usdc(unrealised),
      total: usdc(realised + unrealised),
      attribution: { spreadCapture: usdc(attr.spreadCapture), inventory: usdc(attr.inventory), fees: usdc(attr.fees), resolution: usdc(attr.resolution) },
    },
    feesPaid: usdc(fees),
    volume: usdc(volume / 1_000_000n),
    fills: c.fills.length,
    maker: { fills: makerFills, volume: usdc(makerVol / 1_000_000n) },
    taker: { fills: c.fills.length - makerFills, volume: usdc(takerVol / 1_000_000n) },
    fillCauses: causes,
    inventory: { maxLong: shares(maxLong), maxShort: shares(maxShort), meanAbs: round(absN ? absSum / absN / 1e6 : 0, 6), finalAbs: shares(finalNet) },
    maxDrawdown: round(drawdown(c.totalPnl) / 1e6, 6),
    sharpe: { ...sh, sampleSeconds: run.sampleMs / 1000 },
    markouts: markoutsOf(run),
    regimes: regimeShares(run),
    quoteUptime: { twoSided: round(up2 / nq, 4), anySide: round(up1 / nq, 4) },
    orders: { placed: x.placed, cancelled: x.cancelled, rejected: x.rejected, venueCalls: run.venueCalls },
    orderToFill: c.fills.length > 0 ? round(x.placed / c.fills.length, 3) : null,
    kernelTicks: run.kernelTicks,
    killed: run.killed,
    complete: run.incomplete === null,
    incomplete: run.incomplete,
    warnings: explainRun({
      counts: run.diagnostics,
      strategies: run.strategies,
      marketsInRecording: c.markets.length,
      marketsQuoted: quoted.size,
      bookRows: run.quotedRows.book,
      tradeRows: run.quotedRows.trade,
      ordersPlaced: x.placed,
      fills: c.fills.length,
      twoSidedUptime: up2 / nq,
      queueModel: run.fast ? 'none' : run.settings.queueModel,
      killed: run.killed,
      faults: (run.strategyFaults ?? []).map((f) => ({
        ...f,
        market: markets.find((m) => m.marketId === f.marketId)?.name ?? f.market,
        strategy: run.strategyParams?.find((p) => p.marketId === f.marketId)?.strategy ?? run.strategies.join(', '),
      })),
    }),
    diagnostics: { ...run.diagnostics, quotedBookRows: run.quotedRows.book, quotedTradeRows: run.quotedRows.trade },
    markets,
    ...(run.ranking ? { ranking: rankingSummary(run.ranking) } : {}),
  };
}

function markoutsOf(run: BacktestRun): BacktestSummary['markouts'] {
  const out: Record<string, Markout> = {};
  for (const h of markoutHorizons(run)) out[horizonLabel(h)] = markout(run, h);
  return out as BacktestSummary['markouts'];
}

function regimeShares(run: BacktestRun): Record<Regime, number> {
  const c = run.collector;
  const counts = REGIMES.map(() => 0);
  let n = 0;
  const quoted = new Set<string>(run.quoted);
  for (let m = 0; m < c.markets.length; m++) {
    if (!quoted.has(c.markets[m]!)) continue;
    for (const r of c.regimeSeries[m]!) {
      counts[r]!++;
      n++;
    }
  }
  return Object.fromEntries(REGIMES.map((r, i) => [r, n > 0 ? round(counts[i]! / n, 4) : 0])) as Record<Regime, number>;
}

/** Canonical JSON text of a summary (stable key order as built, two-space indent, trailing newline). */
export function summaryJson(s: BacktestSummary): string {
  return JSON.stringify(s, null, 2) + '\n';
}
