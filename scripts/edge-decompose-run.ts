/**
 * One synthetic run's PnL taken apart fill by fill against the hidden fair value (lent by
 * src/backtest/synthetic-source.ts's diagnostics accessor to scripts only, as in
 * scripts/holding-trace.ts), for scripts/edge-decompose.ts and scripts/edge-oracle.ts.
 *
 * A fill of `sh` shares at `price`, sign s (+1 bought YES, −1 sold), the fair value F(t) sampled after
 * every agent step (500 ms) until the market's resolution or the run's end (time E):
 *   spread      s·sh·(F(fill) − price)             what the fill captured against the fair value
 *   move 1 s    s·sh·(F(fill + 1 s) − F(fill))      the fair value's move after it, in the bot's favour
 *   move 10 s   s·sh·(F(+10 s) − F(+1 s))           (each horizon capped at E)
 *   move 60 s   s·sh·(F(+60 s) − F(+10 s))
 *   carried     s·sh·(F(E) − F(+60 s))              the inventory carried past a minute
 *   resolution  s·sh·(payout − F(E))                a resolved market: the payout against the fair value
 *   end mark    s·sh·(last mid − F(E))              a market open at the run's end: the mark against it
 *   fee         the fill's fee (taker fills only, in config/backtest.yaml)
 * The parts of a fill sum to its PnL (payout or mark less price, less fee); the run's sum to the
 * run's PnL: `residual` is the difference, zero to rounding.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadedBacktestConfig, loadBacktestConfig } from '../src/backtest/backtest-config.ts';
import { type MeanCi, meanCi, t975 } from '../src/backtest/mean-ci.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { liveSyntheticSource } from '../src/backtest/synthetic-source.ts';
import { sampleIndex, traceHiddenFair } from './fair-trace.ts';
import { type AgentOverrides, CALIBRATED_FIT, type CalibratedFit, calibratedAgents, type FlowPreset } from '../src/sim/flow-presets.ts';

/** The parts of a fill or a run, USDC (see the header). */
export interface Parts {
  spread: number;
  m1: number;
  m10: number;
  m60: number;
  carried: number;
  resolution: number;
  endMark: number;
  fee: number;
}
export const PART_KEYS = ['spread', 'm1', 'm10', 'm60', 'carried', 'resolution', 'endMark', 'fee'] as const;
const zero = (): Parts => ({ spread: 0, m1: 0, m10: 0, m60: 0, carried: 0, resolution: 0, endMark: 0, fee: 0 });

export interface FillParts extends Parts {
  readonly shares: number;
  readonly maker: boolean;
}

export interface RunParts extends Parts {
  readonly seed: number;
  /** the summary's PnL, net of fees */
  readonly pnl: number;
  readonly volume: number;
  readonly fills: number;
  readonly shares: number;
  /** pnl − Σ parts (the fee counted negative) */
  readonly residual: number;
  /** markets held into their resolution, and Σ position² · F(E)(1 − F(E)) over them (the resolution term's model variance) */
  readonly heldResolutions: number;
  readonly resolutionVar: number;
}

/**
 * The agents of a `calibrated` fit given as a JSON file of CalibratedFit settings over the shipped
 * CALIBRATED_FIT (as scripts/flow-calibrate.ts's `--out` writes them); an unknown key is refused.
 * decomposeRun runs them over `benign`, taken as they are: over the `calibrated` preset the taker
 * rates would be the preset's, not the fit's (src/sim/counterparties.ts keeps a preset's own rates).
 */
export function fitAgentsFromFile(file: string): AgentOverrides {
  const given = JSON.parse(readFileSync(file, 'utf8')) as Partial<CalibratedFit>;
  const fit: CalibratedFit = { ...CALIBRATED_FIT, ...given };
  for (const k of Object.keys(fit) as (keyof CalibratedFit)[])
    if (!(k in CALIBRATED_FIT) || !Number.isFinite(fit[k])) throw new Error(`--fit: ${k} is not a finite CalibratedFit setting`);
  return calibratedAgents(fit);
}

