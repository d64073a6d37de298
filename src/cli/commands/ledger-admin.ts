/**
 * `bookmaker ledger check|backup|prune`: the ledger's care, for an operator.
 *
 *   check               full `PRAGMA integrity_check`; the latch file and the writer lock too.
 *                       Exit 0 sound, 1 damaged. Read-only: safe beside a running bot.
 *   backup --out FILE   a consistent copy of the live database through SQLite's online backup API
 *                       (what is still in the WAL included), written 0600, then checked. Safe beside
 *                       a running bot. Copying `*.sqlite` alone is not a backup: the WAL holds the
 *                       latest records.
 *   prune [--retain-days N]   remove orders, cancels and marks older than N days (default
 *                       ledger.retainDays) and give the space back. Takes the writer lock: refused
 *                       while a bot runs on the file (the bot prunes by itself as it runs).
 */
import Database from 'better-sqlite3';
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs';
import { systemClock } from '../../core/clock.ts';
import { BadInputError } from '../../model/errors.ts';
import { fullIntegrityCheck, recoverySteps } from '../../ledger/integrity.ts';
import { latchPathOf, readLatchFile, readLatchRecord } from '../../ledger/latch-file.ts';
import { describeHolder, ledgerLockHolder } from '../../ledger/ledger-lock.ts';
import { heldLines, heldState } from '../../ledger/held-state.ts';
import { openLedger } from '../../ledger/ledger.ts';
import { autoVacuum, cutoffOf, pruneAll } from '../../ledger/retention.ts';

export const ADMIN_SUBS = ['check', 'backup', 'prune'] as const;
export type AdminSub = (typeof ADMIN_SUBS)[number];

const sizeOf = (p: string): number => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
/** the ledger's bytes on disk: the main file and its WAL */
const onDisk = (p: string): number => sizeOf(p) + sizeOf(`${p}-wal`);

/** Where the command's output goes: the process's streams, or a caller's (a test must not swap process.stdout: its runner reports there). */
export interface AdminIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}
const PROCESS_IO: AdminIo = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

