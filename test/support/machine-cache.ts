/**
 * A file or folder the tests build once per machine and keep in the OS temp folder (the packed tarball of a
 * checkout's sources, an imported data set), built by one process while the others that want it at the same time
 * wait for it instead of building their own copy: the suite runs several files at once, and on a machine that has
 * none of these yet (a new CI machine) the files that need one start together.
 *
 * The builder holds `PATH.lock` (a folder holding its pid) and builds into a path of its own, renamed into place
 * when whole, so a reader sees either nothing or the whole thing. A waiter polls the lock (every 250 ms, no CPU)
 * until it is gone, then uses what was built (or builds it itself when the builder failed); a lock left by a
 * process that died is taken over.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../src/core/process-alive.ts';

const POLL_MS = 250;
/** A lock without its pid file this long after it was made belongs to a process killed in between. */
const UNCLAIMED_MS = 30_000;

/** Takes `lock`: true when it is ours now, false while another live process holds it. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    let stale: boolean;
    try {
      stale = !processAlive(Number(readFileSync(join(lock, 'pid'), 'utf8')));
    } catch {
      try {
        stale = Date.now() - statSync(lock).mtimeMs > UNCLAIMED_MS;
      } catch {
        stale = false; // gone meanwhile: the next poll takes it
      }
    }
    if (stale) rmSync(lock, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(lock, 'pid'), String(process.pid));
  return true;
}

/** `path.tmp-PID`, cleared: where this process builds before the rename. */
function ownPath(path: string): string {
  const own = `${path}.tmp-${process.pid}`;
  rmSync(own, { recursive: true, force: true });
  return own;
}

/** Puts `own` (built whole) at `path`, replacing what a killed run left there (not `ready`). */
function publish(own: string, path: string): void {
  rmSync(path, { recursive: true, force: true });
  renameSync(own, path);
}

/** What one process builds of `path` at a time, in this process (calls of it before the first ends share it). */
const building = new Map<string, Promise<void>>();

/**
 * `path` built once on this machine by `build(own)` (which writes `own`: a file or a folder), unless `ready(path)`
 * already; resolves when `path` is ready. Concurrent callers, in this process or others, wait for one build.
 */
export function oncePerMachine(path: string, build: (own: string) => Promise<void>, ready: (path: string) => boolean = existsSync): Promise<void> {
  if (ready(path)) return Promise.resolve();
  let p = building.get(path);
  if (!p) {
    p = (async () => {
      const lock = `${path}.lock`;
      while (!ready(path)) {
        if (!tryLock(lock)) {
          await new Promise((r) => setTimeout(r, POLL_MS));
          continue;
        }
        try {
          if (ready(path)) break;
          const own = ownPath(path);
          try {
            await build(own);
            publish(own, path);
          } finally {
            rmSync(own, { recursive: true, force: true });
          }
        } finally {
          rmSync(lock, { recursive: true, force: true });
        }
      }
    })().finally(() => building.delete(path));
    building.set(path, p);
  }
  return p;
}

/** oncePerMachine for a synchronous `build`: the wait blocks this process (use it where the caller is synchronous). */
export function oncePerMachineSync(path: string, build: (own: string) => void, ready: (path: string) => boolean = existsSync): void {
  const lock = `${path}.lock`;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!ready(path)) {
    if (!tryLock(lock)) {
      Atomics.wait(nap, 0, 0, POLL_MS);
      continue;
    }
    try {
      if (ready(path)) break;
      const own = ownPath(path);
      try {
        build(own);
        publish(own, path);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
