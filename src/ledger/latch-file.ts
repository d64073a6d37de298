/**
 * The second record of the kill-switch latch: `<ledger>.latch`, beside the ledger.
 *
 * The ledger is the first record of a latch; this file is the one that still works when the ledger
 * cannot be written (disk full, I/O error, the file deleted under the bot). A start refuses to quote
 * when either says latched, and a clear clears both.
 *
 * The file has a fixed size (LATCH_FILE_BYTES): created at open with the state "clear", then always
 * rewritten in place (same offset, same length) and fsynced. Overwriting blocks the file already owns
 * needs no free space, so a latch still lands on a full disk (on ext4, xfs and tmpfs; a copy-on-write
 * file system may still need a block). A file that cannot be parsed reads as latched: fail closed.
 *
 * The same file holds the operator's halt and per-market pauses (`halt`, `pauses`), written before
 * they take effect, so a halted bot stays halted when its ledger is lost (`run --new-ledger`). A start
 * ORs them with the ledger's. A damaged file also reads as halted. When the pauses do not fit the
 * file, they are replaced by a halt ("pauses overflow the latch file"): never dropped. A file written
 * before these fields existed reads as no halt and no pauses. A file of the older 1,024-byte size is
 * grown to LATCH_FILE_BYTES (written beside it and renamed) at its next write, or rewritten in place at
 * its old size when that fails (full disk).
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Bytes32 } from '../model/order.ts';

export const LATCH_FILE_BYTES = 4096;
/** the size of a latch file written before the holds were added to it */
const OLD_LATCH_FILE_BYTES = 1024;

export interface FileLatch {
  readonly reason: string;
  readonly detail: string;
  readonly at: number;
}

/** An operator hold as the file keeps it (the ledger's OperatorHold shape). */
export interface FileHold {
  readonly reason: string | null;
  readonly at: number;
  readonly source: string;
}

export interface FileHolds {
  readonly halt: FileHold | null;
  readonly pauses: ReadonlyMap<Bytes32, FileHold>;
}

/** Everything the file holds. */
export interface LatchRecord extends FileHolds {
  readonly latch: FileLatch | null;
}

/**
 * What clears a latch file that cannot be read: both commands, each a deliberate operator action. The
 * file may have held a kill latch, a halt, pauses or nothing; the ledger still holds its own records,
 * but when it was replaced (`run --new-ledger`) the damaged file was the only record of them. So the
 * kill latch is cleared after a review of the loss (`clear-kill`) and the halt by saying quoting is
 * wanted (`resume`); neither clears the other. Short enough for the file's hold reason (120 bytes).
 */
export const DAMAGED_CLEAR = 'needs both bookmaker ctl clear-kill and bookmaker ctl resume';

/** the halt a file records when the pauses do not fit it */
export const PAUSES_OVERFLOW = 'pauses overflow the latch file';

export const NO_HOLDS: FileHolds = { halt: null, pauses: new Map() };

export function latchPathOf(ledgerPath: string): string {
  return `${ledgerPath}.latch`;
}

const BYTES32 = /^0x[0-9a-f]{64}$/;

/** the longest text of a hold's reason the file keeps */
const HOLD_REASON_CHARS = 120;

/** the longest prefix of `s` of at most `bytes` UTF-8 bytes, cut on a character */
function fitBytes(s: string, bytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= bytes) return s;
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch, 'utf8') > bytes) break;
    out += ch;
  }
  return out;
}

const holdJson = (h: FileHold): [string | null, string, number] => [
  h.reason === null ? null : fitBytes(h.reason, HOLD_REASON_CHARS),
  fitBytes(h.source, 20),
  h.at,
];

/**
 * The file's bytes for `r`, `size` long. When the pauses do not fit, the record holds a halt with the
 * reason PAUSES_OVERFLOW instead (`overflowed` counts the pauses it stands for): fail closed.
 */
export function encodeLatchRecord(r: LatchRecord, size = LATCH_FILE_BYTES, now = Date.now()): { buf: Buffer; overflowed: number } {
  const latch = r.latch ? { latched: true, reason: fitBytes(r.latch.reason, 100), detail: fitBytes(r.latch.detail, 600), at: r.latch.at } : { latched: false };
  const pauses = [...r.pauses].map(([m, h]) => [m, ...holdJson(h)]);
  let text = JSON.stringify({ ...latch, halt: r.halt ? holdJson(r.halt) : null, pauses });
  let overflowed = 0;
  if (Buffer.byteLength(text, 'utf8') > size - 1) {
    overflowed = pauses.length;
    const was = r.halt?.reason ? `; halted before: ${r.halt.reason}` : '';
    const halt: FileHold = { reason: `${PAUSES_OVERFLOW} (${overflowed} paused markets)${was}`, at: now, source: 'latch-file' };
    text = JSON.stringify({ ...latch, halt: holdJson(halt), pauses: [], overflow: overflowed });
  }
  const buf = Buffer.alloc(size, 0x20);
  buf.write(text, 0, 'utf8');
  buf[size - 1] = 0x0a;
  return { buf, overflowed };
}

