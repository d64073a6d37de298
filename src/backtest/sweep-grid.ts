/**
 * Parameter sweeps: a grid over config paths (strategy params, risk limits, orders, backtest
 * settings), expanded into one override set per combination, and the ranking of the results.
 *
 * sweep.yaml:
 *   grid:                                       # dotted config path → list of values
 *     defaults.strategy.params.gamma: [0.1, 0.5, 1]
 *     defaults.risk.maxPosition: [200, 500]
 *   rankBy: pnl                                 # pnl (default) | sharpe | drawdown | fills | pnlPerVolume | pnlPerVolumeLow | worstWindow
 *   minVolume: 0                                # USDC: runs below it rank after every run that reaches it
 *   windows: 4                                  # worstWindow: the run cut into this many equal windows
 *   blockSeconds: 60                            # pnlPerVolumeLow: the run cut into blocks of about this length
 *   fast: true                                  # fast mode (no queue model); default true
 *   maxRuns: 1000                               # refuse bigger grids (default 1000)
 *
 * pnlPerVolume ranks by PnL / volume; worstWindow by the worst PnL of `windows` equal windows of the
 * run (from its PnL samples, `windowPnl`), the total PnL breaking ties. pnlPerVolumeLow by the lower
 * end of the 95 % interval of PnL per volume over blocks of `blockSeconds` (src/backtest/pnl-per-volume-bound.ts):
 * PnL per volume that carries its own uncertainty, so a few lucky fills rank below many moderate ones.
 * They prefer what holds up over what made the most once; with `minVolume` a run that barely traded
 * cannot win. The walk-forward (src/backtest/walk-forward.ts) chooses by the same ranking.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ConfigError } from '../model/errors.ts';
import { pnlPerVolumeBound, type RunBlocks } from './pnl-per-volume-bound.ts';
import type { BacktestSummary } from './report-summary.ts';

export const RANK_BY = ['pnl', 'sharpe', 'drawdown', 'fills', 'pnlPerVolume', 'pnlPerVolumeLow', 'worstWindow'] as const;
export type RankBy = (typeof RANK_BY)[number];

export interface SweepSpec {
  readonly grid: ReadonlyArray<readonly [string, readonly unknown[]]>;
  readonly rankBy: RankBy;
  readonly fast: boolean;
  readonly maxRuns: number;
  /** USDC: runs with less volume rank after every run that reaches it (default 0) */
  readonly minVolume: number;
  /** equal windows of a run for `windowPnl` and the worstWindow ranking (default 4) */
  readonly windows: number;
  /** pnlPerVolumeLow: blocks of about this many seconds (default 60) */
  readonly blockSeconds: number;
}

export type Combo = Readonly<Record<string, unknown>>;

const SPEC_KEYS = ['grid', 'rankBy', 'fast', 'maxRuns', 'minVolume', 'windows', 'blockSeconds'];

