/**
 * The `--since` / `--market` filter of the ledger's reports as SQL conditions: `since` on a time column
 * (ms), `market` on a market id column, each with its bound argument, in that order.
 */
import type { Bytes32 } from '../model/order.ts';

export interface SqlFilter {
  readonly since?: number;
  readonly market?: Bytes32;
}

/** The filter's conditions (joined by the caller) and their arguments, in order. */
export function filterConditions(f: SqlFilter, tsCol = 'ts', marketCol = 'market_id'): { parts: string[]; args: unknown[] } {
  const parts: string[] = [];
  const args: unknown[] = [];
  if (f.since !== undefined) {
    parts.push(`${tsCol} >= ?`);
    args.push(f.since);
  }
  if (f.market !== undefined) {
    parts.push(`${marketCol} = ?`);
    args.push(f.market);
  }
  return { parts, args };
}

/** The filter's conditions appended to a query that already has its WHERE: ` AND c1 AND c2`. */
export function andFilter(f: SqlFilter, tsCol = 'ts', marketCol = 'market_id'): { sql: string; args: unknown[] } {
  const { parts, args } = filterConditions(f, tsCol, marketCol);
  return { sql: parts.map((p) => ` AND ${p}`).join(''), args };
}
