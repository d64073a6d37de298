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
import { pnlPerVolumeBound } from './pnl-per-volume-bound.ts';
import { loadReplaySource, parseTimeFlag } from './replay-source.ts';
import { runSweep } from './run-sweep.ts';
import { expandGrid, formatRanked, rank, rankScore, type RankBy, type SweepResult, type SweepSpec } from './sweep-grid.ts';
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
  /** also choose by this criterion (same first-part runs, same floor) and score its choice: what another criterion would have done */
  readonly compareBy?: RankBy;
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
  /** with compareBy: that criterion's choice on both parts (the same runs as chosen/heldOut when it chose the same) */
  readonly compared: { readonly by: RankBy; readonly chosen: SweepResult | null; readonly heldOut: SweepResult | null } | null;
}

/** The figures of one part (USDC; markouts in ¢ per share): the table's and the JSON's. */
export interface PartFigures {
  readonly pnl: number;
  readonly volume: number;
  /** PnL as a share of volume, percent (null without volume) */
  readonly pnlPctOfVolume: number | null;
  /** its 95 % interval over the part's blocks, percent (src/backtest/pnl-per-volume-bound.ts; null without blocks or volume) */
  readonly pnlPctOfVolumeCi: { readonly lo: number; readonly hi: number; readonly blocks: number } | null;
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
  const ci = r.blocks ? pnlPerVolumeBound(r.blocks) : null;
  const pct = (x: number): number => Math.round(x * 1e6) / 1e4;
  return {
    pnl: s.pnl.total,
    volume: s.volume,
    pnlPctOfVolume: s.volume > 0 ? pct(s.pnl.total / s.volume) : null,
    pnlPctOfVolumeCi: ci ? { lo: pct(ci.lo), hi: pct(ci.hi), blocks: ci.blocks } : null,
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
  const choose = (list: readonly SweepResult[], by: RankBy): SweepResult | null => {
    const top = list[0];
    return top && top.summary && top.summary.volume >= o.spec.minVolume && Number.isFinite(rankScore(top, by)) ? top : null;
  };
  const chosen = choose(ranked, o.spec.rankBy);
  const complete = !o.signal?.aborted && results.length === total;
  const score = async (c: SweepResult): Promise<SweepResult> => {
    const res = await runSweepJob({
      configFile: o.configFile,
      data: o.data,
      from: o.split,
      ...(o.to !== undefined ? { to: o.to } : {}),
      fast: o.spec.fast,
      windows: o.spec.windows,
      blockSeconds: o.spec.blockSeconds,
      index: c.index,
      combo: c.combo,
    });
    return {
      index: c.index,
      combo: c.combo,
      summary: res.summary,
      ...(res.windowPnl ? { windowPnl: res.windowPnl } : {}),
      ...(res.blocks ? { blocks: res.blocks } : {}),
      ...(res.error ? { error: res.error } : {}),
    };
  };
  let heldOut: SweepResult | null = null;
  if (chosen && complete) {
    heldOut = await score(chosen);
    o.onProgress?.(total + 1, total + 1);
  }
  let compared: WalkForwardResult['compared'] = null;
  if (o.compareBy !== undefined) {
    const other = choose(rank(results, o.compareBy, o.spec.minVolume), o.compareBy);
    const otherHeld = other && complete && !o.signal?.aborted ? (other.index === chosen?.index ? heldOut : await score(other)) : null;
    compared = { by: o.compareBy, chosen: other, heldOut: otherHeld };
  }
  return { split: o.split, first, second, ranked, total, chosen, heldOut, compared };
}

const iso = (t: number): string => (Number.isFinite(t) ? new Date(t).toISOString() : t < 0 ? 'start' : 'end');
const f2 = (v: number | null): string => (v === null ? '–' : v.toFixed(2));

/** What the criterion is, in words (the table's header and the JSON's). */
export function criterionText(spec: Pick<SweepSpec, 'rankBy' | 'minVolume' | 'windows' | 'blockSeconds'>): string {
  const by =
    spec.rankBy === 'worstWindow'
      ? `the worst PnL of ${spec.windows} equal windows`
      : spec.rankBy === 'pnlPerVolume'
        ? 'PnL per volume'
        : spec.rankBy === 'pnlPerVolumeLow'
          ? `the lower end of the 95 % interval of PnL per volume (blocks of ${spec.blockSeconds} s)`
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
  const head = ['part', 'PnL', 'volume', 'PnL % vol', '95 % interval', 'fills', 'worst window', '10 s markout ¢', 'spread / inventory / fees'];
  const row = (name: string, r: SweepResult | null): string[] => {
    const p = r ? partFigures(r) : null;
    if (!p) return [name, r?.error ? `error: ${r.error}` : '–', '', '', '', '', '', '', ''];
    const a = p.attribution;
    return [
      name,
      f2(p.pnl),
      p.volume.toFixed(0),
      p.pnlPctOfVolume === null ? '–' : `${p.pnlPctOfVolume.toFixed(2)} %`,
      p.pnlPctOfVolumeCi === null ? '–' : `[${p.pnlPctOfVolumeCi.lo.toFixed(2)}, ${p.pnlPctOfVolumeCi.hi.toFixed(2)}] %`,
      String(p.fills),
      f2(p.worstWindow),
      p.markout10s === null ? '–' : p.markout10s.toFixed(2),
      `${f2(a.spreadCapture)} / ${f2(a.inventory)} / ${f2(a.fees)}`,
    ];
  };
  const rows = [head, row('first (chosen on)', wf.chosen), row('second (held out)', wf.heldOut)];
  const c = wf.compared;
  if (c?.chosen) rows.push(row(`first, by ${c.by}`, c.chosen), row(`second, by ${c.by}`, c.heldOut));
  const w = head.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  lines.push(...rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(w[c]!) : x.padStart(w[c]!))).join('  ')));
  if (!wf.heldOut) lines.push('second part: not run (interrupted before it)');
  if (c)
    lines.push(
      c.chosen
        ? `by ${c.by} (for comparison) the choice would be${
            c.chosen.index === wf.chosen.index
              ? ' the same'
              : `: ${Object.entries(c.chosen.combo)
                  .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
                  .join(', ')}`
          }`
        : `by ${c.by} (for comparison): none reached the floor`,
    );
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
        criterion: { rankBy: spec.rankBy, minVolume: spec.minVolume, windows: spec.windows, blockSeconds: spec.blockSeconds, text: criterionText(spec) },
        grid: spec.grid,
        fast: spec.fast,
        combinations: wf.total,
        complete: wf.ranked.length === wf.total && (wf.chosen === null || wf.heldOut !== null),
        chosen: wf.chosen ? { combo: wf.chosen.combo, first: part(wf.chosen), second: part(wf.heldOut) } : null,
        ...(wf.compared
          ? {
              compared: {
                rankBy: wf.compared.by,
                chosen: wf.compared.chosen ? { combo: wf.compared.chosen.combo, first: part(wf.compared.chosen), second: part(wf.compared.heldOut) } : null,
              },
            }
          : {}),
        ranked: wf.ranked.map((r) => ({ combo: r.combo, figures: partFigures(r), ...(r.error ? { error: r.error } : {}) })),
      },
      null,
      2,
    ) + '\n'
  );
}
