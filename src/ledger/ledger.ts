/**
 * The ledger: a SQLite file (better-sqlite3, WAL) that outlives the process (issue 16).
 *
 *   const ledger = openLedger({ path, clock, logger });   // ':memory:' for a throwaway one
 *   ledger.orderSubmitted(e) / orderAnswered(…) / cancel(…) / fill(f) / mark(…) / riskEvent(…)
 *   ledger.setLatch(reason, detail) / clearLatch(reason, source)   // written at once (synchronous)
 *   ledger.flush()      // write what is queued now (also runs every `flushMs` on the clock)
 *   ledger.close()      // flush, checkpoint, close
 *
 * Hot path: the record methods only push a small array onto a queue; the queue is written in one
 * transaction every `flushMs` (default 200 ms) or as soon as it holds `maxBatch` records, so a tick
 * never waits on the disk. A record of the kill-switch latch, a start-up or an operator action is
 * written at once: those must survive a crash that comes right after them.
 *
 * Durability: WAL with `synchronous = NORMAL` — a committed transaction survives a process crash
 * (kill -9); a power loss may lose the last transactions but never corrupts the file. Fills lost
 * that way are fetched again from the venue at the next start (continuity.ts), and a fill is keyed
 * by its venue identity (`fill_id`, unique), so fetching one twice records it once.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { acquireLedgerLock, createPrivate, type LedgerLock } from './ledger-lock.ts';
import { migrate } from './schema.ts';

export interface LedgerFill {
  readonly fillId: string;
  readonly nonce: string | null;
  readonly marketId: string;
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
}

export interface LedgerOrder {
  readonly nonce: string;
  readonly marketId: string;
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

/** An operator's halt or pause as the ledger holds it (issue 22: they outlive the process). */
export interface OperatorHold {
  readonly reason: string | null;
  /** ms since the epoch */
  readonly at: number;
  /** 'admin' (the endpoint), 'cli' (an offline ctl) */
  readonly source: string;
}

/** The halt and the per-market pauses in force: every halt, pause and resume replayed in order. */
export interface OperatorHolds {
  readonly halt: OperatorHold | null;
  /** lower-case market id → its pause */
  readonly pauses: ReadonlyMap<string, OperatorHold>;
}

export interface StartupRecord {
  readonly configHash: string;
  readonly configFile: string;
  readonly venue: string;
  readonly trader: string;
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
  /** …or as soon as it holds this many records (default 2 000) */
  readonly maxBatch?: number;
  /** open an existing file only (the CLI readers never create one) */
  readonly mustExist?: boolean;
  readonly readonly?: boolean;
  /**
   * take the ledger's write lock (default: every writable file ledger does; see ledger-lock.ts): a
   * second writer on the same file is refused with LedgerLockedError naming the holder
   */
  readonly lock?: boolean;
}

/** A queued write: a statement key and its parameters. */
type Rec = [Stmt, unknown[]];
type Stmt = 'order' | 'adopt' | 'orderAgain' | 'answer' | 'ended' | 'cancel' | 'fill' | 'mark' | 'risk';

