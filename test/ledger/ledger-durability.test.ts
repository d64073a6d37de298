/**
 * A ledger that cannot be lost or silently damaged: safety records commit with a full
 * sync, a latch the ledger cannot take is kept in the fsynced latch file (disk full, file deleted,
 * I/O error) and read back at the next open, a damaged page refuses the open, writes that fail or a
 * file deleted under the process are reported as a problem, and the WAL is checkpointed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withTmpLedger } from './tmp-ledger.ts';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import { fullIntegrityCheck, isDamage, LedgerDamagedError } from '../../src/ledger/integrity.ts';
import { replayPositions } from '../../src/ledger/books.ts';
import { LATCH_FILE_BYTES, latchPathOf, readLatchFile } from '../../src/ledger/latch-file.ts';
import { createLogger } from '../../src/core/logger.ts';
import { FAILURE_LOG_MS, openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { TRADER } from '../support/venue-order.ts';

const T0 = 1_800_000_000_000;
const M = ('0x' + '11'.repeat(32)) as Bytes32;

function clockAt(): Clock & { t: number } {
  const c = { t: T0, now: () => c.t, scheduler: asyncScheduler, setTimeout: () => () => undefined };
  return c;
}

function marks(l: Ledger, n: number, t = T0): void {
  for (let i = 0; i < n; i++) l.mark(t + i, M, i, BigInt(i) * 1_000_000n, 0n);
  l.flush();
}

test('latch, clear, operator actions and start-ups commit with synchronous = FULL; the batch stays NORMAL', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    const seen: string[] = [];
    const pragma = l.db.pragma.bind(l.db);
    (l.db as { pragma: unknown }).pragma = (p: string, o?: unknown) => {
      if (p.startsWith('synchronous')) seen.push(p);
      return pragma(p, o as never);
    };
    const during: Record<string, string> = {};
    const probe = (name: string, fn: () => void): void => {
      seen.length = 0;
      fn();
      during[name] = seen.join(',');
    };
    probe('latch', () => l.setLatch('KILL_DRAWDOWN', 'd', null));
    probe('clear', () => l.clearLatch('ok', 'cli'));
    probe('action', () => l.operatorAction('halt', null, 'r', 'admin', 'halted'));
    probe('startup', () => l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0));
    probe('batch', () => marks(l, 10));
    assert.deepEqual(during, {
      latch: 'synchronous = FULL,synchronous = NORMAL',
      clear: 'synchronous = FULL,synchronous = NORMAL',
      action: 'synchronous = FULL,synchronous = NORMAL',
      startup: 'synchronous = FULL,synchronous = NORMAL',
      batch: '',
    });
    assert.equal(l.db.pragma('synchronous', { simple: true }), 1, 'back to NORMAL');
    l.close();
  });
});

test('a latch the ledger cannot take (I/O error) is kept in the fsynced latch file and read back at the next open', () => {
  withTmpLedger((t) => {
    let l = openLedger({ path: t.file, clock: clockAt() });
    assert.equal(statSync(latchPathOf(t.file)).size, LATCH_FILE_BYTES, 'created at open, full size');
    assert.equal(statSync(latchPathOf(t.file)).mode & 0o777, 0o600);
    assert.equal(readLatchFile(t.file), null);
    // every statement now fails, as on an I/O error
    (l.db as { prepare: unknown }).prepare = () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    };
    l.setLatch('KILL_DAILY_LOSS', 'lost 60 today', M);
    assert.equal(l.latchInFileOnly, true);
    assert.deepEqual(readLatchFile(t.file), { reason: 'KILL_DAILY_LOSS', detail: 'lost 60 today', at: T0 });
    assert.match(l.problem()?.reason ?? '', /writes fail: disk I\/O error/);
    l.lock!.release();
    l = openLedger({ path: t.file, clock: clockAt() });
    assert.equal(l.risk().latch?.reason, 'KILL_DAILY_LOSS', 'a start sees the latch');
    assert.equal(l.risk(false).latch?.reason, 'KILL_DAILY_LOSS', 'and copied it into the ledger');
    assert.equal(l.clearLatch('reviewed', 'cli')?.reason, 'KILL_DAILY_LOSS');
    assert.equal(readLatchFile(t.file), null, 'a clear clears both');
    assert.equal(l.risk().latch, null);
    l.close();
  });
});

test('writes that keep failing are counted every time and logged at once, then one summary line per interval', () => {
  withTmpLedger((t) => {
    const lines: Array<{ msg: string; failures?: number; seconds?: number }> = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
    const clock = clockAt();
    const l = openLedger({ path: t.file, clock, logger });
    (l.db as { prepare: unknown }).prepare = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    const failing = () => lines.filter((x) => /ledger write/.test(x.msg));
    // a full disk: a retry every 400 ms for 75 s (the audit saw ~2.5 lines a second)
    l.mark(T0, M, 1, 1_000_000n, 0n);
    l.flush();
    for (let i = 0; i < 187; i++) {
      clock.t += 400;
      l.retryWrites();
    }
    assert.equal(l.failures, 188, 'every failure counted (bookmaker_ledger_write_failures)');
    const shown = failing();
    assert.equal(shown[0]?.msg, 'ledger write failed; retrying with the next batch', 'the first at once');
    assert.equal(shown.length, 1 + Math.floor((187 * 400) / FAILURE_LOG_MS), shown.map((x) => x.msg).join(' | '));
    assert.equal(shown[1]?.msg, 'ledger writes still failing; retrying');
    assert.equal(shown[1]?.failures, FAILURE_LOG_MS / 400, 'the failures since the last line');
    assert.equal(shown[1]?.seconds, FAILURE_LOG_MS / 1000);
    assert.equal(
      shown.slice(1).reduce((a, x) => a + (x.failures ?? 0), 0) + (l as unknown as { failedUnlogged: number }).failedUnlogged,
      187,
      'the summaries and what is pending add up to every failure after the first',
    );
    l.lock!.release();
  });
});

test('either record latched is latched: a latch file that says latched, or cannot be read, latches', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    l.close();
    writeFileSync(latchPathOf(t.file), 'garbage');
    const r = openLedger({ path: t.file, clock: clockAt(), mustExist: true, readonly: true });
    assert.equal(r.risk().latch?.reason, 'LATCH_FILE_DAMAGED');
    r.close();
  });
});

test('a ledger deleted while running: reported as a problem; a latch then goes to the latch file, and a fresh ledger at the path is latched', () => {
  withTmpLedger((t) => {
    const clock = clockAt();
    const l = openLedger({ path: t.file, clock });
    marks(l, 10);
    assert.equal(l.problem(), null);
    for (const f of [t.file, `${t.file}-wal`, `${t.file}-shm`]) rmSync(f, { force: true });
    clock.t += 5_000;
    const p = l.problem();
    assert.equal(p?.since, T0 + 5_000);
    assert.match(p?.reason ?? '', /is gone \(ENOENT\): deleted while the bot runs/);
    l.setLatch('KILL_DRAWDOWN', 'dd', null);
    assert.equal(l.latchInFileOnly, true, 'the ledger write landed in an unlinked file: not counted as recorded');
    l.lock!.release();
    const again = openLedger({ path: t.file, clock });
    assert.equal(again.risk().latch?.reason, 'KILL_DRAWDOWN');
    again.close();
  });
});

test('a ledger replaced or emptied while running is reported', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    writeFileSync(t.file, ''); // `: > file`
    assert.match(l.problem()?.reason ?? '', /was emptied/);
    rmSync(t.file);
    writeFileSync(t.file, 'x');
    assert.match(l.problem()?.reason ?? '', /was replaced/);
    l.lock!.release();
  });
});

/** Overwrite bytes in the middle of the given table's root page (a damaged page). */
function damage(file: string, table: string): void {
  const db = new Database(file, { readonly: true });
  const root = (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as { rootpage: number }).rootpage;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(200, 0xa5), 0, 200, (root - 1) * pageSize + 8);
  closeSync(fd);
}

