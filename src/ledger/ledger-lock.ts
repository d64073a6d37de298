/**
 * One writer per ledger: a lock that dies with its process.
 *
 *   const lock = acquireLedgerLock(path)   // throws LedgerLockedError naming the holder
 *   ledgerLockHolder(path)                 // {pid, host, startedAt} of the live holder, or null
 *   lock.release()
 *
 * The lock is a small SQLite file beside the ledger, `<ledger>.lock` (rollback journal), on which the
 * holder keeps a write transaction open (`BEGIN IMMEDIATE`: SQLite's RESERVED lock, a POSIX record
 * lock on the file). The kernel drops that lock when the process ends, however it ends (kill -9
 * included), so a stale holder never blocks; while the process lives, every other process (and
 * every other connection of this one) gets SQLITE_BUSY. The RESERVED lock still lets readers in, so
 * anyone can read who holds it: the holder writes its pid, host and start time before taking the
 * lock for good, and checks, once it holds it, that the row it reads is its own.
 *
 * A pid file alone would not do: a pid can be reused after kill -9, and a pid on another host (a
 * shared volume) cannot be checked at all. The record lock needs no pid check.
 *
 * Never open the lock file with node:fs while holding the lock: closing any descriptor on a file
 * drops every POSIX lock the process holds on it. This module touches it with node:fs only to create
 * it (0600) when it does not exist yet.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { makeFolders } from '../core/make-folders.ts';

export interface LedgerLockHolder {
  readonly pid: number;
  readonly host: string;
  /** when the holder took the lock, ms since the epoch */
  readonly startedAt: number;
}

export class LedgerLockedError extends Error {
  constructor(
    readonly path: string,
    readonly holder: LedgerLockHolder | null,
  ) {
    super(
      `ledger ${path} is in use by another bookmaker (${describeHolder(holder)}): one writer per ledger. ` +
        'Stop that process first, or give this one its own ledger.path. Read-only `bookmaker ledger` commands still work while it runs.',
    );
    this.name = 'LedgerLockedError';
  }
}

export function describeHolder(h: LedgerLockHolder | null): string {
  if (!h) return 'holder unknown';
  return `pid ${h.pid} on ${h.host}, since ${new Date(h.startedAt).toISOString()}`;
}

/** The lock file of a ledger file. */
export function lockPathOf(ledgerPath: string): string {
  return `${ledgerPath}.lock`;
}

const SCHEMA =
  'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, started_at INTEGER NOT NULL, token TEXT NOT NULL)';

