/**
 * Standard output and standard error written to a file (`2>>bot.log`, a container runtime's log file, a
 * systemd `StandardError=file:`) or to a device keep the process alive when a write fails.
 *
 * Node writes such a stream with a blocking write(2); a failure (ENOSPC on a full disk, EIO) destroys the
 * stream and emits 'error', which nobody can recover from: the process died with exit 1 at its next log
 * line, mid-run, without cancelling its orders, and with the exit code of "orders left or an unexpected
 * error" instead of the one of its real state (6 when the ledger on the same disk could not be written).
 * Guarded, a line that cannot be written is dropped and counted (`bookmaker_output_write_failures_total`),
 * the stream stays usable, and lines are written again as soon as the disk has room. Pipes and terminals
 * are left as they are (a closed pipe is handled by bin/bookmaker.js).
 *
 * Every command is guarded from its first line (src/cli/main.ts), not only the running bot: a command's exit
 * code is its own (doctor's verdict, 2 for bad input), never an ENOSPC stack. This module loads nothing but
 * node:fs, so `--help` stays fast; the metric is in ./output-metrics.ts.
 */
import { fstatSync, writeSync } from 'node:fs';

/** Lines (writes) dropped per stream since the start, and the last error's code. */
export interface OutputFailures {
  stdout: number;
  stderr: number;
  lastError: string | null;
  /** per stream, when (epoch ms) its current run of failed writes began; absent once a write succeeds again */
  failingSince?: Partial<Record<'stdout' | 'stderr', number>>;
}

const KEY = Symbol.for('bookmaker.outputFailures');

type Slot = { [KEY]?: OutputFailures };

/** The process's counts (zero when nothing failed or the guard is not installed). */
export function outputFailures(): OutputFailures {
  const g = globalThis as Slot;
  g[KEY] ??= { stdout: 0, stderr: 0, lastError: null };
  return g[KEY];
}

/** Is `fd` written with blocking writes by Node (a regular file or a device other than a terminal)? */
function isFileLike(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFile() || st.isCharacterDevice() || st.isBlockDevice();
  } catch {
    return false;
  }
}

type WriteCb = (err?: Error | null) => void;

/** Write the whole of `buf` to `fd`, or throw (a short write is continued; the next one says why it stopped). */
function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off);
    if (n <= 0) throw Object.assign(new Error('write wrote nothing'), { code: 'EIO' });
    off += n;
  }
}

/**
 * Guard `stream` (fd `fd`) when it is file-like: its `write` becomes a blocking write that drops and counts
 * a line it cannot write instead of destroying the stream. Returns whether it was guarded.
 */
export function guardOutput(stream: NodeJS.WriteStream, fd: number, name: 'stdout' | 'stderr', failures = outputFailures()): boolean {
  if (stream.isTTY || !isFileLike(fd)) return false;
  const write = (chunk: unknown, encoding?: BufferEncoding | WriteCb, cb?: WriteCb): boolean => {
    const done = typeof encoding === 'function' ? encoding : cb;
    const enc = typeof encoding === 'string' ? encoding : 'utf8';
    try {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, enc) : Buffer.from(chunk as Uint8Array);
      writeAll(fd, buf);
      if (failures.failingSince?.[name] !== undefined) delete failures.failingSince[name];
    } catch (e) {
      failures[name] += 1;
      failures.lastError = (e as NodeJS.ErrnoException).code ?? String(e);
      failures.failingSince ??= {};
      failures.failingSince[name] ??= Date.now();
    }
    if (done) process.nextTick(done);
    return true;
  };
  stream.write = write as NodeJS.WriteStream['write'];
  return true;
}

/** Guard the process's stdout and stderr (once; later calls do nothing). */
export function guardProcessOutput(): OutputFailures {
  const failures = outputFailures();
  const g = globalThis as Slot & { [k: symbol]: unknown };
  const done = Symbol.for('bookmaker.outputGuarded');
  if (!g[done]) {
    g[done] = true;
    guardOutput(process.stdout, 1, 'stdout', failures);
    guardOutput(process.stderr, 2, 'stderr', failures);
  }
  return failures;
}

/**
 * /readyz's reasons while a stream's writes fail (its last write failed): the stream, the writes dropped
 * since the start (the figure of bookmaker_output_write_failures_total), since when, and the error. Not a
 * failed check: the bot quotes on, as the ledger, not the logs, holds its books (docs/operating.md).
 */
export function outputReasons(failures = outputFailures(), now = Date.now()): string[] {
  const out: string[] = [];
  for (const name of ['stdout', 'stderr'] as const) {
    const since = failures.failingSince?.[name];
    if (since === undefined) continue;
    const secs = Math.max(0, Math.round((now - since) / 1000));
    out.push(
      `logs-unwritable: ${name}: ${failures[name]} write(s) dropped since the start, failing for ${secs} s (${failures.lastError ?? 'error'}); quoting goes on`,
    );
  }
  return out;
}
