/**
 * `npm run bench -- NAME [args]` runs test/bench/NAME.bench.ts. Each benchmark prints a readable
 * table and, as its last line, one JSON object (docs/architecture.md#stable-interfaces) via `report()` in ./lib.ts.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const names = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const name = process.argv[2];
if (!name || !names.includes(name)) {
  process.stderr.write(`usage: npm run bench -- NAME\nbenchmarks: ${names.join(', ')}\n`);
  process.exit(2);
}
process.argv.splice(2, 1);
await import(pathToFileURL(join(here, `${name}.bench.ts`)).href);
