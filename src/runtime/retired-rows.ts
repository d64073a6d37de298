/**
 * The end-of-run report's rows of released markets, bounded (the rotation phase,
 * src/runtime/phases/rotation.ts, keeps them as market rotation releases markets), and the report's
 * rotation section.
 */
import { tradesPlus } from '../account/run-figures.ts';
import type { Bytes32 } from '../model/order.ts';
import type { buildRunReport } from './run-report.ts';
import type { MarketRotation, RotationEvent, RotationSummary } from './rotation/market-rotation.ts';

/**
 * Rows of the end-of-run report kept for released markets (the newest this many; older ones fold into
 * one). A row is ~600 bytes of heap (its time states, ledger figures, attribution bigints, label), so
 * 200 rows are ~120 KB; 1,000 were ~600 KB, filled over the first ~8 hours of a market every 30 s.
 */
export const RETIRED_ROWS_MAX = 200;
export type RetiredRow = Parameters<typeof buildRunReport>[0]['markets'][number];

/** Retired markets' report rows past the bound, folded into one. */
export interface EarlierRetired {
  count: number;
  row: RetiredRow | null;
}

/**
 * Bound the retired rows to `max`: the oldest rows whose market left the store fold into `acc`
 * (rows of markets still holding a position are folded last, when nothing else is left to fold).
 */
export function keepRetiredRows(rows: RetiredRow[], acc: EarlierRetired, max: number, stillHeld: (marketId: Bytes32) => boolean): void {
  while (rows.length > max) {
    let i = rows.findIndex((r) => !stillHeld(r.time.marketId));
    if (i < 0) i = 0;
    foldRetired(acc, rows.splice(i, 1)[0]!);
  }
}

export function foldRetired(acc: EarlierRetired, r: RetiredRow): void {
  acc.count++;
  const p = acc.row;
  const states: Record<string, number> = { ...(p?.time.states ?? {}) };
  for (const [k, v] of Object.entries(r.time.states)) states[k] = (states[k] ?? 0) + (v ?? 0);
  acc.row = {
    time: {
      marketId: r.time.marketId,
      label: `(${acc.count} earlier retired markets)`,
      observedMs: (p?.time.observedMs ?? 0) + r.time.observedMs,
      liveMs: (p?.time.liveMs ?? 0) + r.time.liveMs,
      states,
    },
    ledger: p ? tradesPlus(p.ledger, r.ledger) : r.ledger,
    realised: (p?.realised ?? 0n) + r.realised,
    unrealised: (p?.unrealised ?? 0n) + r.unrealised,
    net: 0,
    retired: 'various',
  };
}

/** The run report's rotation section: totals, and the retirements still in progress. */
export function rotationReport(rot: MarketRotation): {
  summary: RotationSummary;
  totals: ReturnType<MarketRotation['totals']>;
  retiring: ReturnType<MarketRotation['retiringDetails']>;
  recent: readonly RotationEvent[];
} {
  return { summary: rot.summary(), totals: rot.totals(), retiring: rot.retiringDetails(), recent: rot.recent().slice(-50) };
}
