/**
 * Walk-forward over a parameter grid: every combination of a sweep grid (src/backtest/sweep-grid.ts)
 * is backtested on the first part of a window, ranked there by the sweep's `rankBy` (runs below its
 * `minVolume` last), and only the best is then backtested on the held-out rest. Nothing of the second
 * part is read before the choice is made; the second part's run starts cold (no position, no
 * estimator state), as a bot started at the split would.
 *
 *   bookmaker backtest -c FILE --data DIR --sweep GRID.yaml --walk-forward 50% [--from T --to T] [--json FILE]
 *
 * The split: `NN%` of the window's recorded span (first to last row), or a time as --from takes
 * (ISO, epoch ms, +offset from the recording start). Both parts' figures come from `partFigures`,
 * which the table and the JSON share.
 */
import { BadInputError } from '../model/errors.ts';
import { loadReplaySource, parseTimeFlag } from './replay-source.ts';
import { runSweep } from './run-sweep.ts';
import { expandGrid, formatRanked, rank, rankScore, type SweepResult, type SweepSpec } from './sweep-grid.ts';
import { runSweepJob } from './sweep-job.ts';

export interface WalkForwardOptions {
  readonly configFile: string;
  readonly data: string;
  /** the whole window (default: the recording) */
  readonly from?: number;
  readonly to?: number;
  /** epoch ms: the first part is [from, split), the second [split, to) */
  readonly split: number;
  readonly spec: SweepSpec;
  readonly workers: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface WalkForwardResult {
  readonly split: number;
  readonly first: { readonly from: number; readonly to: number };
  readonly second: { readonly from: number; readonly to: number };
  /** every combination's run on the first part, best first (the sweep's ranking) */
  readonly ranked: readonly SweepResult[];
  /** the combinations the first part ran (fewer when interrupted) */
  readonly total: number;
  /** the best of the first part, or null when none ran or none reached minVolume */
  readonly chosen: SweepResult | null;
  /** the chosen combination on the second part */
  readonly heldOut: SweepResult | null;
}

/** The figures of one part (USDC; markouts in ¢ per share): the table's and the JSON's. */
export interface PartFigures {
  readonly pnl: number;
  readonly volume: number;
  /** PnL as a share of volume, percent (null without volume) */
  readonly pnlPctOfVolume: number | null;
  readonly fills: number;
  readonly worstWindow: number | null;
  readonly windowPnl: readonly number[];
  readonly markout10s: number | null;
  readonly attribution: { readonly spreadCapture: number; readonly inventory: number; readonly fees: number; readonly resolution: number };
  readonly maxDrawdown: number;
}

export function partFigures(r: SweepResult): PartFigures | null {
  const s = r.summary;
  if (!s) return null;
  const w = r.windowPnl ?? [];
  return {
    pnl: s.pnl.total,
    volume: s.volume,
    pnlPctOfVolume: s.volume > 0 ? Math.round((s.pnl.total / s.volume) * 1e6) / 1e4 : null,
    fills: s.fills,
    worstWindow: w.length > 0 ? Math.min(...w) : null,
    windowPnl: w,
    markout10s: s.markouts['10s'].centsPerShare,
    attribution: s.pnl.attribution,
    maxDrawdown: s.maxDrawdown,
  };
}

/**
 * The split of `--walk-forward`: `NN%` (0 < NN < 100) of the window's recorded span, or a time;
 * strictly inside the window's rows, so both parts have data. Also the window made explicit: from
 * its first row to just after its last (for the printed times).
 */
export function parseSplit(
  text: string,
  data: string,
  window: { from?: number; to?: number },
  recordingStart: number,
): { split: number; from: number; to: number } {
  const src = loadReplaySource(data, window);
  if (src.rows.length < 2) throw new BadInputError('--from/--to', 'a window with recorded events to split', `${src.rows.length} rows`);
  const first = src.cols.lts[src.rows[0]!]!;
  const last = src.cols.lts[src.rows[src.rows.length - 1]!]!;
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  let split: number;
  if (pct) {
    const f = Number(pct[1]) / 100;
    if (!(f > 0 && f < 1)) throw new BadInputError('--walk-forward', 'a share of the window between 0% and 100% (e.g. 50%) or a time', text);
    split = Math.round(first + (last - first) * f);
  } else split = parseTimeFlag(text, '--walk-forward', recordingStart);
  if (!(split > first && split <= last))
    throw new BadInputError(
      '--walk-forward',
      `a split inside the window's data (${new Date(first).toISOString()} → ${new Date(last).toISOString()}), e.g. 50%`,
      text,
    );
  return { split, from: window.from ?? first, to: window.to ?? last + 1 };
}

export async function runWalkForward(o: WalkForwardOptions): Promise<WalkForwardResult> {
  const first = { from: o.from ?? -Infinity, to: o.split };
  const second = { from: o.split, to: o.to ?? Infinity };
  const total = expandGrid(o.spec.grid).length;
  const results = await runSweep({
    configFile: o.configFile,
    data: o.data,
    ...(o.from !== undefined ? { from: o.from } : {}),
    to: o.split,
    spec: o.spec,
    workers: o.workers,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: (d: number) => o.onProgress!(d, total + 1) } : {}),
  });
  const ranked = rank(results, o.spec.rankBy, o.spec.minVolume);
  const top = ranked[0];
  const chosen = top && top.summary && top.summary.volume >= o.spec.minVolume && Number.isFinite(rankScore(top, o.spec.rankBy)) ? top : null;
  let heldOut: SweepResult | null = null;
  if (chosen && !o.signal?.aborted && results.length === total) {
    const res = await runSweepJob({
      configFile: o.configFile,
      data: o.data,
      from: o.split,
      ...(o.to !== undefined ? { to: o.to } : {}),
      fast: o.spec.fast,
      windows: o.spec.windows,
      index: chosen.index,
      combo: chosen.combo,
    });
    heldOut = {
      index: chosen.index,
      combo: chosen.combo,
      summary: res.summary,
      ...(res.windowPnl ? { windowPnl: res.windowPnl } : {}),
      ...(res.error ? { error: res.error } : {}),
    };
    o.onProgress?.(total + 1, total + 1);
  }
  return { split: o.split, first, second, ranked, total, chosen, heldOut };
}