export async function runLedgerAdmin(
  sub: AdminSub,
  path: string,
  o: { out?: string; retainDays: number; json: boolean },
  io: AdminIo = PROCESS_IO,
): Promise<number> {
  const write = (obj: Record<string, unknown>, text: string): void => io.stdout(o.json ? JSON.stringify(obj) + '\n' : text);
  switch (sub) {
    case 'check': {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      let r;
      try {
        r = fullIntegrityCheck(db);
      } finally {
        db.close();
      }
      const rec = readLatchRecord(path);
      const latch = rec.latch;
      const holder = ledgerLockHolder(path);
      const obj = {
        ledger: path,
        ok: r.ok,
        problems: r.problems,
        tables: r.checked.length,
        ms: Math.round(r.ms),
        latchFile: latch ? `LATCHED ${latch.reason}` : existsSync(latchPathOf(path)) ? 'clear' : 'none',
        // the operator's halt and pauses the latch file holds (a start ORs them with the ledger's)
        latchFileHalt: rec.halt ? `HALTED${rec.halt.reason ? ` ${rec.halt.reason}` : ''} (${rec.halt.source})` : 'none',
        latchFilePauses: [...rec.pauses.keys()],
        writer: holder,
      };
      write(
        obj,
        `ledger ${path}: ${r.ok ? 'ok' : 'DAMAGED'} (integrity_check of ${r.checked.length} tables, ${Math.round(r.ms)} ms)\n` +
          (r.ok
            ? ''
            : r.problems
                .slice(0, 20)
                .map((p) => `  ${p}\n`)
                .join('') + `${recoverySteps(path)}\n`) +
          `latch file: ${obj.latchFile}; halt: ${obj.latchFileHalt}; paused markets: ${obj.latchFilePauses.length === 0 ? 'none' : obj.latchFilePauses.join(', ')}\n` +
          `writer: ${holder ? describeHolder(holder) : 'none'}\n`,
      );
      return r.ok ? 0 : 1;
    }
    case 'backup': {
      const out = o.out;
      if (!out) throw new BadInputError('--out', 'the backup file to write (FILE)', out);
      if (existsSync(out)) throw new BadInputError('--out', 'a file that does not exist yet (a backup never overwrites)', out);
      const t0 = performance.now();
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        // the online backup API reads through a connection: the WAL's pages are in the copy
        await db.backup(out);
      } catch (e) {
        rmSync(out, { force: true });
        throw e;
      } finally {
        db.close();
      }
      chmodSync(out, 0o600);
      // one self-contained file (no WAL beside it); a restored copy goes back to WAL at the bot's open
      const copy = new Database(out);
      let r;
      let copyLatch: string | null = null;
      try {
        copy.pragma('journal_mode = DELETE');
        r = fullIntegrityCheck(copy);
        copyLatch =
          (copy.prepare('SELECT latch_reason FROM risk_state WHERE id = 1').get() as { latch_reason: string | null } | undefined)?.latch_reason ?? null;
      } finally {
        copy.close();
      }
      if (!r.ok) {
        io.stderr(
          `bookmaker ledger backup: the copy ${out} fails its integrity check (${r.problems.slice(0, 3).join('; ')}): the source may be damaged; run bookmaker ledger check --ledger ${path}\n`,
        );
        return 1;
      }
      const latch = readLatchFile(path);
      // every hold the latch file keeps that the ledger does not (the latch, the halt, pauses): the copy alone would lose it
      const held = heldState(path);
      const fileOnly = heldLines(held, path).filter((l) => l.includes('in the latch file only'));
      if (fileOnly.length > 0)
        io.stderr(
          `note: the latch file ${latchPathOf(path)} holds what the ledger does not: ` +
            'copy that file too, beside a restored ledger as <restored ledger>.latch:\n' +
            fileOnly.map((l) => `  ${l}\n`).join(''),
        );
      const obj = { ledger: path, out, bytes: sizeOf(out), ms: Math.round(performance.now() - t0), checked: true, latched: copyLatch ?? latch?.reason ?? null };
      write(obj, `backup of ${path} written to ${out} (${obj.bytes} bytes, ${obj.ms} ms), integrity ok\n`);
      return 0;
    }
    case 'prune': {
      const holder = ledgerLockHolder(path);
      if (holder)
        throw new BadInputError(
          'ledger',
          `a ledger no bot is writing (held by ${describeHolder(holder)}; a running bot prunes by itself, ledger.retainDays)`,
          path,
        );
      if (!(o.retainDays > 0)) throw new BadInputError('--retain-days', 'a number of days > 0', o.retainDays);
      const before = onDisk(path);
      const t0 = performance.now();
      const ledger = openLedger({ path, clock: systemClock, mustExist: true });
      let counts;
      let vacuum: string;
      try {
        counts = pruneAll(ledger.db, cutoffOf(systemClock.now(), o.retainDays));
        if (autoVacuum(ledger.db) === 'incremental') {
          ledger.db.pragma('incremental_vacuum');
          vacuum = 'incremental';
        } else {
          // a ledger from before incremental vacuum: one VACUUM returns the space and switches it
          ledger.db.pragma('auto_vacuum = INCREMENTAL');
          ledger.db.exec('VACUUM');
          vacuum = 'full (switched to incremental)';
        }
      } finally {
        ledger.close();
      }
      const after = onDisk(path);
      const obj = {
        ledger: path,
        retainDays: o.retainDays,
        removed: counts,
        bytesBefore: before,
        bytesAfter: after,
        vacuum,
        ms: Math.round(performance.now() - t0),
      };
      write(
        obj,
        `pruned ${path}: records older than ${o.retainDays} days: ${counts.orders} orders, ${counts.cancels} cancels, ${counts.marks} marks removed (fills, risk records and operator actions kept); ` +
          `${before} -> ${after} bytes (vacuum ${vacuum}), ${obj.ms} ms\n`,
      );
      return 0;
    }
  }
}
