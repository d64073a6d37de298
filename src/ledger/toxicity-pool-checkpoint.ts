/**
 * The account's pooled toxicity (the store's `toxicityPool`, src/state/edge-state.ts ToxicitySums:
 * the guard's evidence across markets) kept in the ledger beside the books checkpoint, so a restarted
 * bot starts from the evidence it stopped with instead of an empty pool (docs/edge.md, "The guard").
 *
 *   saveToxicityPool(ledger, pool, now, log)   // with every ledger mark and at stop (BotLedger.startMarks)
 *   loadToxicityPool(ledger, log)              // the store's first state (BotLedger.initialState)
 *
 * One row (table `toxicity_pool`), replaced in one statement: a kill during the write leaves the
 * previous row. The sums are decayed to their own time `ts` (exchange time); the pool's half-life
 * goes on decaying them from there, downtime included, so evidence from hours ago counts little. Like
 * the books checkpoint it is a cache, not a record: a row that is missing, unreadable or not a pool
 * (a field missing, not finite, a weight below zero) is ignored with a warning and the pool starts
 * empty, as before it was kept; deleting it loses only the evidence.
 */
import type { Logger } from '../core/logger.ts';
import { NO_TOXICITY, type ToxicitySums } from '../state/edge-state.ts';
import type { Ledger } from './ledger.ts';

const FIELDS = ['num', 'den', 'count', 'sq', 'w2', 'pden', 'pnum', 'psq', 'ts'] as const;
/** fields that are weights or sums of squares: never below zero */
const NON_NEGATIVE = new Set<string>(['den', 'count', 'sq', 'w2', 'pden', 'psq']);

function hasTable(ledger: Ledger): boolean {
  return ledger.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'toxicity_pool'").get() !== undefined;
}

/** The pool the row holds, or why it is not one. */
export function parseToxicityPool(text: string): ToxicitySums | string {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return 'not an object';
  const r = o as Record<string, unknown>;
  const out: Record<string, number> = {};
  for (const k of FIELDS) {
    const v = r[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${k}: not a finite number`;
    if (NON_NEGATIVE.has(k) && v < 0) return `${k}: below zero`;
    out[k] = v;
  }
  if (out.pnum! > 0) return 'pnum: above zero (picked-off markouts are losses)';
  return out as unknown as ToxicitySums;
}

/** The saved pool, or the empty one (none saved, or a row that is not a pool: logged). */
export function loadToxicityPool(ledger: Ledger, log: Logger): ToxicitySums {
  if (!hasTable(ledger)) return NO_TOXICITY;
  const row = ledger.db.prepare('SELECT state FROM toxicity_pool WHERE id = 1').get() as { state: unknown } | undefined;
  if (row === undefined) return NO_TOXICITY;
  const p = typeof row.state === 'string' ? parseToxicityPool(row.state) : 'not text';
  if (typeof p === 'string') {
    log.warn({ path: ledger.path, why: p }, 'toxicity pool in the ledger ignored: the guard starts without the account’s evidence');
    return NO_TOXICITY;
  }
  if (p.den > 0)
    log.info(
      { fills: Math.round(p.count * 100) / 100, cents: Math.round((p.num / p.den / 10_000) * 100) / 100, asOf: new Date(p.ts).toISOString() },
      'toxicity pool restored from the ledger (the guard’s evidence across markets, decaying from its time)',
    );
  return p;
}

/** Replace the saved pool with `pool` (a failure is logged: the next start begins with an older pool or none). */
export function saveToxicityPool(ledger: Ledger, pool: ToxicitySums, now: number, log: Logger): void {
  if (ledger.db.readonly || !ledger.db.open || !hasTable(ledger)) return;
  try {
    const state = JSON.stringify(Object.fromEntries(FIELDS.map((k) => [k, pool[k]])));
    ledger.db.prepare('INSERT OR REPLACE INTO toxicity_pool (id, state, written_at) VALUES (1, ?, ?)').run(state, now);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'toxicity pool could not be written to the ledger');
  }
}
