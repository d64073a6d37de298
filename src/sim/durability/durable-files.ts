/**
 * The files behind `--state FILE`: a snapshot at FILE and journal segments FILE.wal.<gen>.
 *
 * - The snapshot holds the live state (no history) and names the journal generation that follows
 *   it and the last journal seq it includes. It is written to a temporary file, fsynced and renamed
 *   into place (then the directory is fsynced), so FILE is always a whole snapshot.
 * - A checkpoint opens segment gen+1 at once (new records go there), writes the snapshot, and then
 *   deletes the segments it covers: the files stay bounded by the live state, not by history.
 * - Restore reads the snapshot and replays the records of the segments from its generation on,
 *   skipping those it already includes, checking every checksum and that the seqs follow each other.
 *   A torn last record (a crash during an append) is dropped with a warning; any other damage is a
 *   StateFileError naming the file and offset, and nothing is written.
 *
 * Journal records are JSON (bigints as {"$big":"…"}); snapshot sections are v8-serialised.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { frame, frameText, scanRecords, StateFileError } from './record-file.ts';
import { JournalWriter } from './journal-writer.ts';

export const SNAPSHOT_MAGIC = 'bookmaker-local-exchange-snapshot';
export const SNAPSHOT_VERSION = 2;

export interface SnapshotHeader {
  magic: string;
  version: number;
  /** the journal generation whose records follow this snapshot */
  gen: number;
  /** the last journal seq whose effect this snapshot includes */
  lastSeq: number;
  savedAt: number;
  /** names of the v8 sections that follow, in order */
  sections: string[];
}

export interface LoadedSnapshot {
  header: SnapshotHeader;
  /** section name → the values of its records, in order */
  sections: Map<string, unknown[]>;
}

export interface JournalRecord {
  /** sequence number: 1, 2, 3, … across segments */
  s: number;
  /** kind */
  k: string;
  [field: string]: unknown;
}

export interface Loaded {
  snapshot: LoadedSnapshot | undefined;
  /** the journal records after the snapshot, in order */
  records: JournalRecord[];
  gen: number;
  lastSeq: number;
  warnings: string[];
}

export function encodeJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? { $big: x.toString() } : x));
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.$big === 'string' && /^-?\d+$/.test(o.$big) && Object.keys(o).length === 1) return BigInt(o.$big);
    }
    return v;
  });
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some platforms cannot fsync a directory; the rename is still atomic
  }
}