function fsyncDir(path: string): void {
  try {
    const fd = openSync(dirname(path), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // a directory fsync is best effort (not every file system allows it)
  }
}

/** Write the record and fsync it: in place when the file exists at full size, else whole (beside it, renamed). */
function writeRecord(ledgerPath: string, r: LatchRecord): { overflowed: number } {
  const p = latchPathOf(ledgerPath);
  let size: number | null = null;
  try {
    size = statSync(p).size;
  } catch {
    // missing: created whole
  }
  if (size !== null && size >= LATCH_FILE_BYTES) {
    const e = encodeLatchRecord(r, size);
    writeAll(p, 'r+', e.buf);
    return { overflowed: e.overflowed };
  }
  // a new (or older, smaller) file appears whole or not at all: written beside it, then renamed
  const tmp = `${p}.${process.pid}.tmp`;
  const e = encodeLatchRecord(r);
  try {
    writeAll(tmp, 'w', e.buf);
    renameSync(tmp, p);
  } catch (err) {
    rmSync(tmp, { force: true });
    // an older file on a full disk: rewritten in place at its own size
    if (size === null || size < OLD_LATCH_FILE_BYTES) throw err;
    const small = encodeLatchRecord(r, size);
    writeAll(p, 'r+', small.buf);
    return { overflowed: small.overflowed };
  }
  fsyncDir(p);
  return { overflowed: e.overflowed };
}

/** the record to rewrite: what the file holds now (a damaged file keeps reading as latched and halted) */
function current(ledgerPath: string): LatchRecord {
  return existsSync(latchPathOf(ledgerPath)) ? readLatchRecord(ledgerPath) : { latch: null, ...NO_HOLDS };
}

/** Write the latch state in place and fsync it, keeping the holds; creates the file (0600) when it is missing. Throws on failure. */
export function writeLatchFile(ledgerPath: string, latch: FileLatch | null): void {
  const r = current(ledgerPath);
  writeRecord(ledgerPath, { latch, halt: r.halt, pauses: r.pauses });
}

/**
 * Write the operator's halt and pauses in place and fsync them, keeping the latch. Throws on failure.
 * Returns how many pauses were recorded as a halt because they do not fit (0: all fit).
 */
export function writeHoldsFile(ledgerPath: string, holds: FileHolds): { overflowed: number } {
  const r = current(ledgerPath);
  return writeRecord(ledgerPath, { latch: r.latch, halt: holds.halt, pauses: holds.pauses });
}

function writeAll(path: string, flags: string, buf: Buffer): void {
  const fd = openSync(path, flags, 0o600);
  try {
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The latch the file holds: null (clear, or no file), or the latch. An unreadable file reads as latched. */
export function readLatchFile(ledgerPath: string): FileLatch | null {
  return readLatchRecord(ledgerPath).latch;
}

function holdOf(v: unknown): FileHold | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  const [reason, source, at] = v as unknown[];
  if ((reason !== null && typeof reason !== 'string') || typeof source !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  return { reason, source, at };
}

/**
 * Everything the file holds. No file: no latch, no holds. A file that cannot be read or parsed reads
 * as latched and halted (fail closed); one written before the holds existed, as no holds.
 */
export function readLatchRecord(ledgerPath: string): LatchRecord {
  const p = latchPathOf(ledgerPath);
  let text: string;
  try {
    text = readFileSync(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { latch: null, ...NO_HOLDS };
    const detail = `${p}: ${(e as Error).message} (fail closed: treated as latched and halted; ${DAMAGED_CLEAR})`;
    return {
      latch: { reason: 'LATCH_FILE_UNREADABLE', detail, at: 0 },
      halt: { reason: `latch file unreadable (fail closed): ${DAMAGED_CLEAR}`, at: 0, source: 'latch-file' },
      pauses: new Map(),
    };
  }
  try {
    const o = JSON.parse(text) as { latched?: unknown; reason?: unknown; detail?: unknown; at?: unknown; halt?: unknown; pauses?: unknown };
    let latch: FileLatch | null | undefined;
    if (o.latched === false) latch = null;
    else if (o.latched === true && typeof o.reason === 'string')
      latch = { reason: o.reason, detail: typeof o.detail === 'string' ? o.detail : '', at: typeof o.at === 'number' ? o.at : 0 };
    // an older file has neither field: no holds
    const halt = o.halt === undefined || o.halt === null ? null : holdOf(o.halt);
    const pauses = new Map<Bytes32, FileHold>();
    let ok = latch !== undefined && halt !== undefined;
    if (o.pauses !== undefined) {
      if (!Array.isArray(o.pauses)) ok = false;
      else
        for (const e of o.pauses as unknown[]) {
          const m = Array.isArray(e) ? (e as unknown[])[0] : undefined;
          const h = Array.isArray(e) ? holdOf((e as unknown[]).slice(1)) : undefined;
          if (typeof m !== 'string' || !BYTES32.test(m) || !h) ok = false;
          else pauses.set(m as Bytes32, h);
        }
    }
    if (ok && latch !== undefined && halt !== undefined) return { latch, halt, pauses };
  } catch {
    // fall through: damaged
  }
  return {
    latch: {
      reason: 'LATCH_FILE_DAMAGED',
      detail: `${p} cannot be read as a latch record (fail closed: treated as latched and halted; ${DAMAGED_CLEAR})`,
      at: 0,
    },
    halt: { reason: `latch file damaged (fail closed): ${DAMAGED_CLEAR}`, at: 0, source: 'latch-file' },
    pauses: new Map(),
  };
}
