/**
 * The ledger: a SQLite file (better-sqlite3, WAL) that outlives the process.
 *
 *   const ledger = openLedger({ path, clock, logger });   // ':memory:' for a throwaway one
 *   ledger.orderSubmitted(e) / orderAnswered(…) / cancel(…) / fill(f) / mark(…) / riskEvent(…)
 *   ledger.setLatch(reason, detail) / clearLatch(reason, source)   // written at once (synchronous)
 *   ledger.flush()      // write what is queued now (also runs every `flushMs` on the clock)
 *   ledger.close()      // flush, checkpoint, close
 *
 * Hot path: the record methods only push a small array onto a queue; the queue is written every
 * `flushMs` (default 200 ms), or in the next turn of the event loop once it holds `maxBatch` records,
 * never in the caller's turn: a tick never waits on the disk. The writer's own turns write at most
 * `maxBatch` records each (one transaction), so a backlog is written over several turns with the
 * events that arrive between them (docs/performance.md#where-the-tail-comes-from). A record of the
 * kill-switch latch, a start-up or an operator action is written at once: those must survive a crash
 * that comes right after them.
 *
 * Durability: WAL with `synchronous = NORMAL` for the batched records — a committed transaction
 * survives a process crash (kill -9); a power loss may lose the last transactions but never corrupts
 * the file. Fills lost that way are fetched again from the venue at the next start (catch-up.ts),
 * and a fill is keyed by its venue identity (`fill_id`, unique), so fetching one twice records it
 * once. The safety records (latch, clear, operator actions, start-ups) commit with
 * `synchronous = FULL`: they survive a power cut too.
 *
 * Fail-closed (docs/ledger-operations.md): one writer per file (ledger-lock.ts, taken before anything
 * is read); files created 0600; a bounded integrity check at open (integrity.ts: damage throws
 * LedgerDamagedError with the recovery steps); the latch also kept in `<ledger>.latch`
 * (latch-file.ts), which holds it when the ledger cannot; `problem()` says why the ledger cannot be
 * written now (failing writes, the file deleted/replaced/emptied, the lock file lost) for the
 * fail-closed watch (ledger-watch.ts); the WAL checkpointed every `checkpointMs`; `prune()` for
 * retention (retention.ts).
 *
 * Ids: the record methods take market ids and nonces as `Bytes32` (normal form, docs/architecture.md#ids-at-the-boundary)
 * and store them as given, so the ids read back from the tables this file writes are in normal form too.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FeeSource, FillOrigin } from '../account/account.ts';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Bytes32, NormalAddress } from '../model/order.ts';
import { isDamage, LedgerDamagedError, openIntegrityCheck } from './integrity.ts';
import { latchPathOf, readLatchFile, readLatchRecord, writeHoldsFile, writeLatchFile, type FileHolds } from './latch-file.ts';
import { acquireLedgerLock, createPrivate, type LedgerLock } from './ledger-lock.ts';
import { pruneBatch, type PruneCounts } from './retention.ts';
import { migrate, missingIndexes, SCHEMA_VERSION } from './schema.ts';
import { adoptedIntoSlot } from '../orders/orphan-slot.ts';
import { makeFolders } from '../core/make-folders.ts';

export type { FeeSource, FillOrigin };

export interface LedgerFill {
  readonly fillId: string;
  readonly nonce: Bytes32 | null;
  readonly marketId: Bytes32;
  readonly outcomeIndex: number;
  readonly side: number;
  readonly price: number;
  readonly size: number;
  readonly fee: number;
  readonly ts: number;
  /** 'feed' (seen while running) or 'catch-up' (fetched at start-up) */
  readonly source: string;
  /** the order's cumulative filled shares after this fill, when known */
  readonly filled?: number | null;
  /** who stated the fee: the venue (or the engine that charged it) or the configured fee model (default 'model') */
  readonly feeSource?: FeeSource;
  /** 'own' (an order this bookmaker placed, the default) or 'foreign' (another instance or a person on the same wallet) */
  readonly origin?: FillOrigin;
  /** the venue order's kind when known (0 buy, 1 sale from inventory, 2 sale without: it mints) */
  readonly orderKind?: 0 | 1 | 2 | null;
  /** the fill's collateral in its own outcome's terms (1e-6 USDC) when it is not price × size (null: price × size) */
  readonly notional?: number | null;
}

/** One holding adopted as the baseline of a ledger (src/ledger/baseline.ts): shares at a mark. */
export interface BaselineHolding {
  readonly marketId: Bytes32;
  readonly outcomeIndex: number;
  /** 1e-6 shares */
  readonly shares: bigint;
  /** the price the holding was adopted at, 1e-6 USDC per share (null: no mark was available, adopted at 0) */
  readonly mark: number | null;
}

export interface Baseline {
  readonly at: number;
  /** the collateral balance at adoption, 1e-6 USDC */
  readonly collateral: bigint;
  readonly holdings: readonly BaselineHolding[];
}

export interface LedgerOrder {
  readonly nonce: Bytes32;
  readonly marketId: Bytes32;
  readonly slot: string;
  readonly outcomeIndex: number;
  readonly side: number;
  readonly price: number;
  readonly size: number;
  readonly ts: number;
}

export interface RiskSnapshot {
  readonly latch: { readonly reason: string; readonly detail: string; readonly at: number } | null;
  /** highest account PnL seen, 1e-6 USDC (null: none recorded, or reset by a clear) */
  readonly peakPnl: bigint | null;
  /** UTC day number (ms / 86 400 000) the day's opening PnL belongs to */
  readonly day: number | null;
  readonly dayStartPnl: bigint | null;
}

/** An operator's halt or pause as the ledger holds it (they outlive the process). */
export interface OperatorHold {
  readonly reason: string | null;
  /** ms since the epoch */
  readonly at: number;
  /** 'admin' (the endpoint), 'cli' (an offline ctl), 'wallet' (the bot: another trader on its wallet) */
  readonly source: string;
  /** the record it was read from at start: 'ledger', 'latch file', or both (absent: this process) */
  readonly from?: HoldRecord;
}

export type HoldRecord = 'ledger' | 'latch file' | 'ledger and latch file';

/** `a` (the ledger's) and `b` (the latch file's) as one hold: the ledger's when both hold one */
function eitherHold(a: OperatorHold | null | undefined, b: OperatorHold | null | undefined): OperatorHold | null {
  if (a && b) return { ...a, from: 'ledger and latch file' };
  if (a) return { ...a, from: 'ledger' };
  if (b) return { ...b, from: 'latch file' };
  return null;
}