/** Create a file with mode 0600 when it does not exist (never opens an existing one). */
export function createPrivate(path: string): void {
  if (existsSync(path)) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

function openLockDb(lockPath: string, create: boolean): Database.Database | null {
  if (!create && !existsSync(lockPath)) return null;
  if (create) {
    makeFolders(dirname(lockPath));
    createPrivate(lockPath);
  }
  const db = new Database(lockPath, { fileMustExist: true });
  // the default journal (not WAL): a RESERVED lock held by the writer leaves the file readable
  db.pragma('busy_timeout = 0');
  return db;
}

function readHolder(db: Database.Database): (LedgerLockHolder & { token: string }) | null {
  try {
    const r = db.prepare('SELECT pid, host, started_at, token FROM holder WHERE id = 1').get() as
      | { pid: number; host: string; started_at: number; token: string }
      | undefined;
    return r ? { pid: r.pid, host: r.host, startedAt: r.started_at, token: r.token } : null;
  } catch {
    return null; // no table yet: a lock file that was never written
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * The connections of the locks this process holds. A connection nothing refers to is closed by the
 * garbage collector, and its lock with it: a caller that dropped its ledger (or a script whose
 * ledger is a dead local) would lose the lock at an arbitrary moment. Held here until `release()`.
 */
const held = new Set<Database.Database>();

/** A held lock. `release()` ends the transaction and closes the file (the process's end does too). */
export class LedgerLock {
  private released = false;
  private ino: number;
  constructor(
    readonly path: string,
    readonly holder: LedgerLockHolder,
    private db: Database.Database,
  ) {
    this.ino = inoOf(lockPathOf(path));
    held.add(db);
  }

  /**
   * Is the lock still the one at the lock file's path? A lock file deleted or replaced by hand would
   * let a second writer take a new one: the lock is then taken again on the file now at the path
   * (null: held again, or never lost), or, when another process got there first, the reason.
   */
  check(): string | null {
    if (this.released) return null;
    if (inoOf(lockPathOf(this.path)) === this.ino) return null;
    let again: LedgerLock;
    try {
      again = acquireLedgerLock(this.path, this.holder.startedAt);
    } catch (e) {
      return e instanceof LedgerLockedError
        ? `the lock file ${lockPathOf(this.path)} was deleted or replaced and another process now holds the ledger (${describeHolder(e.holder)}): two writers`
        : `the lock file ${lockPathOf(this.path)} was deleted or replaced and cannot be taken again (${(e as Error).message})`;
    }
    // keep the new one (a different file: closing the old one does not drop the new lock)
    const old = this.db;
    this.db = again.db;
    this.ino = again.ino;
    again.released = true;
    held.delete(old);
    try {
      if (old.inTransaction) old.exec('ROLLBACK');
    } finally {
      old.close();
    }
    return null;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this.db);
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } finally {
      this.db.close();
    }
  }
}

function inoOf(p: string): number {
  try {
    return statSync(p).ino;
  } catch {
    return -1;
  }
}

/**
 * Take the ledger's write lock, or throw LedgerLockedError naming the live holder. The lock is held
 * until `release()` or the end of the process, whether or not the caller keeps a reference to it.
 */
export function acquireLedgerLock(ledgerPath: string, now: number = Date.now()): LedgerLock {
  const lockPath = lockPathOf(ledgerPath);
  const db = openLockDb(lockPath, true)!;
  const me = { pid: process.pid, host: hostname(), startedAt: now, token: randomBytes(8).toString('hex') };
  try {
    // two tries: a concurrent starter (or a holder probe) can slip between the commit and the hold
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        if (!isBusy(e)) throw e;
        throw new LedgerLockedError(ledgerPath, strip(readHolder(db)));
      }
      db.exec(SCHEMA);
      db.prepare('INSERT OR REPLACE INTO holder (id, pid, host, started_at, token) VALUES (1, ?, ?, ?, ?)').run(me.pid, me.host, me.startedAt, me.token);
      db.exec('COMMIT');
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        if (!isBusy(e)) throw e;
        continue;
      }
      if (readHolder(db)?.token === me.token) return new LedgerLock(ledgerPath, strip(me)!, db);
      db.exec('ROLLBACK');
    }
    throw new LedgerLockedError(ledgerPath, strip(readHolder(db)));
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    throw e;
  }
}

function strip(h: (LedgerLockHolder & { token?: string }) | null): LedgerLockHolder | null {
  return h ? { pid: h.pid, host: h.host, startedAt: h.startedAt } : null;
}

/**
 * Who holds the ledger's write lock now: `{pid, host, startedAt}`, or null when no live process
 * holds it (no lock file, or its holder has ended). Takes the lock for an instant to find out, never
 * keeps it, never creates a file. For `ctl clear-kill --offline` and the readers.
 */
export function ledgerLockHolder(ledgerPath: string): LedgerLockHolder | null {
  if (ledgerPath === ':memory:') return null;
  let db: Database.Database | null;
  try {
    db = openLockDb(lockPathOf(ledgerPath), false);
  } catch {
    return null;
  }
  if (!db) return null;
  try {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      if (!isBusy(e)) throw e;
      return strip(readHolder(db)) ?? { pid: 0, host: 'unknown', startedAt: 0 };
    }
    db.exec('ROLLBACK');
    return null;
  } finally {
    db.close();
  }
}
