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
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export const LATCH_FILE_BYTES = 1024;

export interface FileLatch {
  readonly reason: string;
  readonly detail: string;
  readonly at: number;
}

export function latchPathOf(ledgerPath: string): string {
  return `${ledgerPath}.latch`;
}

function encode(latch: FileLatch | null): Buffer {
  const body = latch ? { latched: true, reason: latch.reason.slice(0, 100), detail: latch.detail.slice(0, 600), at: latch.at } : { latched: false };
  const text = JSON.stringify(body);
  const buf = Buffer.alloc(LATCH_FILE_BYTES, 0x20);
  buf.write(text, 0, 'utf8');
  buf[LATCH_FILE_BYTES - 1] = 0x0a;
  return buf;
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

/** Write the latch state in place and fsync it; creates the file (0600) when it is missing. Throws on failure. */
export function writeLatchFile(ledgerPath: string, latch: FileLatch | null): void {
  const p = latchPathOf(ledgerPath);
  if (existsSync(p)) {
    writeAll(p, 'r+', encode(latch));
    return;
  }
  // a new file appears whole or not at all: written beside it, then renamed
  const tmp = `${p}.${process.pid}.tmp`;
  try {
    writeAll(tmp, 'w', encode(latch));
    renameSync(tmp, p);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(p);
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
  const p = latchPathOf(ledgerPath);
  let text: string;
  try {
    text = readFileSync(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { reason: 'LATCH_FILE_UNREADABLE', detail: `${p}: ${(e as Error).message}`, at: 0 };
  }
  try {
    const o = JSON.parse(text) as { latched?: unknown; reason?: unknown; detail?: unknown; at?: unknown };
    if (o.latched === false) return null;
    if (o.latched === true && typeof o.reason === 'string')
      return { reason: o.reason, detail: typeof o.detail === 'string' ? o.detail : '', at: typeof o.at === 'number' ? o.at : 0 };
  } catch {
    // fall through: damaged
  }
  return { reason: 'LATCH_FILE_DAMAGED', detail: `${p} cannot be read as a latch record (fail closed: treated as latched)`, at: 0 };
}
