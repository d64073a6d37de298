#!/usr/bin/env node
// Entry point of the `bookmaker` CLI: registers the TypeScript loader (tsx), then runs src/cli/main.ts.
import { register } from 'tsx/esm/api';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register();
const here = dirname(fileURLToPath(import.meta.url));
const { main } = await import(pathToFileURL(join(here, '..', 'src', 'cli', 'main.ts')).href);
process.exitCode = await main(process.argv.slice(2));
