/**
 * The end-of-run report's rows of released markets, bounded (the rotation phase,
 * src/runtime/phases/rotation.ts, keeps them as market rotation releases markets), and the report's
 * rotation section.
 *
 *   const rows = new RetiredRows(runFigures, account, stillHeld)
 *   rows.released(id, row)      // a market released: its row carries its fills since its last reading
 *   rows.restarted(id)          // started again: its fills since the release go to its released row
 *   rows.since(id)              // its fills since its last reading (its active row, or the newest released row)
 *   rows.rows / rows.earlier    // the newest RETIRED_ROWS_MAX rows, and the older ones folded into one
 *
 * Each fill of the run counts in one row: a market's stretches (quoted, released, quoted again) each
 * read the books from where the last one ended (RunFigures.after), whether or not the earlier rows were
 * folded away. See docs/books-and-pnl.md.
 */
import type { Account } from '../account/account.ts';
import { tradesPlus, type RunFigures, type RunMarketTrades } from '../account/run-figures.ts';
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
    // what those markets still hold is valued now in the report's '(markets not listed)' row, not as
    // of their releases (the rows add up to the account's unrealised PnL)
    unrealised: 0n,
    net: 0,
    retired: 'various',
  };
}

/**
 * A released market's kept row: one of two object literals (with or without its attribution), so the rows
 * share two hidden classes. Built as `{ ...row, ledger }`, each row had a V8 map of its own (a spread then
 * a new key makes a map V8 does not share), with its descriptors and the chain of maps behind it: ~0.25 KB
 * more a row, ~50 KB over RETIRED_ROWS_MAX rows (docs/performance/soak-diff.md).
 */
export function retiredRow(r: Omit<RetiredRow, 'ledger'>, ledger: RunMarketTrades): RetiredRow {
  return r.attribution !== undefined
    ? { time: r.time, unrealised: r.unrealised, net: r.net, retired: r.retired, attribution: r.attribution, ledger }
    : { time: r.time, unrealised: r.unrealised, net: r.net, retired: r.retired, ledger };
}

/** Readings kept beyond this many are dropped once their book is gone (a reading of a gone book reads as none). */
const READINGS_SLACK = 4 * RETIRED_ROWS_MAX;

/** The released markets' report rows, bounded, each fill of the run in one row. */
export class RetiredRows {
  /** the newest `max` rows, oldest first */
  readonly rows: RetiredRow[] = [];
  /** the older rows, folded into one */
  readonly earlier: EarlierRetired = { count: 0, row: null };
  /**
   * Where each released market's rows end: what RunFigures.market said at its release, or at its
   * start again. Kept apart from the rows, so a row folded away still ends its market's stretch.
   * Bounded: past `limit`, readings of books the account no longer keeps go (see read).
   */
  private readonly readAt = new Map<Bytes32, RunMarketTrades>();
  /** readings kept before the next look for gone ones (doubles when most are still alive) */
  private limit: number;

  constructor(
    private readonly run: RunFigures,
    /** the account's books: a market's newest row shows its unrealised PnL and position now */
    private readonly books: Pick<Account, 'marketPnl' | 'holdingsOf'>,
    /** the market still holds a position (its row is folded last) */
    private readonly stillHeld: (marketId: Bytes32) => boolean,
    private readonly max = RETIRED_ROWS_MAX,
  ) {
    this.limit = max + READINGS_SLACK;
  }

  /** A market's fills since its last reading (all of the run's when it was never released). */
  since(marketId: Bytes32): RunMarketTrades {
    return this.run.after(marketId, this.readAt.get(marketId));
  }

  /** A market was released: its row carries its fills since its last reading; the bound folds the oldest. */
  released(marketId: Bytes32, row: Omit<RetiredRow, 'ledger'>): void {
    this.rows.push(retiredRow(row, this.since(marketId)));
    this.read(marketId);
    keepRetiredRows(this.rows, this.earlier, this.max, this.stillHeld);
  }

  /**
   * A released market starts again: the fills between its release and now (an order that ended
   * after the release, another trader on the wallet) go to its newest released row, or to the folded
   * row when that was folded away; its new row reads on from here.
   */
  restarted(marketId: Bytes32): void {
    if (!this.readAt.has(marketId)) return;
    const gap = this.since(marketId);
    this.read(marketId);
    if (gap.fills === 0 && gap.volume === 0n && gap.fees === 0n && gap.realised === 0n) return;
    const i = this.rows.findLastIndex((r) => r.time.marketId === marketId);
    if (i >= 0) this.rows[i] = retiredRow(this.rows[i]!, tradesPlus(this.rows[i]!.ledger, gap));
    else if (this.earlier.row) this.earlier.row = { ...this.earlier.row, ledger: tradesPlus(this.earlier.row.ledger, gap) };
  }

  /**
   * The report's rows of released markets, as of now: the folded row, then the newest rows. A market
   * not quoted now adds its fills since its last reading to its newest row (an order that ended after
   * the release, another trader on the wallet, the stop's sweep), or to the folded row when all its
   * rows were folded away; that newest row shows the market's position and unrealised PnL now, as the
   * books hold them (a fill after the release moved them, whether or not the market is still in the
   * store). A market quoted again reads them in its active row (`since`), from where its start ended
   * the released one. Only a market's newest row shows its unrealised PnL, so the rows add up to the
   * account's.
   */
  reportRows(isActive: (marketId: Bytes32) => boolean): RetiredRow[] {
    const newest = new Map<Bytes32, RetiredRow>();
    for (const r of this.rows) newest.set(r.time.marketId, r);
    let folded = this.earlier.row;
    if (folded)
      for (const id of this.readAt.keys())
        if (!newest.has(id) && !isActive(id)) {
          const later = this.since(id);
          if (later.fills !== 0 || later.realised !== 0n) folded = { ...folded, ledger: tradesPlus(folded.ledger, later) };
        }
    const listed = this.rows.map((r) => {
      // a market started again since has its own row, and so has a later release: the position's
      // PnL now is in that row (this one keeps its fills)
      if (isActive(r.time.marketId) || newest.get(r.time.marketId) !== r) return r.unrealised === 0n ? r : { ...r, unrealised: 0n };
      const id = r.time.marketId;
      return { ...r, ledger: tradesPlus(r.ledger, this.since(id)), unrealised: this.books.marketPnl(id).unrealised, net: this.books.holdingsOf(id).net };
    });
    return folded ? [folded, ...listed] : listed;
  }

  private read(marketId: Bytes32): void {
    // (a market with no book yet too: a fill before its start again goes to its released row)
    this.readAt.set(marketId, this.run.market(marketId));
    if (this.readAt.size <= this.limit) return;
    // a reading of a book the account no longer keeps (dropped, begun again, or none then and now)
    // reads the same as none: let it go, unless the market still has a row (it says where its later
    // fills go); a book still kept keeps its reading (bounded by the account's own books)
    const listed = new Set(this.rows.map((r) => r.time.marketId));
    for (const [id, r] of this.readAt) if (!listed.has(id) && this.run.market(id).book !== (r.book === 0 ? -1 : r.book)) this.readAt.delete(id);
    this.limit = Math.max(this.max + READINGS_SLACK, 2 * this.readAt.size);
  }
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
