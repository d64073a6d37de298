/**
 * A `book.cols` file read from disk is checked row by row before a replay: a damaged file (bytes
 * overwritten, not only cut short, which readColumns already refuses) can hold times of ±1e308 or NaN,
 * and a replay would then step its virtual clock through them for ever. Every row must have finite
 * times within the epoch's plausible range, a known kind, side and market, and a finite, non-negative
 * price and size.
 *
 * The same pass learns what the load and the run would otherwise each learn in a pass of their own
 * over every row (`ColumnStats`): whether the rows are in time order (windowRows), which markets have
 * the venue's drop copy (the sim exchange's `exact` markets) and how many rows each market has of each
 * kind (the run's quoted-rows counts). One pass over the columns (about a millisecond for the
 * Polymarket capture's rows) instead of four.
 */
import { BadInputError } from '../../model/errors.ts';
import { KIND_TAKER, KIND_XLEVEL, type Columns } from './columns.ts';

/** Times in ms: from 0 (a synthetic recording starts its virtual clock there) to before the year 5000. */
const MAX_TIME_MS = 1e14;

/** Kinds per market in `ColumnStats.counts` (KIND_LEVEL … KIND_TAKER, and one spare). */
export const STAT_KINDS = 8;

/** What one pass over intact columns learns besides their soundness. */
export interface ColumnStats {
  /** the columns' row count when the pass ran (the stats describe these rows) */
  readonly rows: number;
  /** every row's local time is at or after the one before it, none NaN: the rows are in time order */
  readonly ordered: boolean;
  /** rows per market and kind: `counts[market * STAT_KINDS + kind]` */
  readonly counts: Uint32Array;
}

/** What is wrong with row i of `c`, or null when it is a recorded event. */
function rowDamage(c: Columns, i: number): string | null {
  const lts = c.lts[i]!;
  const vts = c.vts[i]!;
  if (!(lts >= 0 && lts < MAX_TIME_MS)) return `local time ${lts}`;
  if (!(vts >= 0 && vts < MAX_TIME_MS)) return `venue time ${vts}`;
  if (c.kind[i]! > KIND_TAKER) return `kind ${c.kind[i]}`;
  if (c.side[i]! > 1) return `side ${c.side[i]}`;
  if (c.market[i]! >= c.markets.length) return `market index ${c.market[i]} of ${c.markets.length}`;
  const p = c.price[i]!;
  const s = c.size[i]!;
  if (!(p >= 0 && p < Infinity)) return `price ${p}`;
  if (!(s >= 0 && s < Infinity)) return `size ${s}`;
  return null;
}

/**
 * One pass over every row of `c`: the first damaged row and what is wrong with it (then no stats: the
 * pass stopped there), or the columns' stats.
 */
export function scanColumns(c: Columns): { damaged: { row: number; what: string } | null; stats: ColumnStats | null } {
  const { lts, vts, price, size, market, kind, side } = c;
  const n = c.rows;
  const markets = c.markets.length;
  const counts = new Uint32Array(markets * STAT_KINDS);
  let ordered = true;
  let prev = -Infinity;
  // The loop reads its bounds from locals and leaves the damaged row to rowDamage after it: with the
  // module's constants read in the loop and rowDamage called from it, the pass took 2.6-3.5 ms on the
  // capture's rows; with either change alone 2.5-3.5 ms; with both 1.45-1.85 ms (docs/performance/backtest.md).
  const maxKind = KIND_TAKER;
  const maxTime = MAX_TIME_MS;
  const stride = STAT_KINDS;
  let i = 0;
  for (; i < n; i++) {
    const a = lts[i]!;
    const b = vts[i]!;
    const p = price[i]!;
    const s = size[i]!;
    const k = kind[i]!;
    const m = market[i]!;
    // one test for the usual row (rowDamage's tests, all of them): the first row that fails it ends the pass
    if (!(a >= 0 && a < maxTime && b >= 0 && b < maxTime && p >= 0 && p < Infinity && s >= 0 && s < Infinity) || k > maxKind || side[i]! > 1 || m >= markets)
      break;
    if (a < prev) ordered = false;
    prev = a;
    counts[m * stride + k]!++;
  }
  // (rowDamage makes the same tests: it names the one this row failed)
  if (i < n) return { damaged: { row: i, what: rowDamage(c, i)! }, stats: null };
  return { damaged: null, stats: { rows: n, ordered, counts } };
}

/** The first damaged row of `c` and what is wrong with it, or null. */
export function damagedRow(c: Columns): { row: number; what: string } | null {
  return scanColumns(c).damaged;
}

/** Per market: 1 when it has a drop-copy row (XLEVEL, XCLEAR or TAKER), from the stats' counts. */
export function dropCopyOf(stats: ColumnStats, markets: number): Uint8Array {
  const out = new Uint8Array(markets);
  for (let m = 0; m < markets; m++) {
    for (let k = KIND_XLEVEL; k <= KIND_TAKER; k++) if (stats.counts[m * STAT_KINDS + k]! > 0) out[m] = 1;
  }
  return out;
}

/**
 * Throw a clear error naming the file, the row and the fix when `c` has a damaged row; else the
 * columns' stats (the same pass).
 */
export function checkColumns(c: Columns, path: string): ColumnStats {
  const { damaged, stats } = scanColumns(c);
  if (damaged === null) return stats!;
  throw new BadInputError(
    path,
    'columns whose every row is a recorded event (the file is damaged: delete it and the backtest reads the events files instead)',
    `row ${damaged.row}: ${damaged.what}`,
  );
}
