#!/usr/bin/env node
// Entry point of the `bookmaker` CLI: registers the TypeScript loader, then runs src/cli/main.ts.
import { register } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register('tsx/esm', import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
await import(pathToFileURL(join(here, '..', 'src', 'cli', 'main.ts')).href);