const SQL: Record<Stmt, string> = {
  order: `INSERT INTO orders (nonce, market_id, slot, outcome, side, price, size, submitted_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'submitted')
          ON CONFLICT(nonce) DO UPDATE SET sends = sends + 1`,
  adopt: `INSERT INTO orders (nonce, market_id, slot, outcome, side, price, size, submitted_at, status, sends) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'adopted', 0)
          ON CONFLICT(nonce) DO NOTHING`,
  orderAgain: `UPDATE orders SET sends = sends + 1 WHERE nonce = ?`,
  answer: `UPDATE orders SET status = CASE WHEN ended_at IS NULL THEN ? ELSE status END, answer = ?, answered_at = ? WHERE nonce = ?`,
  ended: `UPDATE orders SET status = ?, ended_at = ? WHERE nonce = ? AND ended_at IS NULL`,
  cancel: `INSERT INTO cancels (nonce, market_id, ts, result, detail) VALUES (?, ?, ?, ?, ?)`,
  fill: `INSERT OR IGNORE INTO fills (fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, filled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  mark: `INSERT INTO marks (ts, market_id, net, realised, unrealised, pnl) VALUES (?, ?, ?, ?, ?, ?)`,
  risk: `INSERT INTO risk_events (ts, market_id, kind, reason, count, detail) VALUES (?, ?, ?, ?, ?, ?)`,
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
  private closed = false;
  private readonly writeBatch: (recs: Rec[]) => void;
  /** records written, and batches (transactions), since open */
  written = 0;
  batches = 0;
  /** records that could not be written (logged; the queue is kept for the next try up to a bound) */
  failures = 0;

  constructor(o: LedgerOptions) {
    this.path = o.path;
    this.clock = o.clock;
    this.log = (o.logger ?? silentLogger).child({ component: 'ledger' });
    this.flushMs = o.flushMs ?? 200;
    this.maxBatch = o.maxBatch ?? 2_000;
    const file = o.path !== ':memory:';
    if (file && !o.mustExist) mkdirSync(dirname(o.path), { recursive: true });
    // one writer per file: the lock first, so a refused second writer has touched nothing
    const wantLock = file && !o.readonly && o.lock !== false && (!o.mustExist || existsSync(o.path));
    this.lock = wantLock ? acquireLedgerLock(o.path, this.clock.now()) : null;
    let db: Database.Database | null = null;
    try {
      // created 0600 (the WAL and shared-memory files SQLite creates take the same mode)
      if (file && !o.mustExist && !o.readonly) createPrivate(o.path);
      db = new Database(o.path, { fileMustExist: o.mustExist ?? false, readonly: o.readonly ?? false });
      db.pragma('busy_timeout = 5000');
      if (!o.readonly) {
        if (file) db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        migrate(db);
      }
    } catch (e) {
      db?.close();
      this.lock?.release();
      throw e;
    }
    this.db = db;
    this.writeBatch = this.db.transaction((recs: Rec[]) => {
      for (const [k, args] of recs) this.stmt(k).run(...args);
    });
  }

  private stmt(k: Stmt): Database.Statement {
    let s = this.stmts.get(k);
    if (!s) this.stmts.set(k, (s = this.db.prepare(SQL[k])));
    return s;
  }

  private push(r: Rec): void {
    if (this.closed) return;
    this.queue.push(r);
    if (this.queue.length >= this.maxBatch) this.flush();
    else if (!this.cancelTimer) this.cancelTimer = this.clock.setTimeout(() => {
      this.cancelTimer = null;
      this.flush();
    }, this.flushMs);
  }

  /** Write every queued record in one transaction. A failure is logged and the batch kept for the next try. */
  flush(): void {
    if (this.cancelTimer) {
      this.cancelTimer();
      this.cancelTimer = null;
    }
    if (this.queue.length === 0 || !this.db.open) return;
    const batch = this.queue;
    this.queue = [];
    try {
      this.writeBatch(batch);
      this.written += batch.length;
      this.batches++;
    } catch (e) {
      this.failures++;
      this.log.error({ err: (e as Error).message, records: batch.length }, 'ledger write failed; retrying with the next batch');
      // keep what failed, bounded: a disk that stays broken must not eat the heap
      this.queue = batch.length + this.queue.length <= 200_000 ? [...batch, ...this.queue] : this.queue;
      if (!this.cancelTimer && !this.closed) this.cancelTimer = this.clock.setTimeout(() => {
        this.cancelTimer = null;
        this.flush();
      }, Math.max(1_000, this.flushMs));
    }
  }

  get pending(): number {
    return this.queue.length;
  }

  // ---- records (queued) ----

  orderSubmitted(o: LedgerOrder, retry: boolean): void {
    if (retry) this.push(['orderAgain', [o.nonce.toLowerCase()]]);
    else this.push(['order', [o.nonce.toLowerCase(), o.marketId.toLowerCase(), o.slot, o.outcomeIndex, o.side, o.price, o.size, o.ts]]);
  }

  /** An order of ours found at the venue by reconciliation (sent by an earlier run, or its record lost). */
  orderAdopted(o: LedgerOrder): void {
    this.push(['adopt', [o.nonce.toLowerCase(), o.marketId.toLowerCase(), o.slot, o.outcomeIndex, o.side, o.price, o.size, o.ts]]);
  }

  /**
   * The venue's answer to a create: 'accepted' (answer 'created', or 'duplicate': a 409 says an
   * earlier send placed it), 'rejected' (refused for good), or 'unknown' (the answer was lost: it may
   * have landed; the catch-up and reconciliation settle it).
   */
  orderAnswered(nonce: string, status: 'accepted' | 'rejected' | 'unknown', answer: string, ts: number): void {
    this.push(['answer', [status, answer, ts, nonce.toLowerCase()]]);
  }

  /** The order left the book (cancelled, gone, closed at the venue). */
  orderEnded(nonce: string, status: string, ts: number): void {
    this.push(['ended', [status, ts, nonce.toLowerCase()]]);
  }

  cancel(nonce: string, marketId: string, result: 'sent' | 'cancelled' | 'already-cancelled' | 'failed', detail: string | null, ts: number): void {
    this.push(['cancel', [nonce.toLowerCase(), marketId.toLowerCase(), ts, result, detail]]);
  }

  fill(f: LedgerFill): void {
    this.push(['fill', [f.fillId, f.nonce?.toLowerCase() ?? null, f.marketId.toLowerCase(), f.outcomeIndex, f.side, f.price, f.size, f.fee, f.ts, f.source, f.filled ?? null]]);
  }

  /** A PnL mark: per market, or the account's (marketId null). Money in 1e-6 USDC. */
  mark(ts: number, marketId: string | null, net: number, realised: bigint, unrealised: bigint): void {
    this.push(['mark', [ts, marketId?.toLowerCase() ?? null, net, realised.toString(), unrealised.toString(), (realised + unrealised).toString()]]);
  }

  riskEvent(ts: number, marketId: string | null, kind: string, reason: string, count: number, detail: string | null): void {
    this.push(['risk', [ts, marketId?.toLowerCase() ?? null, kind, reason, count, detail]]);
  }

  // ---- records written at once ----

  /** The peak and the day's opening PnL (one row, rewritten): written with the queue. */
  saveRiskFigures(peakPnl: bigint | null, day: number | null, dayStartPnl: bigint | null): void {
    this.flush();
    this.db.prepare('UPDATE risk_state SET peak_pnl = ?, day = ?, day_start_pnl = ?, updated_at = ? WHERE id = 1').run(peakPnl?.toString() ?? null, day, dayStartPnl?.toString() ?? null, this.clock.now());
  }

  /** Latch the kill switch (at once, durable before this returns). The first reason is kept. */
  setLatch(reason: string, detail: string, marketId: string | null): void {
    this.flush();
    const now = this.clock.now();
    this.db.transaction(() => {
      this.db.prepare('UPDATE risk_state SET latch_reason = ?, latch_detail = ?, latch_at = ?, updated_at = ? WHERE id = 1 AND latch_reason IS NULL').run(reason, detail, now, now);
      this.stmt('risk').run(now, marketId?.toLowerCase() ?? null, 'kill', reason, 1, detail);
    })();
  }

  /**
   * Clear the latch (operator). The drawdown peak and the day's opening PnL are reset so the cleared
   * bot measures from where it stands; the loss since inception is not reset (it is the books).
   * Returns the latch that was cleared, or null when none was set.
   */
  clearLatch(reason: string, source: string): RiskSnapshot['latch'] {
    this.flush();
    const now = this.clock.now();
    return this.db.transaction(() => {
      const was = this.risk().latch;
      this.db.prepare('UPDATE risk_state SET latch_reason = NULL, latch_detail = NULL, latch_at = NULL, peak_pnl = NULL, day = NULL, day_start_pnl = NULL, updated_at = ? WHERE id = 1').run(now);
      this.stmt('risk').run(now, null, 'clear', was?.reason ?? 'none', 1, reason);
      this.insertAction(now, 'clear-kill', null, reason, source, was ? `cleared ${was.reason}` : 'no latch was set');
      return was;
    })();
  }

  operatorAction(action: string, market: string | null, reason: string | null, source: string, result: string): void {
    this.flush();
    this.insertAction(this.clock.now(), action, market, reason, source, result);
  }

  private insertAction(ts: number, action: string, market: string | null, reason: string | null, source: string, result: string): void {
    this.db.prepare('INSERT INTO operator_actions (ts, action, market, reason, source, result) VALUES (?, ?, ?, ?, ?, ?)').run(ts, action, market, reason, source, result);
  }

  startup(s: StartupRecord, caughtUp: number): number {
    this.flush();
    const r = this.db
      .prepare('INSERT INTO startups (ts, config_hash, config_file, venue, trader, markets, latched, caught_up) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(this.clock.now(), s.configHash, s.configFile, s.venue, s.trader.toLowerCase(), s.markets, s.latched, caughtUp);
    return Number(r.lastInsertRowid);
  }

  // ---- reads ----

  risk(): RiskSnapshot {
    const r = this.db.prepare('SELECT latch_reason, latch_detail, latch_at, peak_pnl, day, day_start_pnl FROM risk_state WHERE id = 1').get() as
      | { latch_reason: string | null; latch_detail: string | null; latch_at: number | null; peak_pnl: string | null; day: number | null; day_start_pnl: string | null }
      | undefined;
    if (!r) return { latch: null, peakPnl: null, day: null, dayStartPnl: null };
    return {
      latch: r.latch_reason ? { reason: r.latch_reason, detail: r.latch_detail ?? '', at: r.latch_at ?? 0 } : null,
      peakPnl: r.peak_pnl === null ? null : BigInt(r.peak_pnl),
      day: r.day,
      dayStartPnl: r.day_start_pnl === null ? null : BigInt(r.day_start_pnl),
    };
  }

  /**
   * The operator's halt and pauses still in force (issue 22): the halt, pause and resume actions
   * replayed in order (`resume` without a market lifts the halt and every pause). A restarted bot
   * applies them before its first quote.
   */
  operatorHolds(): OperatorHolds {
    let halt: OperatorHold | null = null;
    const pauses = new Map<string, OperatorHold>();
    const rows = this.db.prepare("SELECT ts, action, market, reason, source FROM operator_actions WHERE action IN ('halt', 'pause', 'resume') ORDER BY id").all() as { ts: number; action: string; market: string | null; reason: string | null; source: string }[];
    for (const r of rows) {
      const hold = { reason: r.reason, at: r.ts, source: r.source };
      if (r.action === 'halt') halt = hold;
      else if (r.action === 'pause' && r.market) pauses.set(r.market.toLowerCase(), hold);
      else if (r.action === 'resume' && r.market) pauses.delete(r.market.toLowerCase());
      else if (r.action === 'resume') {
        halt = null;
        pauses.clear();
      }
    }
    return { halt, pauses };
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
  filledByNonce(): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.db.prepare('SELECT nonce, filled FROM fill_baselines').all() as { nonce: string; filled: number }[]) out.set(r.nonce, r.filled);
    const rows = this.db.prepare('SELECT nonce, SUM(size) AS filled FROM fills WHERE nonce IS NOT NULL GROUP BY nonce').all() as { nonce: string; filled: number }[];
    for (const r of rows) out.set(r.nonce, (out.get(r.nonce) ?? 0) + r.filled);
    return out;
  }

  /** Fills of an order from before the ledger met it: accounted as history, never as fills. */
  fillBaseline(nonce: string, filled: number): void {
    this.flush();
    this.db.prepare('INSERT INTO fill_baselines (nonce, filled, ts) VALUES (?, ?, ?) ON CONFLICT(nonce) DO NOTHING').run(nonce.toLowerCase(), filled, this.clock.now());
  }

  /** Is there any record at all (a ledger that never started is fresh)? */
  isFresh(): boolean {
    return this.lastStartup() === null;
  }

  /** Orders the ledger saw sent or adopted and never saw end (a crash leaves some). */
  unendedOrders(): { nonce: string; marketId: string }[] {
    return (this.db.prepare("SELECT nonce, market_id AS marketId FROM orders WHERE ended_at IS NULL AND status != 'rejected'").all() as { nonce: string; marketId: string }[]);
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
