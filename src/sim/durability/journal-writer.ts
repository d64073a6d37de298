/**
 * An append-only journal segment with group commit: `append` frames a record into memory and
 * returns at once; one write + fdatasync at a time carries everything appended so far, and every
 * request that arrived while a sync was in flight shares the next one. `durable(seq)` resolves once
 * the record is on disk.
 *
 * Durability is ordered across segments: a segment opened by a checkpoint starts writing only once
 * the previous segment has drained (`after`), so a later record is never on disk while an earlier
 * one may still be lost.
 *
 * A failed write or sync is sticky: every waiter and every later `durable` rejects with it (the
 * exchange then refuses mutations: its memory is ahead of its disk).
 */
import { close, closeSync, fdatasync, openSync, writeSync } from 'node:fs';

/**
 * Syncs in flight at once: a group appended while one sync runs starts its own at once (its
 * fdatasync covers the earlier group's bytes too) instead of waiting for the first to finish; more
 * than two would only queue in the thread pool.
 */
const MAX_SYNCS = 2;

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class JournalWriter {
  readonly fd: number;
  /** the highest seq appended / on disk */
  appendedSeq: number;
  durableSeq: number;
  failed: Error | undefined;
  private buffered: Buffer[] = [];
  /** fdatasyncs running (at most MAX_SYNCS) */
  private inFlight = 0;
  private closed = false;
  private ready: boolean;
  private readonly waiters: Waiter[] = [];
  private drainWaiters: (() => void)[] = [];
  /** bytes appended to this segment (including what is on disk from before) */
  bytes: number;

  constructor(
    readonly path: string,
    lastSeq: number,
    existingBytes: number,
    after?: Promise<void>,
    private readonly sync = true,
  ) {
    this.fd = openSync(path, 'a', 0o600);
    this.appendedSeq = lastSeq;
    this.durableSeq = lastSeq;
    this.bytes = existingBytes;
    this.ready = after === undefined;
    after?.then(
      () => {
        this.ready = true;
        this.kick();
      },
      (e: Error) => this.fail(e),
    );
  }

  /** Add a framed record with sequence number `seq` (must be appendedSeq + 1). */
  append(framed: Buffer, seq: number): void {
    if (this.closed) throw new Error('journal segment closed');
    this.buffered.push(framed);
    this.bytes += framed.length;
    this.appendedSeq = seq;
    this.kick();
  }

  durable(seq: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (seq <= this.durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Resolves when everything appended so far is on disk (or the segment failed). */
  drained(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.inFlight === 0 && this.buffered.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.drainWaiters.push(() => (this.failed ? reject(this.failed) : resolve()));
    });
  }

  /** Drain, then close the file descriptor. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.drained();
    } finally {
      await new Promise<void>((r) => close(this.fd, () => r()));
    }
  }

  /** Close without waiting (after a failure, or at exit when nothing is pending). */
  closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  /**
   * Write what is buffered (a synchronous write: a copy into the page cache, microseconds, and one
   * thread-pool hop less per group) and start its fdatasync; with MAX_SYNCS running, later appends
   * wait as the next group.
   */
  private kick(): void {
    if (this.inFlight >= MAX_SYNCS || !this.ready || this.failed) return;
    if (this.buffered.length === 0) {
      if (this.inFlight > 0) return;
      const d = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of d) f();
      return;
    }
    this.inFlight++;
    const data = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    this.buffered = [];
    const upto = this.appendedSeq;
    try {
      let off = 0;
      while (off < data.length) off += writeSync(this.fd, data, off, data.length - off);
    } catch (e) {
      this.fail(e as Error);
      return;
    }
    if (!this.sync) {
      // no sync wanted: still answer asynchronously, after the write
      queueMicrotask(() => this.done(upto));
      return;
    }
    fdatasync(this.fd, (e2) => (e2 ? this.fail(e2) : this.done(upto)));
  }

  /**
   * A sync finished. fdatasync flushes everything written to the file before it was called, so a
   * later group's sync finishing first makes the earlier groups durable too: durability is the
   * highest `upto` of any finished sync.
   */
  private done(upto: number): void {
    if (this.failed) return;
    this.inFlight--;
    if (upto > this.durableSeq) this.durableSeq = upto;
    upto = this.durableSeq;
    let i = 0;
    while (i < this.waiters.length && this.waiters[i]!.seq <= upto) i++;
    const ready = this.waiters.splice(0, i);
    for (const w of ready) w.resolve();
    this.kick();
  }

  private fail(err: Error): void {
    this.inFlight = 0;
    if (!this.failed) this.failed = new Error(`journal ${this.path}: ${err.message}`);
    const ws = this.waiters.splice(0);
    for (const w of ws) w.reject(this.failed);
    const d = this.drainWaiters;
    this.drainWaiters = [];
    for (const f of d) f();
  }
}
