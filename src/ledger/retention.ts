/**
 * Retention: orders, cancels and marks older than `ledger.retainDays` are pruned; fills,
 * fill baselines, risk events, operator actions, start-ups and the risk state never are.
 *
 *   pruneBatch(db, cutoff, batch)     // one bounded batch per table (the bot's timer, a few ms)
 *   pruneAll(db, cutoff)              // every batch until nothing is older (bookmaker ledger prune)
 *   schedulePrune({ ledger, clock, retainDays, logger })   // the bot: a batch every 10 s while
 *                                     // there is something to prune, else every 10 minutes
 *
 * What a prune keeps besides the young rows: orders that never ended (still open at the venue, or
 * their end not yet seen: the catch-up needs them), and the last mark of the account and of each
 * market (the summary's unrealised PnL, the day's opening PnL after downtime).
 *
 * Space: a ledger created by this version uses `auto_vacuum = INCREMENTAL`, and each batch hands
 * the pages it freed back to the file system (`PRAGMA incremental_vacuum`). A ledger created before
 * has auto_vacuum off: its freed pages are reused by new records (the file stops growing) but not
 * returned until `bookmaker ledger prune` runs one VACUUM, which also switches it to incremental.
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';

export const DAY_MS = 86_400_000;

export interface PruneCounts {
  orders: number;
  cancels: number;
  marks: number;
}

const SQL = {
  orders: `DELETE FROM orders WHERE rowid IN (SELECT rowid FROM orders WHERE submitted_at < ? AND (ended_at IS NOT NULL OR status = 'rejected') LIMIT ?)`,
  cancels: `DELETE FROM cancels WHERE id IN (SELECT id FROM cancels WHERE ts < ? LIMIT ?)`,
  // the last mark of the account (market_id NULL) and of each market stays
  marks: `DELETE FROM marks WHERE id IN (SELECT m.id FROM marks m WHERE m.ts < ? AND EXISTS (SELECT 1 FROM marks n WHERE n.market_id IS m.market_id AND n.id > m.id) LIMIT ?)`,
} as const;

/** One batch: at most `batch` rows of each table, in one transaction; then the freed pages go back (incremental vacuum). */
export function pruneBatch(db: Database.Database, cutoff: number, batch = 1_000): PruneCounts {
  const out = db.transaction(() => ({
    orders: db.prepare(SQL.orders).run(cutoff, batch).changes,
    cancels: db.prepare(SQL.cancels).run(cutoff, batch).changes,
    marks: db.prepare(SQL.marks).run(cutoff, batch).changes,
  }))();
  if (out.orders + out.cancels + out.marks > 0 && autoVacuum(db) === 'incremental') db.pragma('incremental_vacuum');
  return out;
}

/** Prune everything older than `cutoff` (batches of 10 000). */
export function pruneAll(db: Database.Database, cutoff: number): PruneCounts {
  const total: PruneCounts = { orders: 0, cancels: 0, marks: 0 };
  for (;;) {
    const b = pruneBatch(db, cutoff, 10_000);
    total.orders += b.orders;
    total.cancels += b.cancels;
    total.marks += b.marks;
    if (b.orders + b.cancels + b.marks === 0) return total;
  }
}

export function autoVacuum(db: Database.Database): 'none' | 'full' | 'incremental' {
  const v = db.pragma('auto_vacuum', { simple: true }) as number;
  return v === 2 ? 'incremental' : v === 1 ? 'full' : 'none';
}

export function cutoffOf(now: number, retainDays: number): number {
  return now - Math.round(retainDays * DAY_MS);
}

/** What the prune timer needs of the ledger (Ledger.prune). */
export interface Prunable {
  prune(cutoff: number, batch: number): PruneCounts;
}

export interface SchedulePruneOptions {
  readonly ledger: Prunable;
  readonly clock: Clock;
  /** 0: keep everything (no prune) */
  readonly retainDays: number;
  readonly logger?: Logger;
  /** rows per table per batch (default 1 000: a few ms) */
  readonly batch?: number;
  /** between batches while there is more, ms (default 10 000) */
  readonly busyMs?: number;
  /** between checks once caught up, ms (default 600 000) */
  readonly idleMs?: number;
}

/** The bot's prune: small batches off the hot path (a clock timer). Failures are logged; the ledger watch sees failing writes. */
export function schedulePrune(o: SchedulePruneOptions): () => void {
  if (o.retainDays <= 0) return () => undefined;
  const log = (o.logger ?? silentLogger).child({ component: 'ledger' });
  const busyMs = o.busyMs ?? 10_000;
  const idleMs = o.idleMs ?? 600_000;
  let cancel: () => void = () => undefined;
  let stopped = false;
  const total: PruneCounts = { orders: 0, cancels: 0, marks: 0 };
  const loop = (): void => {
    if (stopped) return;
    let more = false;
    try {
      const b = o.ledger.prune(cutoffOf(o.clock.now(), o.retainDays), o.batch ?? 1_000);
      more = b.orders + b.cancels + b.marks > 0;
      total.orders += b.orders;
      total.cancels += b.cancels;
      total.marks += b.marks;
      if (!more && total.orders + total.cancels + total.marks > 0) {
        log.info(
          { ...total, retainDays: o.retainDays },
          'ledger pruned: records older than ledger.retainDays removed (fills, risk records and operator actions are kept)',
        );
        total.orders = total.cancels = total.marks = 0;
      }
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'ledger prune failed; retried later');
    }
    cancel = o.clock.setTimeout(loop, more ? busyMs : idleMs);
  };
  cancel = o.clock.setTimeout(loop, busyMs);
  return () => {
    stopped = true;
    cancel();
  };
}
