/**
 * A `book.cols` file read from disk is checked row by row before a replay: a damaged file (bytes
 * overwritten, not only cut short, which readColumns already refuses) can hold times of ±1e308 or NaN,
 * and a replay would then step its virtual clock through them for ever. Every row must have finite
 * times within the epoch's plausible range, a known kind, side and market, and a finite, non-negative
 * price and size. One pass over the columns (about a millisecond for the Polymarket capture's rows).
 */
import { BadInputError } from '../../model/errors.ts';
import { KIND_TAKER, type Columns } from './columns.ts';

/** Times in ms: from 0 (a synthetic recording starts its virtual clock there) to before the year 5000. */
const MAX_TIME_MS = 1e14;

/** The first damaged row of `c` and what is wrong with it, or null. */
export function damagedRow(c: Columns): { row: number; what: string } | null {
  const markets = c.markets.length;
  for (let i = 0; i < c.rows; i++) {
    const lts = c.lts[i]!;
    const vts = c.vts[i]!;
    if (!(lts >= 0 && lts < MAX_TIME_MS)) return { row: i, what: `local time ${lts}` };
    if (!(vts >= 0 && vts < MAX_TIME_MS)) return { row: i, what: `venue time ${vts}` };
    if (c.kind[i]! > KIND_TAKER) return { row: i, what: `kind ${c.kind[i]}` };
    if (c.side[i]! > 1) return { row: i, what: `side ${c.side[i]}` };
    if (c.market[i]! >= markets) return { row: i, what: `market index ${c.market[i]} of ${markets}` };
    const p = c.price[i]!;
    const s = c.size[i]!;
    if (!(p >= 0 && p < Infinity)) return { row: i, what: `price ${p}` };
    if (!(s >= 0 && s < Infinity)) return { row: i, what: `size ${s}` };
  }
  return null;
}

/** Throw a clear error naming the file, the row and the fix when `c` has a damaged row. */
export function checkColumns(c: Columns, path: string): void {
  const bad = damagedRow(c);
  if (bad === null) return;
  throw new BadInputError(
    path,
    'columns whose every row is a recorded event (the file is damaged: delete it and the backtest reads the events files instead)',
    `row ${bad.row}: ${bad.what}`,
  );
}