export interface DecomposeOptions {
  readonly seed: number;
  readonly hours: number;
  readonly markets: number;
  readonly flow: FlowPreset;
  /**
   * a whole `calibrated` fit's agents (fitAgentsFromFile): the run's flow is then `benign` with these
   * agents as they are, as scripts/flow-calibrate.ts and scripts/edge-fit-seeds.ts `--via fit` build it
   */
  readonly agents?: AgentOverrides;
  readonly cfg: LoadedBacktestConfig;
  /** called before the run with the hidden fair value's reader (scripts/edge-oracle-maker.ts quotes off it) */
  readonly withFair?: (fair: (marketId: string) => number | undefined) => void;
}

export async function decomposeRun(o: DecomposeOptions): Promise<{ run: RunParts; fills: FillParts[] }> {
  if (o.agents && o.flow !== 'calibrated') throw new Error('--fit: a fit is of the calibrated preset');
  const flow: FlowPreset = o.agents ? 'benign' : o.flow;
  const source = await liveSyntheticSource({ seed: o.seed, hours: o.hours, markets: o.markets, flow, ...(o.agents ? { agents: o.agents } : {}) });
  const ids = source.manifest.markets.map((m) => m.id);
  const byLower = new Map(ids.map((id) => [id.toLowerCase(), id]));
  o.withFair?.((id) => {
    const real = byLower.get(id.toLowerCase());
    return real === undefined ? undefined : source.live.hiddenFair?.(real);
  });
  // the fair value 1 ms after every agent step (every 500 ms from the start), kept under the step's time
  const trace = traceHiddenFair(source);
  const bt = await runBacktest({ source, ranking: null, config: o.cfg.bot, settings: o.cfg.settings });
  const s = buildSummary(bt);
  const c = bt.collector;
  const at = sampleIndex;
  const run = zero();
  const fills: FillParts[] = [];
  let shares = 0;
  let heldResolutions = 0;
  let resolutionVar = 0;
  c.markets.forEach((mid, m) => {
    const tr = trace.get(mid.toLowerCase());
    const mine = c.fills.filter((f) => f.market === m);
    if (mine.length === 0) return;
    if (!tr || tr.t.length === 0) throw new Error(`fills in ${mid} without a fair-value trace`);
    const payout = c.payout[m]!;
    // the resolution's time: the payout is the last mid change the collector booked
    const resT = payout >= 0 ? c.midT[m]![c.midT[m]!.length - 1]! : undefined;
    const lastI = resT !== undefined ? at(tr, resT) : tr.t.length - 1;
    const fairEnd = tr.p[lastI]!;
    const endT = tr.t[lastI]!;
    const endV = (payout >= 0 ? payout : c.lastMid[m]!) / 1e6;
    let net = 0;
    for (const f of mine) {
      const sgn = f.yesSide === 'bid' ? 1 : -1;
      const sh = f.size / 1e6;
      const i = at(tr, f.at);
      if (i < 0) throw new Error(`a fill before the market's first fair-value sample (${mid})`);
      const fair = tr.p[i]!;
      const pAt = (dt: number): number => (i >= lastI ? fair : tr.p[Math.min(lastI, at(tr, Math.min(endT, f.at + dt)))]!);
      const [p1, p10, p60] = [pAt(1_000), pAt(10_000), pAt(60_000)];
      const v = (x: number) => sgn * sh * x;
      const end = v(endV - fairEnd);
      const part: FillParts = {
        shares: sh,
        maker: f.maker,
        spread: v(fair - f.yesPrice / 1e6),
        m1: v(p1 - fair),
        m10: v(p10 - p1),
        m60: v(p60 - p10),
        carried: v(fairEnd - p60),
        resolution: payout >= 0 ? end : 0,
        endMark: payout >= 0 ? 0 : end,
        fee: f.fee / 1e6,
      };
      fills.push(part);
      for (const k of PART_KEYS) run[k] += part[k];
      shares += sh;
      net += sgn * sh;
    }
    if (payout >= 0 && Math.abs(net) > 1e-9) {
      heldResolutions++;
      resolutionVar += net * net * fairEnd * (1 - fairEnd);
    }
  });
  const sum = run.spread + run.m1 + run.m10 + run.m60 + run.carried + run.resolution + run.endMark - run.fee;
  return {
    run: { ...run, seed: o.seed, pnl: s.pnl.total, volume: s.volume, fills: fills.length, shares, residual: s.pnl.total - sum, heldResolutions, resolutionVar },
    fills,
  };
}