test('a damaged page refuses the open, naming the file and the recovery; a full check finds it too', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    marks(l, 3_000);
    l.close();
    const copy = join(t.dir, 'copy.sqlite');
    writeFileSync(copy, readFileSync(t.file));
    damage(copy, 'marks');
    assert.throws(
      () => openLedger({ path: copy, clock: clockAt() }),
      (e: unknown) =>
        e instanceof LedgerDamagedError &&
        e.message.includes(copy) &&
        /restore the last backup/.test(e.message) &&
        /--new-ledger/.test(e.message) &&
        /ledger check/.test(e.message),
    );
    const ro = new Database(copy, { readonly: true });
    assert.equal(fullIntegrityCheck(ro).ok, false);
    ro.close();
    // the undamaged original opens
    openLedger({ path: t.file, clock: clockAt() }).close();
  });
});

test('the WAL is checkpointed into the main file while writing (a kill -9 leaves a main file that holds the books)', () => {
  withTmpLedger((t) => {
    const clock = clockAt();
    const l = openLedger({ path: t.file, clock, checkpointMs: 60_000 });
    const before = statSync(t.file).size;
    marks(l, 5_000);
    assert.equal(statSync(t.file).size, before, 'not before the interval');
    clock.t += 60_000;
    marks(l, 1, clock.t);
    assert.ok(statSync(t.file).size > before + 100_000, `main file ${statSync(t.file).size} B after the checkpoint`);
    l.lock!.release();
  });
});