/** The holds after one halt, pause or resume (`resume` without a market lifts the halt and every pause). */
export function applyHoldAction(h: OperatorHolds, action: string, market: Bytes32 | null, hold: OperatorHold): OperatorHolds {
  let halt = h.halt;
  const pauses = new Map(h.pauses);
  if (action === 'halt') halt = hold;
  else if (action === 'pause' && market) pauses.set(market, hold);
  else if (action === 'resume' && market) pauses.delete(market);
  else if (action === 'resume') {
    halt = null;
    pauses.clear();
  }
  return { halt, pauses };
}

/** The halt and the per-market pauses in force: every halt, pause and resume replayed in order. */
export interface OperatorHolds {
  readonly halt: OperatorHold | null;
  /** market id → its pause */
  readonly pauses: ReadonlyMap<Bytes32, OperatorHold>;
}

export interface StartupRecord {
  readonly configHash: string;
  readonly configFile: string;
  readonly venue: string;
  readonly trader: NormalAddress;
  readonly markets: number;
  readonly latched: string | null;
}

export interface LedgerOptions {
  /** file path, or ':memory:' */
  readonly path: string;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** write the queue at least this often, ms (default 200) */
  readonly flushMs?: number;
  /** …or in the next turn once it holds this many records, at most this many per turn of its own (default 500) */
  readonly maxBatch?: number;
  /** open an existing file only (the CLI readers never create one) */
  readonly mustExist?: boolean;
  readonly readonly?: boolean;
  /** how long a statement waits for another connection's lock, ms (default 5 000; a reader on a busy event loop passes 0) */
  readonly busyTimeoutMs?: number;
  /**
   * take the ledger's write lock (default: every writable file ledger does; see ledger-lock.ts): a
   * second writer on the same file is refused with LedgerLockedError naming the holder
   */
  readonly lock?: boolean;
  /** the integrity check at open: its time budget for the tables beyond the critical ones, ms (default 150; see integrity.ts) */
  readonly checkBudgetMs?: number;
  /** checkpoint the WAL into the main file at least this often while writing, ms (default 60 000) */
  readonly checkpointMs?: number;
}

/** While writes keep failing, one log line per this many ms (the first failure is logged at once). */
export const FAILURE_LOG_MS = 30_000;

/** Why the ledger cannot be written now, and since when (see Ledger.problem). */
export interface LedgerProblem {
  readonly since: number;
  readonly reason: string;
}

/** A queued write: a statement key and its parameters. */
type Rec = [Stmt, unknown[]];
type Stmt = 'order' | 'adopt' | 'orderAgain' | 'answer' | 'ended' | 'cancel' | 'fill' | 'mark' | 'risk' | 'claimable' | 'claimableGone';

