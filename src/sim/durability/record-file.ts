/**
 * The framing of the local exchange's durable files (the journal and the snapshot): a sequence of
 * records, each
 *
 *     u32 LE payload length | u32 LE crc32 of those 4 length bytes | u32 LE crc32 of the payload | payload
 *
 * The length has its own checksum so a damaged length is told apart from a torn tail. Reading
 * classifies what it finds:
 * - every record intact: fine;
 * - the last record cut short, or its payload checksum wrong, or only zero bytes after the last
 *   good record (what a crash during an append leaves): a *torn tail*, reported with its offset so
 *   the caller can drop it with a warning;
 * - anything else (a bad checksum with more data after it): *damage*, a StateFileError naming the
 *   file and the offset; the caller refuses to start and never overwrites the file.
 */
import { crc32 } from 'node:zlib';

export const HEADER_BYTES = 12;
/** no single record is larger than this (a damaged length field is recognised as such) */
export const MAX_RECORD_BYTES = 1 << 30;

/** A durable file that cannot be used: names the file and the byte offset of the problem. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`state file ${file}: ${reason} at byte offset ${offset}; refusing to start (the file is left as it is)`);
    this.name = 'StateFileError';
  }
}

/** One framed record. */
export function frame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(out.subarray(0, 4)), 4);
  out.writeUInt32LE(crc32(payload), 8);
  payload.copy(out, HEADER_BYTES);
  return out;
}

/** Frame a UTF-8 string payload without an intermediate Buffer copy. */
export function frameText(text: string): Buffer {
  const n = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafe(HEADER_BYTES + n);
  out.write(text, HEADER_BYTES, 'utf8');
  out.writeUInt32LE(n, 0);
  out.writeUInt32LE(crc32(out.subarray(0, 4)), 4);
  out.writeUInt32LE(crc32(out.subarray(HEADER_BYTES)), 8);
  return out;
}

export interface ScanResult {
  /** payloads of the intact records, in order (views into the input) */
  records: Buffer[];
  /** byte offset of each record's header */
  offsets: number[];
  /** bytes of intact records (where a torn tail starts) */
  goodBytes: number;
  /** set when a torn tail was found: why */
  torn?: string;
}

function allZero(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}

/** Read every record of `buf` (the whole file); throws StateFileError on damage. */
export function scanRecords(buf: Buffer, file: string): ScanResult {
  const records: Buffer[] = [];
  const offsets: number[] = [];
  let off = 0;
  while (off < buf.length) {
    const left = buf.length - off;
    if (allZero(buf, off)) return { records, offsets, goodBytes: off, torn: `${left} zero byte(s) after the last record` };
    if (left < HEADER_BYTES) return { records, offsets, goodBytes: off, torn: `a record header cut short (${left} of ${HEADER_BYTES} bytes)` };
    const len = buf.readUInt32LE(off);
    if (crc32(buf.subarray(off, off + 4)) !== buf.readUInt32LE(off + 4)) throw new StateFileError(file, off, 'a record length with a bad checksum');
    if (len > MAX_RECORD_BYTES) throw new StateFileError(file, off, `a record length of ${len} bytes`);
    const end = off + HEADER_BYTES + len;
    if (end > buf.length) return { records, offsets, goodBytes: off, torn: `the last record cut short (${left - HEADER_BYTES} of ${len} payload bytes)` };
    const payload = buf.subarray(off + HEADER_BYTES, end);
    if (crc32(payload) !== buf.readUInt32LE(off + 8)) {
      if (end === buf.length) return { records, offsets, goodBytes: off, torn: 'the last record has a bad payload checksum' };
      throw new StateFileError(file, off, 'a record with a bad payload checksum');
    }
    records.push(payload);
    offsets.push(off);
    off = end;
  }
  return { records, offsets, goodBytes: off };
}
