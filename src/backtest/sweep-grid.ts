/**
 * Parameter sweeps: a grid over config paths (strategy params, risk limits, orders, backtest
 * settings), expanded into one override set per combination, and the ranking of the results.
 *
 * sweep.yaml:
 *   grid:                                       # dotted config path → list of values
 *     defaults.strategy.params.gamma: [0.1, 0.5, 1]
 *     defaults.risk.maxPosition: [200, 500]
 *   rankBy: pnl                                 # pnl (default) | sharpe | drawdown | fills
 *   fast: true                                  # fast mode (no queue model); default true
 *   maxRuns: 1000                               # refuse bigger grids (default 1000)
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ConfigError } from '../model/errors.ts';
import type { BacktestSummary } from './report-summary.ts';

export const RANK_BY = ['pnl', 'sharpe', 'drawdown', 'fills'] as const;
export type RankBy = (typeof RANK_BY)[number];

export interface SweepSpec {
  readonly grid: ReadonlyArray<readonly [string, readonly unknown[]]>;
  readonly rankBy: RankBy;
  readonly fast: boolean;
  readonly maxRuns: number;
}

export type Combo = Readonly<Record<string, unknown>>;

export function parseSweepSpec(doc: unknown, file: string): SweepSpec {
  const bad = (msg: string): never => {
    throw new ConfigError(`${file}: ${msg}`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return bad('expected a mapping with a grid');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['grid', 'rankBy', 'fast', 'maxRuns'].includes(k)) bad(`${k}: unknown key (grid, rankBy, fast, maxRuns)`);
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
  const spec: SweepSpec = { grid, rankBy: rankBy as RankBy, fast: fast as boolean, maxRuns: maxRuns as number };
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
  readonly error?: string;
}

function score(s: BacktestSummary, by: RankBy): number {
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

/** Best first; failed runs last; ties keep grid order (deterministic). */
export function rank(results: readonly SweepResult[], by: RankBy): SweepResult[] {
  return [...results].sort((a, b) => {
    if (!a.summary || !b.summary) return (a.summary ? 0 : 1) - (b.summary ? 0 : 1) || a.index - b.index;
    return score(b.summary, by) - score(a.summary, by) || a.index - b.index;
  });
}

export function formatRanked(results: readonly SweepResult[], grid: SweepSpec['grid']): string {
  const keys = grid.map(([p]) => p);
  const short = keys.map((k) => k.split('.').slice(-1)[0]!);
  const header = ['#', ...short, 'pnl', 'fills', 'volume', 'maxDD', 'sharpe', 'uptime'];
  const rows = results.map((r, i) => {
    const s = r.summary;
    const vals = keys.map((k) => JSON.stringify(r.combo[k]));
    if (!s) return [String(i + 1), ...vals, `error: ${r.error ?? '?'}`, '', '', '', '', ''];
    return [
      String(i + 1),
      ...vals,
      s.pnl.total.toFixed(2),
      String(s.fills),
      s.volume.toFixed(0),
      s.maxDrawdown.toFixed(2),
      s.sharpe.value === null ? '–' : `${s.sharpe.value.toFixed(3)}/${s.sharpe.period}`,
      `${(s.quoteUptime.twoSided * 100).toFixed(1)}%`,
    ];
  });
  const w = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((x, c) => x.padStart(w[c]!)).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
