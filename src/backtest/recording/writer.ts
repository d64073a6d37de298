/**
 * RecordingWriter: appends events to rotating gzip JSONL files and keeps manifest.json current.
 *
 * Rotation by uncompressed size and by age. A restarted writer never appends to an existing file (a
 * crash can leave a gzip member unterminated); it opens the next file number and keeps the manifest's
 * market list, so a restart resumes the same recording. The manifest is written atomically
 * (write to a temp file, then rename) whenever a file opens or closes.
 */
import { createWriteStream, existsSync, readFileSync, readdirSync, renameSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createGzip, type Gzip } from 'node:zlib';
import { once } from 'node:events';
import type { Bytes32 } from '../../model/order.ts';
import {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  validateManifest,
  type RecordedEvent,
  type RecordedMarket,
  type RecordingFile,
  type RecordingManifest,
} from './format.ts';
import { makeFolders } from '../../core/make-folders.ts';

export interface RecordingWriterOptions {
  dir: string;
  source: string;
  markets?: RecordedMarket[];
  genericPrices?: boolean;
  /** rotate after this many uncompressed bytes (default 64 MiB) */
  rotateBytes?: number;
  /** rotate after this many ms of local time since the file opened (default 1 h) */
  rotateMs?: number;
  /** gzip level (default 6) */
  level?: number;
  now?: () => number;
}

export function fileName(index: number): string {
  return `events-${String(index).padStart(6, '0')}.jsonl.gz`;
}

export class RecordingWriter {
  readonly dir: string;
  private readonly manifest: RecordingManifest;
  private readonly rotateBytes: number;
  private readonly rotateMs: number;
  private readonly level: number;
  private readonly now: () => number;
  private gzip: Gzip | null = null;
  private out: WriteStream | null = null;
  private current: RecordingFile | null = null;
  private bytes = 0;
  private openedAt = 0;
  private nextIndex = 1;
  private closed = false;

  constructor(opts: RecordingWriterOptions) {
    this.dir = opts.dir;
    this.rotateBytes = opts.rotateBytes ?? 64 * 2 ** 20;
    this.rotateMs = opts.rotateMs ?? 3_600_000;
    this.level = opts.level ?? 6;
    this.now = opts.now ?? Date.now;
    makeFolders(this.dir);
    const path = join(this.dir, 'manifest.json');
    if (existsSync(path)) {
      this.manifest = validateManifest(JSON.parse(readFileSync(path, 'utf8')), path);
      for (const m of opts.markets ?? []) if (!this.manifest.markets.some((x) => x.id === m.id)) this.manifest.markets.push(m);
    } else {
      this.manifest = {
        format: RECORDING_FORMAT,
        version: RECORDING_VERSION,
        source: opts.source,
        createdAt: new Date(this.now()).toISOString(),
        priceScale: 1_000_000,
        sizeScale: 1_000_000,
        ...(opts.genericPrices ? { genericPrices: true } : {}),
        markets: [...(opts.markets ?? [])],
        files: [],
      };
    }
    // Continue after the highest file present on disk, listed or not (a crash may precede the manifest write).
    const onDisk = readdirSync(this.dir)
      .map((f) => /^events-(\d{6})\.jsonl\.gz$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
    for (const f of this.manifest.files) onDisk.push(Number(f.name.slice(7, 13)));
    this.nextIndex = onDisk.length ? Math.max(...onDisk) + 1 : 1;
    for (const n of onDisk) {
      const name = fileName(n);
      if (!this.manifest.files.some((f) => f.name === name)) this.manifest.files.push({ name, events: -1, firstLts: 0, lastLts: 0 });
    }
    this.manifest.files.sort((a, b) => a.name.localeCompare(b.name));
  }

  get markets(): readonly RecordedMarket[] {
    return this.manifest.markets;
  }

  addMarket(m: RecordedMarket): void {
    if (!this.manifest.markets.some((x) => x.id === m.id)) {
      this.manifest.markets.push(m);
      this.writeManifest();
    }
  }

  /** Give a market its display name (slug or question) once known; a name already set is kept. */
  nameMarket(id: Bytes32, name: string): void {
    const m = this.manifest.markets.find((x) => x.id === id);
    if (!m || m.name !== undefined || !name) return;
    m.name = name;
    this.writeManifest();
  }

  setStats(stats: Record<string, number>): void {
    this.manifest.stats = { ...(this.manifest.stats ?? {}), ...stats };
  }

  /** Append one event. Returns false when the caller should wait for 'drain' (see `drain()`). */
  write(e: RecordedEvent): boolean {
    if (this.rotateDue()) this.rotate();
    return this.gzip!.write(this.counted(e));
  }

  /** Whether the next event opens a new file (none open yet, or the current one is full or old); throws once closed. */
  private rotateDue(): boolean {
    if (this.closed) throw new Error('recording writer is closed');
    return !this.gzip || this.bytes >= this.rotateBytes || this.now() - this.openedAt >= this.rotateMs;
  }

  /** The event's line, counted in the current file (its bytes, events and first and last times). */
  private counted(e: RecordedEvent): string {
    const line = JSON.stringify(e) + '\n';
    this.bytes += line.length;
    const f = this.current!;
    if (f.events === 0) f.firstLts = e.lts;
    f.events++;
    f.lastLts = e.lts;
    return line;
  }

  /**
   * Append many events (an importer's whole output): their lines go to gzip in chunks of ~64 KB rather than one
   * write per event (one zlib call each on the thread pool: 180 k of them for the Polymarket data set, ~5 CPU-s
   * of system time). The same files, byte for byte, as write() one event at a time (deflate's output does not
   * depend on how its input is split), rotated at the same events.
   */
  async writeMany(events: readonly RecordedEvent[]): Promise<void> {
    let chunk = '';
    const flush = async (): Promise<void> => {
      if (chunk === '') return;
      const ok = this.gzip!.write(chunk);
      chunk = '';
      if (!ok) await this.drain();
    };
    for (const e of events) {
      if (this.rotateDue()) {
        await flush();
        this.rotate();
      }
      chunk += this.counted(e);
      if (chunk.length >= 65_536) await flush();
    }
    await flush();
  }

  async drain(): Promise<void> {
    if (this.gzip?.writableNeedDrain) await once(this.gzip, 'drain');
  }

  private rotate(): void {
    this.finishFile();
    const name = fileName(this.nextIndex++);
    this.current = { name, events: 0, firstLts: 0, lastLts: 0 };
    this.manifest.files.push(this.current);
    this.out = createWriteStream(join(this.dir, name));
    this.gzip = createGzip({ level: this.level });
    this.gzip.pipe(this.out);
    this.bytes = 0;
    this.openedAt = this.now();
    this.writeManifest();
  }

  private finishFile(): Promise<void> | void {
    if (!this.gzip || !this.out) return;
    const out = this.out;
    const done = once(out, 'close').then(() => undefined);
    this.gzip.end();
    this.gzip = null;
    this.out = null;
    this.pending.push(done);
    this.writeManifest();
    return done;
  }

  private pending: Promise<void>[] = [];

  private writeManifest(): void {
    const path = join(this.dir, 'manifest.json');
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.manifest, null, 2) + '\n');
    renameSync(tmp, path);
  }

  /** Flush and close the current file and write the final manifest. */
  async close(): Promise<RecordingManifest> {
    if (this.closed) return this.manifest;
    this.closed = true;
    this.finishFile();
    await Promise.all(this.pending);
    this.writeManifest();
    return this.manifest;
  }
}