/**
 * config/backtest.yaml (or `base`) with the strategy block swapped for `name` and `params` (the guard
 * appended as the edge bench appends it, test/bench/edge.bench.ts), for a taker its `risk` lines, and
 * `requoteSeconds` in place of the config's `orders.requoteIntervalSeconds` (1 s in config/backtest.yaml:
 * the bot ticks a market at most once a second).
 */
export async function strategyConfig(
  dir: string,
  name: string,
  params: string,
  o: { guard?: boolean; risk?: string; base?: string; requoteSeconds?: number } = {},
): Promise<LoadedBacktestConfig> {
  const p = o.guard ? params.replace(/ }$/, ', toxicity: true }') : params;
  let text = (o.base ?? readFileSync('config/backtest.yaml', 'utf8')).replace(
    /defaults:\n  strategy:\n(?: {4}.*\n)+/,
    `defaults:\n  strategy:\n    name: ${name}\n    params: ${p}\n`,
  );
  if (o.risk) text = text.replace(/maxPosition: 500 .*/, o.risk);
  if (o.requoteSeconds !== undefined) text = text.replace(/requoteIntervalSeconds: .*/, `requoteIntervalSeconds: ${o.requoteSeconds}`);
  const file = join(dir, `cfg-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.yaml`);
  writeFileSync(file, text);
  return loadBacktestConfig(file);
}

/** Per-run means of the parts over seeds, and per-share means over fills (¢), each with its 95 % interval. */
export function summariseParts(runs: readonly RunParts[], fills: readonly FillParts[]) {
  const perRun = Object.fromEntries(
    (['pnl', ...PART_KEYS, 'volume', 'fills'] as const).map((k) => [k, meanCi(runs.map((r) => (k === 'fee' ? -r.fee : r[k])))]),
  ) as Record<'pnl' | (typeof PART_KEYS)[number] | 'volume' | 'fills', MeanCi>;
  // cumulative per share, ¢: the spread, then the spread plus the moves to 1, 10, 60 s, the end (before the payout or mark), all
  const cum = (f: FillParts, upTo: number) => {
    const steps = [f.spread, f.m1, f.m10, f.m60, f.carried, f.resolution + f.endMark - f.fee];
    return (100 * steps.slice(0, upTo + 1).reduce((a, b) => a + b, 0)) / f.shares;
  };
  const perShare = {
    spread: meanCi(fills.map((f) => cum(f, 0))),
    at1s: meanCi(fills.map((f) => cum(f, 1))),
    at10s: meanCi(fills.map((f) => cum(f, 2))),
    at60s: meanCi(fills.map((f) => cum(f, 3))),
    atEnd: meanCi(fills.map((f) => cum(f, 4))),
    all: meanCi(fills.map((f) => cum(f, 5))),
  };
  const n = runs.length;
  const pnl = perRun.pnl;
  // with the resolutions at their model variance: the rest's sample variance plus Σ position² p(1 − p)
  const rest = meanCi(runs.map((r) => r.pnl - r.resolution));
  const resVar = runs.reduce((a, r) => a + r.resolutionVar, 0);
  const modelSe = Math.sqrt((rest.sd * rest.sd) / n + resVar / (n * n));
  const modelHalf = t975(n - 1) * modelSe;
  // seeds a strategy with this mean and run-to-run spread needs for its interval to clear 0: t·sd/√n < mean
  const seedsNeeded = pnl.mean > 0 ? Math.ceil(((1.96 * pnl.sd) / pnl.mean) ** 2) : null;
  // the fills on the right side of the fair value (bought below it, sold above) and on the wrong side (picked off): fills, shares, USDC
  const side = (right: boolean) => {
    const fs = fills.filter((f) => f.spread >= 0 === right);
    return { fills: fs.length, shares: fs.reduce((a, f) => a + f.shares, 0), spread: fs.reduce((a, f) => a + f.spread, 0) };
  };
  return {
    perRun,
    perShare,
    right: side(true),
    wrong: side(false),
    modelInterval: [pnl.mean - modelHalf, pnl.mean + modelHalf] as const,
    heldResolutions: runs.reduce((a, r) => a + r.heldResolutions, 0),
    residual: runs.reduce((a, r) => a + Math.abs(r.residual), 0),
    seedsNeeded,
  };
}

/** "+0.12 [−0.03, +0.27]" */
export function ci(c: MeanCi, digits = 2): string {
  const f = (x: number | null) => (x === null ? '–' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`);
  return `${f(c.mean)} [${f(c.lo)}, ${f(c.hi)}]`;
}
