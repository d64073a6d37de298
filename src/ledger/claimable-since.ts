/**
 * The claims tracker's store (src/runtime/claims/claims-tracker.ts) in the ledger: one
 * row per market the venue lists claimable (table `claimable_since`), with when the bot first saw it
 * claimable and its payout per YES share. Written when a market is first seen claimable and deleted
 * when it is claimed (or no longer listed), so the table holds what the venue's claimable list holds,
 * no more. A restart reads the times back: a market is overdue 24 h after it was first seen claimable,
 * whatever restarts came between (docs/running-for-weeks.md, "Overdue claims").
 *
 *   const store = claimableSinceStore(ledger, log);
 *   store.put(id, { since, payoutYes }); store.get(id); store.all(); store.delete(id);
 *
 * Written through the ledger's batched writer like every other record (Ledger.claimableSince,
 * claimableGone): a write that fails is the ledger's failure, retried with its queue, counted, logged as
 * the queue's are, and seen by Ledger.problem, so /readyz and the hold of a ledger that cannot be written
 * (ledger-watch.ts, docs/ledger-operations.md) see a full disk here as they see it for a fill. A read
 * first writes what is queued (a put is read back at once); a failed read answers nothing (the markets
 * then look newly claimable: their clock restarts). Never throws. A read-only ledger, or one without the
 * table, keeps nothing.
 */
import type { Logger } from '../core/logger.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Ledger } from './ledger.ts';

/** What the store keeps of a claimable market. */
export interface ClaimableRecord {
  /** when the bot first saw it claimable (epoch ms) */
  readonly since: number;
  /** what one YES share pays, 1e-6 USDC; null when not known */
  readonly payoutYes: bigint | null;
}

/** One row per market the venue lists claimable (the claims tracker's store); never throws (a failed read answers nothing). */
export interface ClaimableStore {
  all(): Map<string, ClaimableRecord>;
  get(marketId: string): ClaimableRecord | null;
  put(marketId: string, r: ClaimableRecord): void;
  delete(marketId: string): void;
}

interface Row {
  market_id: string;
  since: number;
  payout_yes: number | null;
}

const record = (r: Row): ClaimableRecord | null =>
  Number.isSafeInteger(r.since) && (r.payout_yes === null || (Number.isSafeInteger(r.payout_yes) && r.payout_yes >= 0 && r.payout_yes <= 1_000_000))
    ? { since: r.since, payoutYes: r.payout_yes === null ? null : BigInt(r.payout_yes) }
    : null;

export function claimableSinceStore(ledger: Ledger, log: Logger): ClaimableStore {
  const usable = (): boolean =>
    ledger.db.open && ledger.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'claimable_since'").get() !== undefined;
  let has: boolean | null = null;
  const ok = (): boolean => (has ??= usable()) && ledger.db.open;
  const wrote = (f: () => void): void => {
    if (!ok() || ledger.db.readonly) return;
    f();
  };
  const read = <T>(f: () => T, none: T): T => {
    if (!ok()) return none;
    try {
      // what is queued first, so a put is read back (a failure is the ledger's: kept queued, counted)
      if (!ledger.db.readonly) ledger.flush();
      return f();
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'ledger: claimable markets could not be read (claimable_since): their overdue clock restarts');
      return none;
    }
  };
  return {
    all: () =>
      read(() => {
        const out = new Map<string, ClaimableRecord>();
        for (const r of ledger.db.prepare('SELECT market_id, since, payout_yes FROM claimable_since').iterate() as IterableIterator<Row>) {
          const id = bytes32Of(r.market_id);
          const rec = record(r);
          if (id !== null && rec !== null) out.set(id, rec);
        }
        return out;
      }, new Map<string, ClaimableRecord>()),
    get: (id) =>
      read(() => {
        const r = ledger.db.prepare('SELECT market_id, since, payout_yes FROM claimable_since WHERE market_id = ?').get(id) as Row | undefined;
        return r === undefined ? null : record(r);
      }, null),
    put: (id, r) => wrote(() => ledger.claimableSince(id, r.since, r.payoutYes)),
    delete: (id) => wrote(() => ledger.claimableGone(id)),
  };
}