export function parseSweepSpec(doc: unknown, file: string): SweepSpec {
  const bad = (msg: string): never => {
    throw new ConfigError(`${file}: ${msg}`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return bad('expected a mapping with a grid');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!SPEC_KEYS.includes(k)) bad(`${k}: unknown key (${SPEC_KEYS.join(', ')})`);
  const g = o.grid;
  if (typeof g !== 'object' || g === null || Array.isArray(g) || Object.keys(g).length === 0)
    return bad('grid: expected a mapping of config path → list of values');
  const grid: [string, unknown[]][] = [];
  for (const [path, values] of Object.entries(g as Record<string, unknown>)) {
    if (!/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(path)) bad(`grid.${path}: expected a dotted config path such as defaults.strategy.params.gamma`);
    if (!Array.isArray(values) || values.length === 0) bad(`grid.${path}: expected a non-empty list of values`);
    grid.push([path, values as unknown[]]);
  }
  const rankBy = o.rankBy ?? 'pnl';
  if (!(RANK_BY as readonly unknown[]).includes(rankBy)) bad(`rankBy: expected one of ${RANK_BY.join(', ')}, got ${JSON.stringify(rankBy)}`);
  const fast = o.fast ?? true;
  if (typeof fast !== 'boolean') bad('fast: expected true or false');
  const maxRuns = o.maxRuns ?? 1000;
  if (typeof maxRuns !== 'number' || !Number.isInteger(maxRuns) || maxRuns < 1) bad('maxRuns: expected a positive integer');
  const minVolume = o.minVolume ?? 0;
  if (typeof minVolume !== 'number' || !Number.isFinite(minVolume) || minVolume < 0) bad('minVolume: expected a volume in USDC ≥ 0');
  const windows = o.windows ?? 4;
  if (typeof windows !== 'number' || !Number.isInteger(windows) || windows < 1 || windows > 1000) bad('windows: expected an integer from 1 to 1000');
  const blockSeconds = o.blockSeconds ?? 60;
  if (typeof blockSeconds !== 'number' || !Number.isFinite(blockSeconds) || blockSeconds < 1 || blockSeconds > 86_400)
    bad('blockSeconds: expected seconds from 1 to 86400');
  const spec: SweepSpec = {
    grid,
    rankBy: rankBy as RankBy,
    fast: fast as boolean,
    maxRuns: maxRuns as number,
    minVolume: minVolume as number,
    windows: windows as number,
    blockSeconds: blockSeconds as number,
  };
  const n = grid.reduce((a, [, v]) => a * v.length, 1);
  if (n > spec.maxRuns) bad(`grid has ${n} combinations, above maxRuns ${spec.maxRuns}`);
  return spec;
}

export async function loadSweepSpec(file: string): Promise<SweepSpec> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read the sweep file (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { cause: e });
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new ConfigError(`${file}: invalid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  return parseSweepSpec(doc.toJS(), file);
}

/** Every combination, the last path varying fastest. */
export function expandGrid(grid: SweepSpec['grid']): Combo[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [path, values] of grid) {
    const next: Record<string, unknown>[] = [];
    for (const base of out) for (const v of values) next.push({ ...base, [path]: v });
    out = next;
  }
  return out;
}

export interface SweepResult {
  readonly index: number;
  readonly combo: Combo;
  readonly summary: BacktestSummary | null;
  /** PnL (USDC) of each of the spec's `windows` equal windows of the run, in time order (`windowPnl`) */
  readonly windowPnl?: readonly number[];
  /** PnL and volume of the run's blocks of `blockSeconds` (pnlPerVolumeLow) */
  readonly blocks?: RunBlocks;
  readonly error?: string;
}

/**
 * PnL (USDC) of `n` equal windows of [start, end], from the run's PnL samples (`sampleT`, `totalPnl`
 * in 1e-6 USDC): each window's last sample against the one before it (0 before the first).
 */
export function windowPnl(sampleT: readonly number[], totalPnl: readonly number[], start: number, end: number, n: number): number[] {
  const at = (t: number): number => {
    let v = 0;
    for (let i = 0; i < sampleT.length && sampleT[i]! <= t; i++) v = totalPnl[i]!;
    return v;
  };
  const out: number[] = [];
  let prev = 0;
  for (let w = 1; w <= n; w++) {
    const v = w === n ? (totalPnl.length > 0 ? totalPnl[totalPnl.length - 1]! : 0) : at(start + ((end - start) * w) / n);
    out.push(Math.round(v - prev) / 1e6);
    prev = v;
  }
  return out;
}

/** The ranking score of a run (higher is better): the figure the sweep and the walk-forward choose by. */
export function rankScore(r: Pick<SweepResult, 'summary' | 'windowPnl' | 'blocks'>, by: RankBy): number {
  const s = r.summary;
  if (!s) return -Infinity;
  if (by === 'pnlPerVolume') return s.volume > 0 ? s.pnl.total / s.volume : s.pnl.total >= 0 ? 0 : -Infinity;
  if (by === 'pnlPerVolumeLow') return (r.blocks ? pnlPerVolumeBound(r.blocks)?.lo : undefined) ?? -Infinity;
  if (by === 'worstWindow') return r.windowPnl && r.windowPnl.length > 0 ? Math.min(...r.windowPnl) : -Infinity;
  return score(s, by);
}

function score(s: BacktestSummary, by: Exclude<RankBy, 'pnlPerVolume' | 'pnlPerVolumeLow' | 'worstWindow'>): number {
  switch (by) {
    case 'pnl':
      return s.pnl.total;
    case 'sharpe':
      return s.sharpe.value ?? -Infinity;
    case 'drawdown':
      return -s.maxDrawdown;
    case 'fills':
      return s.fills;
  }
}

/**
 * Best first; runs below `minVolume` after those that reach it; failed runs last; ties by total PnL
 * (worstWindow, pnlPerVolume, pnlPerVolumeLow), then grid order (deterministic).
 */
export function rank(results: readonly SweepResult[], by: RankBy, minVolume = 0): SweepResult[] {
  const tier = (r: SweepResult): number => (!r.summary ? 2 : r.summary.volume < minVolume ? 1 : 0);
  return [...results].sort((a, b) => {
    const t = tier(a) - tier(b);
    if (t !== 0 || !a.summary || !b.summary) return t || a.index - b.index;
    const d = rankScore(b, by) - rankScore(a, by);
    if (d !== 0 && !Number.isNaN(d)) return d;
    return (by === 'pnlPerVolume' || by === 'pnlPerVolumeLow' || by === 'worstWindow' ? b.summary.pnl.total - a.summary.pnl.total : 0) || a.index - b.index;
  });
}

export function formatRanked(results: readonly SweepResult[], grid: SweepSpec['grid']): string {
  const keys = grid.map(([p]) => p);
  const short = keys.map((k) => k.split('.').slice(-1)[0]!);
  // low95%: the lower end of the 95 % interval of PnL per volume (pnlPerVolumeLow's score), from the run's blocks
  const header = ['#', ...short, 'pnl', 'fills', 'volume', 'pnl%vol', 'low95%', 'worstWin', 'maxDD', 'sharpe', 'uptime'];
  // a failed run's error goes below the table, not into its pnl column (an error message is wider than any figure)
  const failures: string[] = [];
  const rows = results.map((r, i) => {
    const s = r.summary;
    const vals = keys.map((k) => JSON.stringify(r.combo[k]));
    if (!s) {
      failures.push(`#${i + 1} failed: ${r.error ?? 'no summary'}`);
      return [String(i + 1), ...vals, 'failed', '', '', '', '', '', '', '', ''];
    }
    return [
      String(i + 1),
      ...vals,
      s.pnl.total.toFixed(2),
      String(s.fills),
      s.volume.toFixed(0),
      s.volume > 0 ? `${((s.pnl.total / s.volume) * 100).toFixed(2)}%` : '–',
      Number.isFinite(rankScore(r, 'pnlPerVolumeLow')) ? `${(rankScore(r, 'pnlPerVolumeLow') * 100).toFixed(2)}%` : '–',
      r.windowPnl && r.windowPnl.length > 0 ? Math.min(...r.windowPnl).toFixed(2) : '–',
      s.maxDrawdown.toFixed(2),
      s.sharpe.value === null ? '–' : `${s.sharpe.value.toFixed(3)}/${s.sharpe.period}`,
      `${(s.quoteUptime.twoSided * 100).toFixed(1)}%`,
    ];
  });
  const w = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((x, c) => x.padStart(w[c]!)).join('  ');
  return [line(header), ...rows.map(line), ...failures].join('\n') + '\n';
}
