/**
 * Ledger integrity: a bounded check at open and a full one for `bookmaker ledger check`.
 *
 * At open (openIntegrityCheck): `PRAGMA quick_check(<table>)` of the small tables the kill switch
 * and a start depend on (risk_state, meta, startups, operator_actions, risk_events, fill_baselines)
 * always, then of the fills, then of each other table (orders, cancels, marks, …), each only when
 * its row count, at ~3 µs a row, fits the time left of `budgetMs` (default 150 ms: about 50 000
 * rows). The start then replays the fills after the books checkpoint (books-checkpoint.ts; the
 * checkpoint carries its own digest, and every fill when it has none), reading those pages itself (a
 * damaged one fails the start); older fill pages are left to `ledger check`. quick_check reads every page of the table and its
 * indexes (b-tree structure, record format, index order) but skips the index-to-table
 * cross-checks; a large table left unchecked at open is checked by `bookmaker ledger check`, and
 * damage a start did not reach shows up as a failed write, which fails closed (ledger-unwritable).
 *
 * The full check (fullIntegrityCheck) is `PRAGMA integrity_check`: every page, every index entry.
 */
import type Database from 'better-sqlite3';

/** Checked at every open, whatever the time: what a start reads and what the kill switch keeps. */
export const CRITICAL_TABLES = ['risk_state', 'meta', 'startups', 'operator_actions', 'risk_events', 'fill_baselines'] as const;
/** Checked next, before the other tables, when they fit the budget: the books. */
const FIRST_TABLES = ['fills'];

export class LedgerDamagedError extends Error {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(
      `ledger ${path} is damaged (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; … ${problems.length - 3} more` : ''}). ${recoverySteps(path)}`,
    );
    this.name = 'LedgerDamagedError';
  }
}

export function recoverySteps(path: string): string {
  return (
    'Not starting on damaged books. To recover: (1) stop every process using it and keep the damaged file for inspection; ' +
    `(2) restore the last backup (\`bookmaker ledger backup --out FILE\` makes one) to ${path}, and run \`bookmaker ledger check --ledger ${path}\`; ` +
    "(3) without a backup, `bookmaker run --new-ledger` starts fresh books: the history, the PnL peak and the day's opening PnL in the damaged file are lost " +
    '(fills still at the venue are caught up again; a kill-switch latch stays, held by the latch file beside the ledger). See docs/ledger-operations.md.'
  );
}

/** Is this SQLite error one of a damaged or foreign file? */
export function isDamage(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
}

function problemsOf(rows: unknown[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    const v = Object.values(r as Record<string, unknown>)[0];
    if (v !== 'ok') out.push(String(v));
  }
  return out;
}

const US_PER_ROW = 3;

function estimatedRows(db: Database.Database, table: string): number {
  try {
    const q = `"${table.replaceAll('"', '""')}"`;
    // two lookups at the ends of the rowid b-tree (MAX and MIN in one SELECT read every row)
    const r = db.prepare(`SELECT (SELECT MAX(rowid) FROM ${q}) - (SELECT MIN(rowid) FROM ${q}) + 1 AS n`).get() as { n: number | null };
    return r.n ?? 0;
  } catch {
    return 0; // a table without rowid, or unreadable: quick_check says which
  }
}

export interface IntegrityResult {
  readonly ok: boolean;
  readonly problems: string[];
  /** tables checked (every table for the full check) */
  readonly checked: string[];
  /** tables left for `ledger check` (time budget spent) */
  readonly skipped: string[];
  readonly ms: number;
}

/** The bounded check at open (see the header). Never throws: a check that cannot run is a problem. */
export function openIntegrityCheck(db: Database.Database, budgetMs = 150, now: () => number = () => performance.now()): IntegrityResult {
  const t0 = now();
  const problems: string[] = [];
  const checked: string[] = [];
  const skipped: string[] = [];
  let all: string[];
  try {
    all = tables(db);
  } catch (e) {
    return { ok: false, problems: [(e as Error).message], checked, skipped, ms: now() - t0 };
  }
  const critical = CRITICAL_TABLES.filter((t) => all.includes(t));
  const rest = [
    ...FIRST_TABLES.filter((t) => all.includes(t)),
    ...all.filter((t) => !(CRITICAL_TABLES as readonly string[]).includes(t) && !FIRST_TABLES.includes(t)),
  ];
  for (const t of [...critical, ...rest]) {
    // a table beyond the critical ones only when it fits the time left, by its row count (an O(log n)
    // estimate: the rowid range) at ~3 µs a row, what quick_check takes on this machine's class
    if (!(CRITICAL_TABLES as readonly string[]).includes(t) && estimatedRows(db, t) * US_PER_ROW > (budgetMs - (now() - t0)) * 1000) {
      skipped.push(t);
      continue;
    }
    try {
      const p = problemsOf(db.pragma(`quick_check("${t.replaceAll('"', '""')}")`) as unknown[]);
      problems.push(...p.map((x) => `${t}: ${x}`));
    } catch (e) {
      problems.push(`${t}: ${(e as Error).message}`);
    }
    checked.push(t);
  }
  return { ok: problems.length === 0, problems, checked, skipped, ms: now() - t0 };
}

/** `PRAGMA integrity_check` of the whole file (every page, every index). */
export function fullIntegrityCheck(db: Database.Database, now: () => number = () => performance.now()): IntegrityResult {
  const t0 = now();
  let problems: string[];
  let checked: string[] = [];
  try {
    checked = tables(db);
    problems = problemsOf(db.pragma('integrity_check(1000)') as unknown[]);
  } catch (e) {
    problems = [(e as Error).message];
  }
  return { ok: problems.length === 0, problems, checked, skipped: [], ms: now() - t0 };
}