const SQL: Record<Stmt, string> = {
  order: `INSERT INTO orders (nonce, market_id, slot, outcome, side, price, size, submitted_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'submitted')
          ON CONFLICT(nonce) DO UPDATE SET sends = sends + 1`,
  // an order the ledger holds already (an earlier run's) keeps its row and status; adopted_at says it was adopted (again);
  // stranger_at only on a new row (no record of it here); an adoption into a quote slot makes a stranger's row the bot's
  adopt: `INSERT INTO orders (nonce, market_id, slot, outcome, side, price, size, submitted_at, status, sends, adopted_at, stranger_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'adopted', 0, ?, ?)
          ON CONFLICT(nonce) DO UPDATE SET adopted_at = COALESCE(excluded.adopted_at, adopted_at),
            stranger_at = CASE WHEN excluded.adopted_at IS NULL THEN stranger_at END`,
  orderAgain: `UPDATE orders SET sends = sends + 1 WHERE nonce = ?`,
  answer: `UPDATE orders SET status = CASE WHEN ended_at IS NULL THEN ? ELSE status END, answer = ?, answered_at = ? WHERE nonce = ?`,
  ended: `UPDATE orders SET status = ?, ended_at = ? WHERE nonce = ? AND ended_at IS NULL`,
  cancel: `INSERT INTO cancels (nonce, market_id, ts, result, detail, stranger) VALUES (?, ?, ?, ?, ?, ?)`,
  fill: `INSERT OR IGNORE INTO fills (fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, filled, fee_source, origin, order_kind, notional) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  mark: `INSERT INTO marks (ts, market_id, net, realised, unrealised, pnl) VALUES (?, ?, ?, ?, ?, ?)`,
  risk: `INSERT INTO risk_events (ts, market_id, kind, reason, count, detail) VALUES (?, ?, ?, ?, ?, ?)`,
  claimable: `INSERT OR REPLACE INTO claimable_since (market_id, since, payout_yes) VALUES (?, ?, ?)`,
  claimableGone: `DELETE FROM claimable_since WHERE market_id = ?`,
};

export class Ledger {
  readonly path: string;
  readonly db: Database.Database;
  /** the write lock (null: read-only, in memory, or opened with lock: false) */
  readonly lock: LedgerLock | null;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly stmts = new Map<Stmt, Database.Statement>();
  private queue: Rec[] = [];
  private cancelTimer: (() => void) | null = null;
  /** the pending timer is a write in the next turn (not the `flushMs` one) */
  private timerSoon = false;
  private closed = false;
  private readonly writeBatch: (recs: Rec[]) => void;
  /** records written, and batches (transactions), since open */
  written = 0;
  batches = 0;
  /** records that could not be written (logged; the queue is kept for the next try up to a bound) */
  failures = 0;
  /** records dropped because the queue of failed writes passed its bound (logged) */
  dropped = 0;
  /** since when writes fail (null: the last write succeeded), and the last error */
  failingSince: number | null = null;
  lastError: string | null = null;
  /** while writes fail: when the last failure line was logged, and the failures since it */
  private failureLoggedAt = 0;
  private failedUnlogged = 0;
  /** the latch went to the latch file only: the ledger could not take it (see setLatch) */
  latchInFileOnly = false;
  private readonly file: boolean;
  /** the file's device and inode at open: a deleted or replaced file is told by them (see problem) */
  private readonly identity: { dev: number; ino: number } | null;
  private goneSince: number | null = null;
  private readonly checkpointMs: number;
  private lastCheckpointAt: number;
  private writesSinceCheckpoint = 0;

  constructor(o: LedgerOptions) {
    this.path = o.path;
    this.clock = o.clock;
    this.log = (o.logger ?? silentLogger).child({ component: 'ledger' });
    this.flushMs = o.flushMs ?? 200;
    this.maxBatch = o.maxBatch ?? 500;
    const file = (this.file = o.path !== ':memory:');
    this.checkpointMs = o.checkpointMs ?? 60_000;
    if (file && !o.mustExist) makeFolders(dirname(o.path));
    // one writer per file: the lock first, so a refused second writer has touched nothing
    const wantLock = file && !o.readonly && o.lock !== false && (!o.mustExist || existsSync(o.path));
    this.lock = wantLock ? acquireLedgerLock(o.path, this.clock.now()) : null;
    let db: Database.Database | null = null;
    try {
      // created 0600 (the WAL and shared-memory files SQLite creates take the same mode)
      if (file && !o.mustExist && !o.readonly) createPrivate(o.path);
      db = new Database(o.path, { fileMustExist: o.mustExist ?? false, readonly: o.readonly ?? false });
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(o.busyTimeoutMs ?? 5000))}`);
      if (!o.readonly) {
        if (file) {
          // damage refuses the start before anything is written (integrity.ts: what is checked, the bound)
          const check = openIntegrityCheck(db, o.checkBudgetMs ?? 150);
          if (!check.ok) throw new LedgerDamagedError(o.path, check.problems);
          if (check.skipped.length > 0)
            this.log.info({ skipped: check.skipped, ms: Math.round(check.ms) }, 'ledger integrity: large tables left to `bookmaker ledger check`');
          // a new file frees pruned pages as it goes (retention.ts); takes effect only before the
          // first table (an existing file switches with the VACUUM of `bookmaker ledger prune`)
          db.pragma('auto_vacuum = INCREMENTAL');
          db.pragma('journal_mode = WAL');
        }
        db.pragma('synchronous = NORMAL');
        const t0 = performance.now();
        const missing = missingIndexes(db);
        migrate(db);
        if (missing > 0 && performance.now() - t0 > 1_000)
          this.log.info(
            { indexes: missing, ms: Math.round(performance.now() - t0) },
            'ledger indexes built (once, on the first start of this version on an older ledger)',
          );
        if (file) db.pragma('wal_checkpoint(TRUNCATE)');
      } else {
        const v = db.pragma('user_version', { simple: true }) as number;
        if (v < SCHEMA_VERSION) {
          throw new Error(
            `ledger ${o.path} has schema version ${v}, older than this bookmaker's ${SCHEMA_VERSION}: the next \`bookmaker run\` on it upgrades it in place; read it then`,
          );
        }
      }
    } catch (e) {
      db?.close();
      this.lock?.release();
      if (file && isDamage(e) && !(e instanceof LedgerDamagedError)) throw new LedgerDamagedError(o.path, [(e as Error).message]);
      throw e;
    }
    this.db = db;
    this.identity = file ? (({ dev, ino }) => ({ dev, ino }))(statSync(o.path)) : null;
    this.lastCheckpointAt = this.clock.now();
    if (file && !o.readonly) {
      try {
        this.reconcileLatchFile();
      } catch (e) {
        this.db.close();
        this.lock?.release();
        throw new Error(`ledger ${o.path}: the kill-switch latch file ${latchPathOf(o.path)} cannot be read or written (${(e as Error).message})`, {
          cause: e,
        });
      }
    }
    this.writeBatch = this.db.transaction((recs: Rec[]) => {
      for (const [k, args] of recs) this.stmt(k).run(...args);
    });
  }

  private stmt(k: Stmt): Database.Statement {
    let s = this.stmts.get(k);
    if (!s) this.stmts.set(k, (s = this.db.prepare(SQL[k])));
    return s;
  }

  /**
   * Queue a record. Never writes here: the caller is on the hot path (a tick emitting its orders), so
   * a full queue is written in the next turn of the event loop, a turn of its own.
   */
  private push(r: Rec): void {
    if (this.closed) return;
    this.queue.push(r);
    // while writes fail, the retry timer stands: a full queue does not bring it forward
    if (this.queue.length >= this.maxBatch && this.failingSince === null) this.writeSoon(0);
    else if (!this.cancelTimer) this.writeSoon(this.flushMs);
  }

  /** The writer's timer: in `ms`, write at most `maxBatch` records, and the rest in the turns after. */
  private writeSoon(ms: number): void {
    if (this.cancelTimer) {
      // a write already due as soon, or sooner
      if (this.timerSoon || ms > 0) return;
      this.cancelTimer();
    }
    this.timerSoon = ms === 0;
    this.cancelTimer = this.clock.setTimeout(() => {
      this.cancelTimer = null;
      this.timerSoon = false;
      this.write(this.maxBatch);
      if (this.queue.length > 0 && !this.cancelTimer && !this.closed)
        this.writeSoon(this.queue.length >= this.maxBatch && this.failingSince === null ? 0 : this.flushMs);
    }, ms);
  }

  /** Write every queued record now, in one transaction. A failure is logged and the batch kept for the next try. */
  flush(): void {
    this.write(Number.POSITIVE_INFINITY);
  }

  /** Write the first `limit` queued records in one transaction (see flush). */
  private write(limit: number): void {
    if (this.cancelTimer) {
      this.cancelTimer();
      this.cancelTimer = null;
      this.timerSoon = false;
    }
    if (this.queue.length === 0 || !this.db.open) return;
    const all = this.queue.length <= limit;
    const batch = all ? this.queue : this.queue.slice(0, limit);
    this.queue = all ? [] : this.queue.slice(limit);
    try {
      this.writeBatch(batch);
      this.written += batch.length;
      this.batches++;
      this.wrote();
      this.maybeCheckpoint();
    } catch (e) {
      this.writeFailed(e, batch.length);
      // keep what failed, bounded: a disk that stays broken must not eat the heap
      if (batch.length + this.queue.length <= 200_000) this.queue = [...batch, ...this.queue];
      else {
        this.dropped += batch.length;
        this.log.error(
          { records: batch.length, dropped: this.dropped },
          'ledger write queue full: records dropped (the catch-up at the next start fetches the fills again)',
        );
      }
      if (!this.cancelTimer && !this.closed) this.writeSoon(Math.max(1_000, this.flushMs));
    }
  }

  get pending(): number {
    return this.queue.length;
  }

  private wrote(): void {
    if (this.failingSince !== null)
      this.log.info({ failingForMs: this.clock.now() - this.failingSince, failedSinceLastLine: this.failedUnlogged }, 'ledger writes succeed again');
    this.failingSince = null;
    this.lastError = null;
    this.failedUnlogged = 0;
    this.writesSinceCheckpoint++;
  }

  /**
   * A failed write: counted every time (`failures`, bookmaker_ledger_write_failures); logged at once
   * the first time, then while writes keep failing (a full disk fails each retry, several a second)
   * one summary line per FAILURE_LOG_MS with the count since the last line.
   */
  private writeFailed(e: unknown, records: number): void {
    const now = this.clock.now();
    this.failures++;
    this.lastError = (e as Error).message;
    if (this.failingSince === null) {
      this.failingSince = now;
      this.failureLoggedAt = now;
      this.failedUnlogged = 0;
      this.log.error({ err: this.lastError, records }, 'ledger write failed; retrying with the next batch');
      return;
    }
    this.failedUnlogged++;
    if (now - this.failureLoggedAt < FAILURE_LOG_MS) return;
    this.log.error(
      { err: this.lastError, failures: this.failedUnlogged, seconds: Math.round((now - this.failureLoggedAt) / 1000), failingForMs: now - this.failingSince },
      'ledger writes still failing; retrying',
    );
    this.failureLoggedAt = now;
    this.failedUnlogged = 0;
  }

  /** A write done at once (not queued): failures are tracked as the queue's are, then thrown. */
  private writeNow<T>(fn: () => T, durable: boolean): T {
    try {
      const r = durable ? this.durably(fn) : fn();
      this.wrote();
      return r;
    } catch (e) {
      this.writeFailed(e, 1);
      throw e;
    }
  }

  /**
   * Run a write with `synchronous = FULL`: in WAL mode its commit fsyncs the WAL, so it survives a
   * power cut, not only a crash of the process. For the safety records (latch, clear, operator
   * actions, start-ups); the batched records stay on NORMAL.
   */
  private durably<T>(fn: () => T): T {
    if (!this.file) return fn();
    this.db.pragma('synchronous = FULL');
    try {
      return fn();
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /**
   * While writes fail: try again now (the queue, or, with nothing queued, a one-row touch of the
   * risk state), so a freed disk shows as writable without waiting for the next record.
   */
  retryWrites(): void {
    if (this.failingSince === null || this.closed || !this.db.open || this.db.readonly) return;
    if (this.queue.length > 0) {
      this.flush();
      return;
    }
    try {
      this.writeNow(() => this.db.prepare('UPDATE risk_state SET updated_at = updated_at WHERE id = 1').run(), false);
    } catch {
      // still failing: tracked by writeNow
    }
  }

  /** One prune batch (retention.ts): records older than `cutoff`, at most `batch` rows per table. */
  prune(cutoff: number, batch: number): PruneCounts {
    this.flush();
    return this.writeNow(() => pruneBatch(this.db, cutoff, batch), false);
  }

  /** Copy the WAL into the main file now and then (PASSIVE: never waits on a reader). */
  private maybeCheckpoint(): void {
    if (!this.file || this.writesSinceCheckpoint === 0 || this.clock.now() - this.lastCheckpointAt < this.checkpointMs) return;
    this.checkpoint();
  }

  /** Checkpoint the WAL into the main file (PASSIVE). Failures are logged, never thrown. */
  checkpoint(): void {
    if (!this.file || this.db.readonly || !this.db.open) return;
    this.lastCheckpointAt = this.clock.now();
    this.writesSinceCheckpoint = 0;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'ledger checkpoint failed');
    }
  }

  /**
   * Why the ledger cannot be written now, or null: writes failing (disk full, I/O error, a damaged
   * page), or the file deleted or replaced under the process (its inode no longer at the path:
   * writes would go to a file nobody will ever read). Cheap (one stat); for the health monitor.
   */
  problem(): LedgerProblem | null {
    const now = this.clock.now();
    const gone = this.fileGone();
    if (gone) {
      this.goneSince ??= now;
      return { since: this.goneSince, reason: gone };
    }
    const lockLost = this.lock?.check() ?? null;
    if (lockLost) {
      this.goneSince ??= now;
      return { since: this.goneSince, reason: lockLost };
    }
    this.goneSince = null;
    if (this.failingSince !== null) return { since: this.failingSince, reason: `writes fail: ${this.lastError ?? 'unknown error'}` };
    return null;
  }

  /** Seconds the current problem has lasted (0: none). */
  problemSeconds(): number {
    const p = this.problem();
    return p ? Math.max(0, (this.clock.now() - p.since) / 1000) : 0;
  }

  private fileGone(): string | null {
    if (!this.identity) return null;
    let st: { dev: number; ino: number; size: number };
    try {
      st = statSync(this.path);
    } catch (e) {
      return `the ledger file ${this.path} is gone (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): deleted while the bot runs`;
    }
    if (st.dev !== this.identity.dev || st.ino !== this.identity.ino)
      return `the ledger file ${this.path} was replaced while the bot runs (another file now at its path)`;
    if (st.size === 0) return `the ledger file ${this.path} was emptied while the bot runs`;
    return null;
  }

  // ---- records (queued) ----

  orderSubmitted(o: LedgerOrder, retry: boolean): void {
    if (retry) this.push(['orderAgain', [o.nonce]]);
    else this.push(['order', [o.nonce, o.marketId, o.slot, o.outcomeIndex, o.side, o.price, o.size, o.ts]]);
  }

  /**
   * An order found at the venue by reconciliation (sent by an earlier run, or its record lost). Adopted
   * into a quote slot, its `adopted_at` is set (the count of order-ends.ts); a stranger taken in only to
   * be cancelled (an `orphan:` slot, src/orders/orphan-slot.ts) is no adoption, and when the ledger holds
   * no row of it (not an earlier run's order) its row is a stranger's (`stranger_at`, schema version 6).
   */
  orderAdopted(o: LedgerOrder): void {
    const adopted = adoptedIntoSlot(o);
    this.push(['adopt', [o.nonce, o.marketId, o.slot, o.outcomeIndex, o.side, o.price, o.size, o.ts, adopted ? o.ts : null, adopted ? null : o.ts]]);
  }

  /**
   * The venue's answer to a create: 'accepted' (answer 'created', or 'duplicate': a 409 says an
   * earlier send placed it), 'rejected' (refused for good), or 'unknown' (the answer was lost: it may
   * have landed; the catch-up and reconciliation settle it).
   */
  orderAnswered(nonce: Bytes32, status: 'accepted' | 'rejected' | 'unknown', answer: string, ts: number): void {
    this.push(['answer', [status, answer, ts, nonce]]);
  }

  /** The order left the book (cancelled, gone, closed at the venue). */
  orderEnded(nonce: Bytes32, status: string, ts: number): void {
    this.push(['ended', [status, ts, nonce]]);
  }

  /**
   * A market the venue lists claimable, when this bot first saw it so and its payout per YES share (the
   * claims tracker's store, src/ledger/claimable-since.ts): queued like every record, so a write that
   * fails is the ledger's failure (retried, counted, `problem()`: /readyz and the hold of ledger-watch.ts).
   */
  claimableSince(marketId: string, since: number, payoutYes: bigint | null): void {
    this.push(['claimable', [marketId, since, payoutYes === null ? null : Number(payoutYes)]]);
  }

  /** The market is claimable no more (claimed, or no longer listed): its claimable_since row goes. */
  claimableGone(marketId: string): void {
    this.push(['claimableGone', [marketId]]);
  }

  /** A cancel sent or answered; `stranger`: of an order the bot was cancelling as a stranger (`cancels.stranger`, schema version 6). */
  cancel(
    nonce: Bytes32,
    marketId: Bytes32,
    result: 'sent' | 'cancelled' | 'already-cancelled' | 'failed',
    detail: string | null,
    ts: number,
    stranger = false,
  ): void {
    this.push(['cancel', [nonce, marketId, ts, result, detail, stranger ? 1 : null]]);
  }

  fill(f: LedgerFill): void {
    this.push([
      'fill',
      [
        f.fillId,
        f.nonce ?? null,
        f.marketId,
        f.outcomeIndex,
        f.side,
        f.price,
        f.size,
        f.fee,
        f.ts,
        f.source,
        f.filled ?? null,
        f.feeSource ?? 'model',
        f.origin ?? 'own',
        f.orderKind ?? null,
        f.notional ?? null,
      ],
    ]);
  }

  /** A PnL mark: per market, or the account's (marketId null). Money in 1e-6 USDC. */
  mark(ts: number, marketId: Bytes32 | null, net: number, realised: bigint, unrealised: bigint): void {
    this.push(['mark', [ts, marketId, net, realised.toString(), unrealised.toString(), (realised + unrealised).toString()]]);
  }

  riskEvent(ts: number, marketId: Bytes32 | null, kind: string, reason: string, count: number, detail: string | null): void {
    this.push(['risk', [ts, marketId, kind, reason, count, detail]]);
  }

  // ---- records written at once ----

  /** The peak and the day's opening PnL (one row, rewritten): written with the queue. */
  saveRiskFigures(peakPnl: bigint | null, day: number | null, dayStartPnl: bigint | null): void {
    this.flush();
    this.writeNow(
      () =>
        this.db
          .prepare('UPDATE risk_state SET peak_pnl = ?, day = ?, day_start_pnl = ?, updated_at = ? WHERE id = 1')
          .run(peakPnl?.toString() ?? null, day, dayStartPnl?.toString() ?? null, this.clock.now()),
      false,
    );
  }

  /**
   * Latch the kill switch (at once, durable before this returns: a full sync). The first reason is
   * kept. The latch also goes to the latch file beside the ledger (latch-file.ts), fsynced; when the
   * ledger cannot take it (disk full, I/O error, the file deleted under the bot) the latch file alone
   * holds it, and the next open copies it back. Throws only when neither could record it.
   */
  setLatch(reason: string, detail: string, marketId: Bytes32 | null): void {
    try {
      this.flush();
    } catch {
      // the queue's failure is tracked; the latch is what matters now
    }
    const now = this.clock.now();
    let ledgerErr: Error | null = null;
    try {
      this.writeNow(
        () =>
          this.db.transaction(() => {
            this.db
              .prepare('UPDATE risk_state SET latch_reason = ?, latch_detail = ?, latch_at = ?, updated_at = ? WHERE id = 1 AND latch_reason IS NULL')
              .run(reason, detail, now, now);
            this.stmt('risk').run(now, marketId, 'kill', reason, 1, detail);
          })(),
        true,
      );
      const gone = this.fileGone();
      if (gone) ledgerErr = new Error(gone);
    } catch (e) {
      ledgerErr = e as Error;
    }
    if (!this.file) {
      if (ledgerErr) throw ledgerErr;
      return;
    }
    let latch: RiskSnapshot['latch'] = null;
    try {
      latch = ledgerErr ? null : this.risk(false).latch; // the first reason is kept
    } catch {
      // unreadable: this latch
    }
    latch ??= this.fileLatch() ?? { reason, detail, at: now };
    try {
      writeLatchFile(this.path, latch);
    } catch (e) {
      if (ledgerErr)
        throw new Error(
          `the kill-switch latch could not be recorded: ledger: ${ledgerErr.message}; latch file ${latchPathOf(this.path)}: ${(e as Error).message}`,
        );
      this.log.error({ err: (e as Error).message, file: latchPathOf(this.path) }, 'kill-switch latch file could not be written (the ledger holds the latch)');
      return;
    }
    if (ledgerErr) {
      this.latchInFileOnly = true;
      this.log.error(
        { err: ledgerErr.message, file: latchPathOf(this.path) },
        'the ledger could not record the kill-switch latch: it is kept in the latch file, which the next start reads',
      );
    }
  }

  /** The latch in the latch file (null: clear or none), or, when the ledger holds one, that. */
  private fileLatch(): RiskSnapshot['latch'] {
    return this.file ? readLatchFile(this.path) : null;
  }

  /**
   * At open: the latch file and the ledger agree. A latch only the file holds (the ledger could not
   * take it) is copied into the ledger; a missing file is created with the ledger's state.
   */
  private reconcileLatchFile(): void {
    const inFile = this.fileLatch();
    const inDb = this.risk(false).latch;
    if (inFile && !inDb) {
      this.log.warn(
        { reason: inFile.reason, file: latchPathOf(this.path) },
        'kill-switch latch found in the latch file only (the ledger could not record it): copied into the ledger',
      );
      this.writeNow(
        () =>
          this.db.transaction(() => {
            this.db
              .prepare('UPDATE risk_state SET latch_reason = ?, latch_detail = ?, latch_at = ?, updated_at = ? WHERE id = 1 AND latch_reason IS NULL')
              .run(inFile.reason, inFile.detail, inFile.at, this.clock.now());
            this.stmt('risk').run(this.clock.now(), null, 'kill', inFile.reason, 1, `from the latch file: ${inFile.detail}`);
          })(),
        true,
      );
    } else if (!existsSync(latchPathOf(this.path)) || (inDb && !inFile)) writeLatchFile(this.path, inDb);
    // the ledger's holds go to the file too (a file from before it held them, or one that missed a write)
    const holds = this.operatorHolds();
    const f = this.fileHolds();
    if ((holds.halt !== null && f.halt === null) || [...holds.pauses.keys()].some((m) => !f.pauses.has(m))) {
      const { overflowed } = writeHoldsFile(this.path, holds);
      if (overflowed > 0)
        this.log.error(
          { paused: overflowed, file: latchPathOf(this.path) },
          'the paused markets do not fit the latch file: it records a halt instead ("pauses overflow the latch file"); `bookmaker ctl resume` lifts it',
        );
    }
  }

  /**
   * Clear the latch (operator). The drawdown peak and the day's opening PnL are reset so the cleared
   * bot measures from where it stands; the loss since inception is not reset (it is the books).
   * Returns the latch that was cleared, or null when none was set. The ledger first (full sync), then
   * the latch file; either failing throws (and the start stays refused: either record latches).
   */
  clearLatch(reason: string, source: string): RiskSnapshot['latch'] {
    this.flush();
    const now = this.clock.now();
    const fileWas = this.fileLatch();
    const was = this.writeNow(
      () =>
        this.db.transaction(() => {
          const was = this.risk(false).latch ?? fileWas;
          this.db
            .prepare(
              'UPDATE risk_state SET latch_reason = NULL, latch_detail = NULL, latch_at = NULL, peak_pnl = NULL, day = NULL, day_start_pnl = NULL, updated_at = ? WHERE id = 1',
            )
            .run(now);
          this.stmt('risk').run(now, null, 'clear', was?.reason ?? 'none', 1, reason);
          this.insertAction(now, 'clear-kill', null, reason, source, was ? `cleared ${was.reason}` : 'no latch was set');
          return was;
        })(),
      true,
    );
    if (this.file) writeLatchFile(this.path, null);
    this.latchInFileOnly = false;
    return was;
  }

  /**
   * An operator action (halt, pause, resume, …): written at once with a full sync. A halt, pause or
   * resume goes first to the latch file (fsynced: the holds in force after it, the ledger's OR the
   * file's), then to the ledger (also when the file failed); either failing throws, so the caller
   * does not call it durable.
   */
  operatorAction(action: string, market: string | null, reason: string | null, source: string, result: string): void {
    const now = this.clock.now();
    let fileErr: Error | null = null;
    if (this.file && (action === 'halt' || action === 'pause' || action === 'resume')) {
      try {
        let before: OperatorHolds;
        try {
          before = this.operatorHolds();
        } catch {
          before = this.fileHolds(); // the ledger cannot be read: the file's holds are kept
        }
        const next = applyHoldAction(before, action, bytes32Of(market), { reason, at: now, source });
        const { overflowed } = writeHoldsFile(this.path, next);
        if (overflowed > 0)
          this.log.error(
            { paused: overflowed, file: latchPathOf(this.path) },
            'the paused markets do not fit the latch file: it records a halt instead ("pauses overflow the latch file"); `bookmaker ctl resume` lifts it',
          );
      } catch (e) {
        fileErr = e as Error;
      }
    }
    this.flush();
    this.writeNow(() => this.insertAction(now, action, market, reason, source, result), true);
    if (fileErr)
      throw new Error(
        `the ${action} is in the ledger but the latch file ${latchPathOf(this.path)} could not be written (${fileErr.message}): it would be lost with the ledger`,
        { cause: fileErr },
      );
  }

  private insertAction(ts: number, action: string, market: string | null, reason: string | null, source: string, result: string): void {
    this.db
      .prepare('INSERT INTO operator_actions (ts, action, market, reason, source, result) VALUES (?, ?, ?, ?, ?, ?)')
      .run(ts, action, market, reason, source, result);
  }

  /** The start-up record: written at once with a full sync. */
  startup(s: StartupRecord, caughtUp: number): number {
    this.flush();
    const r = this.writeNow(
      () =>
        this.db
          .prepare('INSERT INTO startups (ts, config_hash, config_file, venue, trader, markets, latched, caught_up) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(this.clock.now(), s.configHash, s.configFile, s.venue, s.trader, s.markets, s.latched, caughtUp),
      true,
    );
    return Number(r.lastInsertRowid);
  }

  // ---- reads ----

  /**
   * The risk state. The latch is the ledger's, or else the latch file's (`withFile`, default): a start
   * refuses to quote when either says latched.
   */
  risk(withFile = true): RiskSnapshot {
    const r = this.db.prepare('SELECT latch_reason, latch_detail, latch_at, peak_pnl, day, day_start_pnl FROM risk_state WHERE id = 1').get() as
      | {
          latch_reason: string | null;
          latch_detail: string | null;
          latch_at: number | null;
          peak_pnl: string | null;
          day: number | null;
          day_start_pnl: string | null;
        }
      | undefined;
    const inFile = withFile ? this.fileLatch() : null;
    if (!r) return { latch: inFile, peakPnl: null, day: null, dayStartPnl: null };
    return {
      latch: r.latch_reason ? { reason: r.latch_reason, detail: r.latch_detail ?? '', at: r.latch_at ?? 0 } : inFile,
      peakPnl: r.peak_pnl === null ? null : BigInt(r.peak_pnl),
      day: r.day,
      dayStartPnl: r.day_start_pnl === null ? null : BigInt(r.day_start_pnl),
    };
  }

  /**
   * The operator's halt and pauses still in force: the halt, pause and resume actions
   * replayed in order (`resume` without a market lifts the halt and every pause). A restarted bot
   * applies them before its first quote.
   */
  ledgerHolds(): OperatorHolds {
    let halt: OperatorHold | null = null;
    const pauses = new Map<Bytes32, OperatorHold>();
    const rows = this.db
      .prepare("SELECT ts, action, market, reason, source FROM operator_actions WHERE action IN ('halt', 'pause', 'resume') ORDER BY id")
      .all() as { ts: number; action: string; market: string | null; reason: string | null; source: string }[];
    for (const r of rows) {
      const hold = { reason: r.reason, at: r.ts, source: r.source };
      // a row of an older ledger may hold the id as the operator typed it: normalised as it is read
      const market = bytes32Of(r.market);
      if (r.action === 'halt') halt = hold;
      else if (r.action === 'pause' && r.market) {
        if (market) pauses.set(market, hold);
      } else if (r.action === 'resume' && r.market) {
        if (market) pauses.delete(market);
      } else if (r.action === 'resume') {
        halt = null;
        pauses.clear();
      }
    }
    return { halt, pauses };
  }

  /** The holds the latch file keeps (none for an in-memory ledger; a damaged file reads as halted). */
  fileHolds(): FileHolds {
    return this.file ? readLatchRecord(this.path) : { halt: null, pauses: new Map() };
  }

  /**
   * The operator's halt and pauses still in force: the ledger's (ledgerHolds) OR the latch file's
   * (either says halted: halted; a pause in either: paused), each marked with the record it came from.
   * A restarted bot applies them before its first quote, also on a new ledger (`run --new-ledger`).
   */
  operatorHolds(): OperatorHolds {
    if (!this.file) return this.ledgerHolds();
    const db = this.ledgerHolds();
    const f = this.fileHolds();
    const pauses = new Map<Bytes32, OperatorHold>();
    for (const m of new Set([...db.pauses.keys(), ...f.pauses.keys()])) pauses.set(m, eitherHold(db.pauses.get(m), f.pauses.get(m))!);
    return { halt: eitherHold(db.halt, f.halt), pauses };
  }

  /**
   * The sequence of the last operator clear of the kill switch (its operator_actions id; 0 when none).
   * A bot that read one sequence and finds a higher one was cleared by someone else and must not
   * write its own figures over the clear (BotLedger.markNow).
   */
  lastClearSeq(): number {
    const r = this.db.prepare("SELECT MAX(id) AS id FROM operator_actions WHERE action = 'clear-kill'").get() as { id: number | null } | undefined;
    return r?.id ?? 0;
  }

  meta(key: string): string | null {
    const r = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /**
   * Per order nonce, the order's filled shares as far as the ledger accounts for them: its baseline
   * (fills from before the ledger met it) plus the fills recorded since.
   */
  filledByNonce(): Map<Bytes32, number> {
    const out = new Map<Bytes32, number>();
    for (const r of this.db.prepare('SELECT nonce, filled FROM fill_baselines').all() as { nonce: Bytes32; filled: number }[]) out.set(r.nonce, r.filled);
    const rows = this.db.prepare('SELECT nonce, SUM(size) AS filled FROM fills WHERE nonce IS NOT NULL GROUP BY nonce').all() as {
      nonce: Bytes32;
      filled: number;
    }[];
    for (const r of rows) out.set(r.nonce, (out.get(r.nonce) ?? 0) + r.filled);
    return out;
  }

  /**
   * filledByNonce for the given orders only (the catch-up's: the open, recent and unfinished ones), by
   * index lookups: an order is in the map when it has a baseline or a recorded fill, as there.
   */
  filledFor(nonces: Iterable<Bytes32>): Map<Bytes32, number> {
    const out = new Map<Bytes32, number>();
    const base = this.db.prepare('SELECT filled FROM fill_baselines WHERE nonce = ?');
    const fills = this.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS filled FROM fills WHERE nonce = ?');
    for (const k of nonces) {
      if (out.has(k)) continue;
      const b = base.get(k) as { filled: number } | undefined;
      const f = fills.get(k) as { n: number; filled: number };
      if (b !== undefined || f.n > 0) out.set(k, (b?.filled ?? 0) + f.filled);
    }
    return out;
  }

  /**
   * filledFor with the collateral of those shares as the books hold it (1e-6 USDC in the order's own
   * outcome: a fill's `notional`, else ⌈p·n⌉ paid by a buy, ⌊p·n⌋ received by a sale); null when part of
   * the order is history (a baseline: fills from before the ledger met it, at prices it never saw).
   * The next part of an order's fills is derived from it (src/feeds/fill-part.ts).
   */
  accountedFor(nonces: Iterable<Bytes32>): Map<Bytes32, { filled: number; cost: number | null }> {
    const out = new Map<Bytes32, { filled: number; cost: number | null }>();
    const base = this.db.prepare('SELECT filled FROM fill_baselines WHERE nonce = ?');
    const fills = this.db.prepare(
      `SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS filled,
         COALESCE(SUM(COALESCE(notional, CASE WHEN side = 0 THEN (price * size + 999999) / 1000000 ELSE (price * size) / 1000000 END)), 0) AS cost
       FROM fills WHERE nonce = ?`,
    );
    for (const k of nonces) {
      if (out.has(k)) continue;
      const b = base.get(k) as { filled: number } | undefined;
      const f = fills.get(k) as { n: number; filled: number; cost: number };
      if (b !== undefined || f.n > 0) out.set(k, { filled: (b?.filled ?? 0) + f.filled, cost: b !== undefined && b.filled > 0 ? null : f.cost });
    }
    return out;
  }

  /** Fills of an order from before the ledger met it: accounted as history, never as fills. */
  fillBaseline(nonce: Bytes32, filled: number): void {
    this.flush();
    this.db.prepare('INSERT INTO fill_baselines (nonce, filled, ts) VALUES (?, ?, ?) ON CONFLICT(nonce) DO NOTHING').run(nonce, filled, this.clock.now());
  }

  /**
   * This ledger's order-nonce tag: 16 hex digits, drawn once when the ledger is first written and kept
   * in its meta table. Every nonce the bot signs while this ledger is open begins with it
   * (src/orders/nonces.ts), so an order whose record a crash lost (sent, then `kill -9` before the
   * batched write) is still known as this bookmaker's by its nonce alone. Null on a read-only ledger
   * that never had one. `draw` gives the tag of a ledger that has none yet (a sharded bot's: its shard's
   * tag, src/runtime/shard-tags.ts); a random one otherwise.
   */
  nonceTag(draw: () => string = () => randomBytes(8).toString('hex')): string | null {
    const have = this.meta('nonce_tag');
    if (have !== null && /^[0-9a-f]{16}$/.test(have)) return have;
    if (this.db.readonly) return null;
    const drawn = draw();
    const tag = /^[0-9a-f]{16}$/.test(drawn) ? drawn : randomBytes(8).toString('hex');
    this.setMeta('nonce_tag', tag);
    this.tag = tag;
    return tag;
  }

  /** Does the nonce carry this ledger's tag (an order this bookmaker signed, recorded or not)? */
  isTagged(nonce: Bytes32): boolean {
    if (this.tag === undefined) this.tag = this.meta('nonce_tag');
    return this.tag !== null && nonce.length === 66 && nonce.slice(2, 18) === this.tag;
  }
  private tag: string | null | undefined;

  /**
   * Orders this ledger saw placed or adopted (for telling own fills from foreign ones), lower-case nonces.
   * A stranger's row (`stranger_at`: found at the venue with no record here, taken in only to be cancelled)
   * is not one: it is another trader's, or a crash's, which `isTagged` tells.
   */
  hasOrder(nonce: Bytes32): boolean {
    this.flush();
    return this.db.prepare('SELECT 1 FROM orders WHERE nonce = ? AND stranger_at IS NULL').get(nonce) !== undefined;
  }

  /** Record the baseline (inherited inventory), at once and in one transaction. Refused when one exists. */
  adoptBaseline(b: Baseline): void {
    this.flush();
    this.db.transaction(() => {
      if (this.baseline() !== null) throw new Error('the ledger already has a baseline');
      const ins = this.db.prepare('INSERT INTO baseline (kind, market_id, outcome, shares, mark, marked_at) VALUES (?, ?, ?, ?, ?, ?)');
      ins.run('collateral', null, -1, b.collateral.toString(), null, b.at);
      for (const h of b.holdings) ins.run('holding', h.marketId, h.outcomeIndex, h.shares.toString(), h.mark, b.at);
    })();
  }

  /**
   * A market resolved: one YES share pays `payoutYes` (1e-6 USDC). Written at once (rare). A payout
   * already recorded is kept, unless the venue states another (then the new one stands).
   */
  resolution(marketId: Bytes32, payoutYes: number, at: number): void {
    this.db
      .prepare(
        'INSERT INTO resolutions (market_id, payout_yes, resolved_at) VALUES (?, ?, ?) ON CONFLICT(market_id) DO UPDATE SET payout_yes = excluded.payout_yes WHERE payout_yes != excluded.payout_yes',
      )
      .run(marketId, payoutYes, at);
  }

  /** A resolved market's tokens were claimed (the first claim's time is kept). */
  claim(marketId: Bytes32, at: number): void {
    this.db.prepare('UPDATE resolutions SET claimed_at = ? WHERE market_id = ? AND claimed_at IS NULL').run(at, marketId);
  }

  /** Every recorded resolution, in the order they were resolved. */
  resolutions(): { marketId: Bytes32; payoutYes: number; resolvedAt: number; claimedAt: number | null }[] {
    const rows = this.db.prepare('SELECT market_id, payout_yes, resolved_at, claimed_at FROM resolutions ORDER BY resolved_at, market_id').all() as {
      market_id: Bytes32;
      payout_yes: number;
      resolved_at: number;
      claimed_at: number | null;
    }[];
    return rows.map((r) => ({ marketId: r.market_id, payoutYes: r.payout_yes, resolvedAt: r.resolved_at, claimedAt: r.claimed_at }));
  }

  /** The baseline adopted at the ledger's first start, or null (a ledger started on a wallet with no history). */
  baseline(): Baseline | null {
    const rows = this.db.prepare('SELECT id, kind, market_id, outcome, shares, mark, marked_at FROM baseline ORDER BY id').all() as {
      id: number;
      kind: string;
      market_id: string | null;
      outcome: number;
      shares: string;
      mark: number | null;
      marked_at: number;
    }[];
    if (rows.length === 0) return null;
    let collateral = 0n;
    const holdings: BaselineHolding[] = [];
    for (const r of rows) {
      if (r.kind === 'collateral') collateral = BigInt(r.shares);
      else {
        // a holding row is written with its market's id (adoptBaseline): one without is a damaged file
        const marketId = bytes32Of(r.market_id);
        if (marketId === null)
          throw new LedgerDamagedError(this.path, [`baseline row ${r.id}: a holding without a market id (${JSON.stringify(r.market_id)})`]);
        holdings.push({ marketId, outcomeIndex: r.outcome, shares: BigInt(r.shares), mark: r.mark });
      }
    }
    return { at: rows[0]!.marked_at, collateral, holdings };
  }

  /** The last time the books show the bot alive: its last mark, fill or start-up (0 when none). */
  lastSignOfLife(): number {
    this.flush();
    const q = (sql: string): number => (this.db.prepare(sql).get() as { t: number | null } | undefined)?.t ?? 0;
    return Math.max(q('SELECT MAX(ts) AS t FROM marks'), q('SELECT MAX(ts) AS t FROM fills'), q('SELECT MAX(ts) AS t FROM startups'));
  }

  /** When the ledger began: its first start-up (null before one). */
  firstStartup(): number | null {
    return (this.db.prepare('SELECT MIN(ts) AS t FROM startups').get() as { t: number | null }).t;
  }

  /** Is there any record at all (a ledger that never started is fresh)? */
  isFresh(): boolean {
    return this.lastStartup() === null;
  }

  /** Orders the ledger saw sent or adopted and never saw end (a crash leaves some). */
  unendedOrders(): { nonce: Bytes32; marketId: Bytes32 }[] {
    return this.db.prepare("SELECT nonce, market_id AS marketId FROM orders WHERE ended_at IS NULL AND status != 'rejected'").all() as {
      nonce: Bytes32;
      marketId: Bytes32;
    }[];
  }

  /** Time of the first start-up, and of the last one before this (null when none). */
  lastStartup(): { id: number; ts: number } | null {
    return (this.db.prepare('SELECT id, ts FROM startups ORDER BY id DESC LIMIT 1').get() as { id: number; ts: number } | undefined) ?? null;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      this.queue = [];
      if (this.db.open) {
        try {
          if (this.path !== ':memory:' && !this.db.readonly) this.db.pragma('wal_checkpoint(TRUNCATE)');
        } catch {
          // another reader holds the WAL: the checkpoint happens on a later close
        }
        this.db.close();
      }
      this.lock?.release();
    }
  }
}

export function openLedger(o: LedgerOptions): Ledger {
  return new Ledger(o);
}
