// The newest modification time (ms) of the files under a folder: the staleness rule of the build
// (bin/bookmaker.js runs dist/ only when no source is newer; scripts/test.mjs rebuilds it when one is).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time (ms) of the files under `dir` (0 for an empty folder). */
export function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