const root = typeof process.getuid === 'function' && process.getuid() === 0;

test('disk full (a 4 MB tmpfs): writes fail and are reported, the latch lands in the latch file, and writes resume once space is freed', {
  skip: root ? false : 'needs root to mount a tmpfs (the injected I/O error test covers the rest)',
}, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ledger-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    t.skip(`tmpfs mount refused: ${(e as Error).message.split('\n')[0]}`);
    return;
  }
  try {
    const file = join(dir, 'l.sqlite');
    const clock = clockAt();
    const l = openLedger({ path: file, clock, checkpointMs: 1e12 });
    marks(l, 10);
    // fill the disk
    const filler = join(dir, 'filler');
    const fd = openSync(filler, 'w');
    try {
      for (;;) writeSync(fd, Buffer.alloc(64 * 1024));
    } catch {
      // ENOSPC
    }
    try {
      for (;;) writeSync(fd, Buffer.alloc(512));
    } catch {
      // ENOSPC
    }
    closeSync(fd);
    clock.t += 1_000;
    marks(l, 2_000, clock.t);
    assert.ok(l.pending > 0, 'the batch is kept');
    assert.match(l.problem()?.reason ?? '', /writes fail: .*(full|disk)/i);
    assert.equal(l.problem()?.since, clock.t);
    l.setLatch('KILL_LOSS', 'loss', null);
    assert.equal(readLatchFile(file)?.reason, 'KILL_LOSS', 'the latch file took it on a full disk');
    rmSync(filler);
    clock.t += 1_000;
    l.flush();
    assert.equal(l.pending, 0);
    assert.equal(l.problem(), null, 'writes succeed again');
    l.close();
    const again = openLedger({ path: file, clock });
    assert.equal(again.risk().latch?.reason, 'KILL_LOSS');
    again.close();
  } finally {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a ledger from before the latch file gets one with its latch at the next open', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    l.setLatch('KILL_LOSS', 'x', null);
    l.close();
    rmSync(latchPathOf(t.file));
    openLedger({ path: t.file, clock: clockAt() }).close();
    assert.equal(readLatchFile(t.file)?.reason, 'KILL_LOSS');
    assert.ok(existsSync(latchPathOf(t.file)));
  });
});

test("damage in a large fills table the open check leaves to `ledger check` is found by the start's replay, as damage", () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: clockAt() });
    for (let i = 0; i < 60_000; i++)
      l.fill({ fillId: `f${i}`, nonce: null, marketId: M, outcomeIndex: 1, side: i & 1, price: 500_000, size: 1_000_000, fee: 0, ts: T0 + i, source: 'feed' });
    l.flush();
    l.close();
    // two leaf pages of the fills table's own data, about a third and a half of the way through it
    // (pages of its indexes sit between them, so a fixed place in the file may be an index's page)
    const db = new Database(t.file, { readonly: true });
    const leaves = (db.prepare("SELECT pageno FROM dbstat WHERE name = 'fills' AND pagetype = 'leaf' ORDER BY pageno").all() as { pageno: number }[]).map(
      (r) => r.pageno,
    );
    const ps = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(t.file, 'r+');
    // dbstat numbers pages from 1; the file's page n starts at (n − 1) × page size
    for (const p of [leaves[Math.floor(leaves.length * 0.3)]!, leaves[Math.floor(leaves.length * 0.5)]!])
      writeSync(fd, Buffer.alloc(ps - 16, 0xa5), 0, ps - 16, (p - 1) * ps + 8);
    closeSync(fd);
    let l2: Ledger | null = null;
    let err: unknown = null;
    try {
      l2 = openLedger({ path: t.file, clock: clockAt() }); // 60 000 fills: past the open check's budget
      replayPositions(l2);
    } catch (e) {
      err = e;
    }
    l2?.close();
    assert.ok(err, 'the damage is found at open or at the replay');
    assert.ok(err instanceof LedgerDamagedError || isDamage(err), `a damage error: ${(err as Error).message}`);
  });
});
