/**
 * What a backtest replays: a recording's market-data rows as binary columns (book.cols when the
 * recording has it, else built from the JSONL files), the row order by local time, the window
 * [from, to), and the events columns do not carry (oracle updates, market metadata), read from the
 * JSONL files only when the recording has any (the recorder counts them in the manifest's stats).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BadInputError } from '../model/errors.ts';
import { checkColumns, scanColumns, type ColumnStats } from './recording/check-columns.ts';
import { readColumns, toColumns, type Columns } from './recording/columns.ts';
import type { RecordedEvent, RecordingManifest } from './recording/format.ts';
import { readEvents, readManifest, type ReadStats } from './recording/reader.ts';
import type { VirtualClock } from './virtual-clock.ts';

export type SideEvent = Extract<RecordedEvent, { t: 'oracle' | 'market' }>;

export interface ReplaySource {
  readonly dir: string;
  readonly manifest: RecordingManifest;
  readonly cols: Columns;
  /** row indices to replay, in local-time order, inside the window */
  readonly rows: Uint32Array;
  /** oracle and market events inside the window, in local-time order */
  readonly side: readonly SideEvent[];
  /** oracle and market events before the window, in local-time order (what a backtest's rank entries may read) */
  readonly sideBefore?: readonly SideEvent[];
  /** price tick per column market */
  readonly ticks: readonly number[];
  /**
   * What the load's one pass over the columns learned (time order, rows per market and kind), so the
   * run need not pass over every row again to learn it; absent for a source generated as it runs
   */
  readonly stats?: ColumnStats;
  /** what reading the JSONL files dropped (lines that did not parse or validate, unreadable files); absent when they were not read */
  readonly read?: ReadStats;
  readonly from: number;
  readonly to: number;
  /**
   * A source generated as the run goes (closed-loop synthetic markets, src/backtest/synthetic-source.ts):
   * its rows and side events grow while the backtest runs on `live.clock`, until `live.end`.
   */
  readonly live?: LiveFlow;
}

/** The generator of a closed-loop source, driven by the backtest. */
export interface LiveFlow {
  /** the one virtual clock of the run: the generator's timers run on it, and so does the backtest */
  readonly clock: VirtualClock;
  /** virtual time the generation ends (ms) */
  readonly end: number;
  /** row indices generated so far, in time order (a new array when the columns grew) */
  rows(): Uint32Array;
  /**
   * Start the counterparties; from now on they see the bot's best resting bid and ask in YES terms
   * (`ownTop`, -1 for a side without one; null for a market the bot's exchange does not have)
   */
  start(ownTop: (marketId: string) => { bid: number; ask: number } | null): void;
  /** stop generating (the counterparties, the tap, the exchange's timers) */
  stop(): Promise<void>;
  /**
   * The hidden fair YES probability of a market after the agents' last step (undefined before the
   * first): for diagnostics only (scripts/edge-attribution.ts); the bot never reads it.
   */
  hiddenFair?(marketId: string): number | undefined;
}

export interface SourceOptions {
  /** window start / end, ms since the epoch (inclusive / exclusive) */
  readonly from?: number;
  readonly to?: number;
}

/**
 * Rows whose lts is in [from, to), stably sorted by lts (recorded files can step back a little).
 * In the usual case (the rows already in time order) the window is one run of consecutive rows,
 * found by binary search and written in one pass; only a file that steps back is counted, filtered
 * and sorted.
 */
export function windowRows(lts: Float64Array, rows: number, from: number, to: number, ordered = false): Uint32Array {
  // (`ordered`: the caller knows the rows are in time order, none NaN: ColumnStats.ordered)
  let sorted = ordered || rows === 0 || lts[0] === lts[0];
  for (let i = 1; i < rows && !ordered; i++) {
    // written so that a NaN time also takes the filtering path (it is in no window)
    if (!(lts[i]! >= lts[i - 1]!)) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    const first = firstAtOrAfter(lts, rows, from);
    const end = Math.max(first, firstAtOrAfter(lts, rows, to));
    const out = new Uint32Array(end - first);
    for (let k = 0; k < out.length; k++) out[k] = first + k;
    return out;
  }
  let n = 0;
  for (let i = 0; i < rows; i++) {
    const t = lts[i]!;
    if (t >= from && t < to) n++;
  }
  const out = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const t = lts[i]!;
    if (t >= from && t < to) out[k++] = i;
  }
  const idx = Array.from(out);
  idx.sort((a, b) => lts[a]! - lts[b]! || a - b);
  out.set(idx);
  return out;
}

