// The test runner's TypeScript loader (scripts/test.mjs starts each test process with `--import` of this file):
// the same esbuild transform tsx applies to this package's ESM .ts files (same options: see ts-loader-hooks.mjs),
// in a module hook a tenth of tsx's size, each file's output cached by its content. tsx's start costs each
// process ~0.4 CPU-s (its bundle loaded in the main thread and in the hooks thread); this one ~0.05.
// What it does not do (tsx does), so a test that needs it fails loudly rather than passing another way: `require()`
// of a .ts file, TypeScript outside an ESM package scope ("type": "module"), extension-less or .js-for-.ts imports.
// Such a file runs under tsx: the runner's TSX_FILES (scripts/test.mjs).
import { register } from 'node:module';

process.setSourceMapsEnabled(true); // as tsx: stack traces name the .ts lines
register('./ts-loader-hooks.mjs', import.meta.url);