export class DurableFiles {
  private writer: JournalWriter | undefined;
  private gen = 0;
  private seq = 0;
  private checkpointing: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly opts: { sync?: boolean } = {},
  ) {}

  segmentPath(gen: number): string {
    return `${this.file}.wal.${gen}`;
  }

  /** Refuse early (with a clear message) when the state file's directory cannot be written. */
  checkWritable(): void {
    const probe = join(dirname(this.file), `.${basename(this.file)}.probe-${process.pid}`);
    try {
      const fd = openSync(probe, 'w', 0o600);
      writeSync(fd, 'probe');
      closeSync(fd);
      unlinkSync(probe);
    } catch (e) {
      throw new Error(`state file ${this.file}: its directory is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (existsSync(this.file)) {
      try {
        closeSync(openSync(this.file, 'r+'));
      } catch (e) {
        throw new Error(`state file ${this.file}: cannot be opened for writing (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    }
  }

  /** Generations of the journal segments on disk, ascending. */
  segments(): number[] {
    const dir = dirname(this.file);
    const prefix = `${basename(this.file)}.wal.`;
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
      .map((n) => Number(n.slice(prefix.length)))
      .sort((a, b) => a - b);
  }

  /** Read a v2 snapshot file; throws StateFileError when it is damaged or incomplete. */
  static readSnapshot(file: string, buf: Buffer): LoadedSnapshot {
    const scan = scanRecords(buf, file);
    if (scan.torn) throw new StateFileError(file, scan.goodBytes, `the snapshot is incomplete (${scan.torn})`);
    if (scan.records.length < 2) throw new StateFileError(file, 0, 'the snapshot has no sections');
    let header: SnapshotHeader;
    try {
      header = JSON.parse(scan.records[0]!.toString('utf8')) as SnapshotHeader;
    } catch {
      throw new StateFileError(file, 0, 'the snapshot header is not JSON');
    }
    if (header.magic !== SNAPSHOT_MAGIC) throw new StateFileError(file, 0, 'not a local exchange snapshot');
    if (header.version !== SNAPSHOT_VERSION) throw new StateFileError(file, 0, `unsupported snapshot version ${String(header.version)}`);
    const sections = new Map<string, unknown[]>();
    const n = scan.records.length - 2;
    if (!Array.isArray(header.sections) || header.sections.length !== n)
      throw new StateFileError(file, 0, `the header lists ${String(header.sections?.length)} sections, the file holds ${n}`);
    for (let i = 0; i < n; i++) {
      const name = header.sections[i]!;
      let value: unknown;
      try {
        value = deserialize(scan.records[i + 1]!);
      } catch {
        throw new StateFileError(file, scan.offsets[i + 1]!, `section '${name}' cannot be decoded`);
      }
      let list = sections.get(name);
      if (!list) sections.set(name, (list = []));
      list.push(value);
    }
    const endRec = scan.records[scan.records.length - 1]!.toString('utf8');
    if (endRec !== `{"end":${n}}`) throw new StateFileError(file, scan.offsets[scan.records.length - 1]!, 'the snapshot end marker is missing');
    return { header, sections };
  }

  /**
   * Read the snapshot (when FILE is one; `legacy` is called with the text of an old JSON state
   * file) and the journal after it. Writes nothing.
   */
  load(onLegacy: (text: string) => void): Loaded {
    const warnings: string[] = [];
    let snapshot: LoadedSnapshot | undefined;
    let gen = 0;
    let lastSeq = 0;
    if (existsSync(this.file)) {
      const buf = readFileSync(this.file);
      let i = 0;
      while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
      if (buf[i] === 0x7b /* { */) {
        onLegacy(buf.toString('utf8')); // an old whole-state JSON file (no journal)
      } else {
        snapshot = DurableFiles.readSnapshot(this.file, buf);
        gen = snapshot.header.gen;
        lastSeq = snapshot.header.lastSeq;
      }
    }
    const records: JournalRecord[] = [];
    const gens = this.segments().filter((g) => g >= gen);
    let expect = lastSeq + 1;
    let tornIn: string | undefined;
    for (const g of gens) {
      const path = this.segmentPath(g);
      const buf = readFileSync(path);
      const scan = scanRecords(buf, path);
      if (tornIn !== undefined && scan.records.length > 0) throw new StateFileError(tornIn, 0, 'a torn record followed by records of a later journal segment');
      for (let r = 0; r < scan.records.length; r++) {
        let rec: JournalRecord;
        try {
          rec = decodeJson(scan.records[r]!.toString('utf8')) as JournalRecord;
        } catch {
          throw new StateFileError(path, scan.offsets[r]!, 'a journal record that is not JSON');
        }
        if (!rec || typeof rec !== 'object' || !Number.isSafeInteger(rec.s) || typeof rec.k !== 'string')
          throw new StateFileError(path, scan.offsets[r]!, 'a journal record without a seq and kind');
        if (rec.s < expect) continue; // already in the snapshot
        if (rec.s !== expect) throw new StateFileError(path, scan.offsets[r]!, `journal seq ${rec.s} where ${expect} was expected`);
        expect++;
        records.push(rec);
      }
      if (scan.torn) {
        warnings.push(`journal ${path}: dropped a torn last record at byte offset ${scan.goodBytes} (${scan.torn}); it was never acknowledged`);
        tornIn = path;
      }
    }
    this.gen = Math.max(gen, gens.length ? gens[gens.length - 1]! : 0);
    this.seq = expect - 1;
    return { snapshot, records, gen: this.gen, lastSeq: this.seq, warnings };
  }

  get lastSeq(): number {
    return this.seq;
  }

  get journalBytes(): number {
    return this.writer?.bytes ?? 0;
  }

  get failed(): Error | undefined {
    return this.writer?.failed;
  }

  /** Append one record (JSON text of an object without `s`); returns its seq. Needs an open segment. */
  append(objectJson: string): number {
    const w = this.writer;
    if (!w) throw new Error('journal not open');
    const s = ++this.seq;
    w.append(frameText(`{"s":${s},${objectJson.slice(1)}`), s);
    return s;
  }

  get isOpen(): boolean {
    return this.writer !== undefined;
  }

  durable(seq: number): Promise<void> {
    const w = this.writer;
    if (!w) return Promise.resolve();
    return w.durable(seq);
  }

  /**
   * Checkpoint: open the next segment now and write a snapshot of the state as it is now (built
   * synchronously by `build`, which gets the generation and last seq to record); resolves when the
   * snapshot is durable and the covered segments are deleted. Checkpoints run one after another.
   */
  checkpoint(
    build: (
      gen: number,
      lastSeq: number,
    ) => { header: Omit<SnapshotHeader, 'magic' | 'version' | 'gen' | 'lastSeq' | 'sections'>; sections: [string, unknown][] },
  ): Promise<void> {
    const gen = ++this.gen;
    const lastSeq = this.seq;
    const parts = build(gen, lastSeq);
    const header: SnapshotHeader = {
      magic: SNAPSHOT_MAGIC,
      version: SNAPSHOT_VERSION,
      gen,
      lastSeq,
      ...parts.header,
      sections: parts.sections.map((s) => s[0]),
    };
    const frames: Buffer[] = [frameText(JSON.stringify(header))];
    for (const [, value] of parts.sections) frames.push(frame(serialize(value)));
    frames.push(frameText(`{"end":${parts.sections.length}}`));
    const old = this.writer;
    const after = old ? old.drained() : undefined;
    this.writer = new JournalWriter(this.segmentPath(gen), lastSeq, 0, after, this.opts.sync !== false);
    const prev = this.checkpointing;
    const run = async (): Promise<void> => {
      await prev.catch(() => undefined);
      const tmp = `${this.file}.tmp-${process.pid}`;
      const fh = await open(tmp, 'w', 0o600);
      try {
        for (const f of frames) await fh.write(f);
        await fh.datasync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.file);
      fsyncDir(dirname(this.file));
      if (old) await old.close().catch(() => undefined);
      for (const g of this.segments()) if (g < gen) await unlink(this.segmentPath(g)).catch(() => undefined);
    };
    this.checkpointing = run();
    return this.checkpointing;
  }

  /** Wait for pending checkpoints and appends, then close the segment. */
  async close(): Promise<void> {
    await this.checkpointing.catch(() => undefined);
    const w = this.writer;
    this.writer = undefined;
    if (w) await w.close().catch(() => undefined);
  }
}