/** The first of the (time-ordered) rows whose lts is at or after t; `rows` when none is. */
function firstAtOrAfter(lts: Float64Array, rows: number, t: number): number {
  let lo = 0;
  let hi = rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function loadReplaySource(dir: string, opts: SourceOptions = {}): ReplaySource {
  const manifest = readManifest(dir);
  const from = opts.from ?? -Infinity;
  const to = opts.to ?? Infinity;
  if (from >= to) throw new BadInputError('--from', `a time before --to`, from);
  const ids = manifest.markets.map((m) => m.id);
  const hasCols = existsSync(join(dir, 'book.cols'));
  const sideCount = (manifest.stats?.oracleEvents ?? 0) + (manifest.stats?.marketEvents ?? 0);
  const side: SideEvent[] = [];
  const sideBefore: SideEvent[] = [];
  let cols: Columns;
  let read: ReadStats | undefined;
  if (hasCols && sideCount === 0) cols = readColumns(dir);
  else {
    // one pass over the JSONL: columns (unless present) and the side events
    const events: RecordedEvent[] = [];
    read = { files: 0, lines: 0, events: 0, dropped: 0, dropReasons: [], truncatedFiles: 0 };
    for (const e of readEvents(dir, read)) {
      if (e.t === 'oracle' || e.t === 'market') {
        if (e.lts >= from && e.lts < to) side.push(e);
        else if (e.lts < from) sideBefore.push(e);
      } else if (!hasCols) events.push(e);
    }
    cols = hasCols ? readColumns(dir) : toColumns(events, ids);
    side.sort((a, b) => a.lts - b.lts);
    sideBefore.sort((a, b) => a.lts - b.lts);
  }
  // a damaged book.cols would replay times of ±1e308 for ever: refused with the row and the fix; the
  // same pass gives the stats (columns built from the events files: the stats only, when intact)
  const stats = hasCols ? checkColumns(cols, join(dir, 'book.cols')) : scanColumns(cols).stats;
  const tickOf = new Map(manifest.markets.map((m) => [m.id, m.tick]));
  const ticks = cols.markets.map((m) => tickOf.get(m) ?? 10_000);
  const rows = windowRows(cols.lts, cols.rows, from, to, stats?.ordered === true);
  return { dir, manifest, cols, rows, side, sideBefore, ticks, from, to, ...(read ? { read } : {}), ...(stats ? { stats } : {}) };
}

/**
 * What a backtest or calibration says about the lines and files its recording's reading dropped (a
 * corrupt or cut file, lines that are not events): null when nothing was dropped.
 */
export function readWarning(r: ReadStats | undefined): string | null {
  if (r === undefined || (r.dropped === 0 && r.truncatedFiles === 0)) return null;
  const parts = [
    r.dropped > 0 ? `${r.dropped.toLocaleString('en-US')} line(s) or file(s) dropped` : '',
    r.truncatedFiles > 0 ? `${r.truncatedFiles} file(s) cut short (read up to the cut)` : '',
  ].filter(Boolean);
  const reasons = r.dropReasons.map((x) => `  - ${x}\n`).join('');
  return `warning: the recording could not be read whole: ${parts.join(', ')}; ${r.events.toLocaleString('en-US')} events read\n${reasons}`;
}

/** A time flag: an ISO date-time, or ms since the epoch, or seconds relative to the recording start (+90, +10m). */
export function parseTimeFlag(text: string, field: string, recordingStart: number): number {
  const rel = /^\+(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (rel) {
    const v = Number(rel[1]);
    const unit = rel[2] ?? 's';
    const ms = unit === 'ms' ? v : unit === 's' ? v * 1000 : unit === 'm' ? v * 60_000 : v * 3_600_000;
    return recordingStart + ms;
  }
  if (/^\d{12,}$/.test(text.trim())) return Number(text.trim());
  const t = Date.parse(text);
  if (!Number.isFinite(t)) throw new BadInputError(field, 'an ISO time (2026-06-07T01:35:00Z), epoch ms, or +OFFSET from the recording start (+5m)', text);
  return t;
}