const iso = (t: number): string => (Number.isFinite(t) ? new Date(t).toISOString() : t < 0 ? 'start' : 'end');
const f2 = (v: number | null): string => (v === null ? '–' : v.toFixed(2));

/** What the criterion is, in words (the table's header and the JSON's). */
export function criterionText(spec: Pick<SweepSpec, 'rankBy' | 'minVolume' | 'windows'>): string {
  const by =
    spec.rankBy === 'worstWindow'
      ? `the worst PnL of ${spec.windows} equal windows`
      : spec.rankBy === 'pnlPerVolume'
        ? 'PnL per volume'
        : spec.rankBy === 'drawdown'
          ? 'the smallest max drawdown'
          : spec.rankBy;
  return `${by}${spec.minVolume > 0 ? `, among runs with volume ≥ ${spec.minVolume} USDC` : ''}`;
}

/** The printed walk-forward: the first part's ranking (the best `top`), the choice, and both parts' figures. */
export function formatWalkForward(wf: WalkForwardResult, spec: SweepSpec, top = 10): string {
  const lines = [
    `walk-forward: ${wf.ranked.length} of ${wf.total} combinations on the first part (${iso(wf.first.from)} → ${iso(wf.split)}), chosen by ${criterionText(spec)}; the choice alone scored on the second (${iso(wf.split)} → ${iso(wf.second.to)}); ${spec.fast ? 'fast mode (no queue model; fast: false in the grid file runs it)' : 'full mode (queue model)'}`,
    `first part, ranked${wf.ranked.length > top ? ` (best ${top})` : ''}:`,
    formatRanked(wf.ranked.slice(0, top), spec.grid).trimEnd(),
  ];
  if (!wf.chosen) {
    const failed = wf.ranked.filter((r) => !r.summary);
    lines.push(
      wf.ranked.length === 0
        ? 'chosen: none (no run finished)'
        : failed.length === wf.ranked.length
          ? `chosen: none (every run failed; the first: ${failed[0]!.error ?? '?'})`
          : `chosen: none (no combination reached ${spec.minVolume} USDC of volume on the first part)`,
    );
    return lines.join('\n') + '\n';
  }
  const partial = wf.ranked.length < wf.total ? ` (the best of the ${wf.ranked.length} that ran before the interruption)` : '';
  lines.push(
    `chosen${partial}: ${Object.entries(wf.chosen.combo)
      .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
      .join(', ')}`,
  );
  const head = ['part', 'PnL', 'volume', 'PnL % vol', 'fills', 'worst window', '10 s markout ¢', 'spread / inventory / fees'];
  const row = (name: string, r: SweepResult | null): string[] => {
    const p = r ? partFigures(r) : null;
    if (!p) return [name, r?.error ? `error: ${r.error}` : '–', '', '', '', '', '', ''];
    const a = p.attribution;
    return [
      name,
      f2(p.pnl),
      p.volume.toFixed(0),
      p.pnlPctOfVolume === null ? '–' : `${p.pnlPctOfVolume.toFixed(2)} %`,
      String(p.fills),
      f2(p.worstWindow),
      p.markout10s === null ? '–' : p.markout10s.toFixed(2),
      `${f2(a.spreadCapture)} / ${f2(a.inventory)} / ${f2(a.fees)}`,
    ];
  };
  const rows = [head, row('first (chosen on)', wf.chosen), row('second (held out)', wf.heldOut)];
  const w = head.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  lines.push(...rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(w[c]!) : x.padStart(w[c]!))).join('  ')));
  if (!wf.heldOut) lines.push('second part: not run (interrupted before it)');
  return lines.join('\n') + '\n';
}

/** The JSON of `--walk-forward --json`. */
export function walkForwardJson(wf: WalkForwardResult, spec: SweepSpec, data: string): string {
  const part = (r: SweepResult | null) => (r ? { figures: partFigures(r), summary: r.summary, ...(r.error ? { error: r.error } : {}) } : null);
  return (
    JSON.stringify(
      {
        format: 'bookmaker-walk-forward',
        version: 1,
        data,
        split: iso(wf.split),
        first: { from: iso(wf.first.from), to: iso(wf.first.to) },
        second: { from: iso(wf.second.from), to: iso(wf.second.to) },
        criterion: { rankBy: spec.rankBy, minVolume: spec.minVolume, windows: spec.windows, text: criterionText(spec) },
        grid: spec.grid,
        fast: spec.fast,
        combinations: wf.total,
        complete: wf.ranked.length === wf.total && (wf.chosen === null || wf.heldOut !== null),
        chosen: wf.chosen ? { combo: wf.chosen.combo, first: part(wf.chosen), second: part(wf.heldOut) } : null,
        ranked: wf.ranked.map((r) => ({ combo: r.combo, figures: partFigures(r), ...(r.error ? { error: r.error } : {}) })),
      },
      null,
      2,
    ) + '\n'
  );
}
