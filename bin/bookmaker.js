#!/usr/bin/env node
// Entry point of the `bookmaker` CLI: registers the TypeScript loader (tsx), then runs src/cli/main.ts.
import { register } from 'tsx/esm/api';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register();
// A closed pipe (`bookmaker markets list | head`) ends the command quietly instead of crashing.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
const here = dirname(fileURLToPath(import.meta.url));
const { main } = await import(pathToFileURL(join(here, '..', 'src', 'cli', 'main.ts')).href);
process.exitCode = await main(process.argv.slice(2));
