/**
 * `mkdir -p` that cannot spin: Node's recursive mkdir retries forever under /proc (a folder there that
 * cannot hold another answers ENOENT again and again; the process is stuck in one synchronous call and
 * no signal handler runs). Finds the nearest folder that exists, then makes each missing one below it
 * with a plain mkdir, so a refusal (ENOENT, EACCES, EROFS, ENOTDIR) is thrown at once.
 *
 *   makeFolders(dirname(path))   // every folder the project makes goes through it
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const codeOf = (e: unknown): unknown => (e as NodeJS.ErrnoException | undefined)?.code;

export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let d = resolve(dir);
  for (;;) {
    try {
      if (statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${d}'`), { code: 'ENOTDIR' });
    } catch (e) {
      if (codeOf(e) !== 'ENOENT') throw e;
    }
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (e) {
      // made meanwhile by another process: fine if it is a folder
      if (codeOf(e) !== 'EEXIST' || !statSync(m).isDirectory()) throw e;
    }
  }
}
