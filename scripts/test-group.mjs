// One process of the test runner (scripts/test.mjs) running several small test files one after another, so they
// share one Node start, one TypeScript loader and the modules they import (~0.4 CPU-s a file less). Run as
//   node --import scripts/ts-loader.mjs --test-reporter=scripts/test-group-reporter.mjs scripts/test-group.mjs FILE...
// Each file is imported only when the one before it has finished all its tests (a marker test, awaited, queued
// behind them), so a file's top-level code never runs beside another's tests. On stdout, for the runner:
//   # bookmaker-group-start: FILE      written before FILE is imported (what follows, to the next start, is its)
//   # bookmaker-group-loadfail: FILE   FILE threw when imported (the error on stderr): FILE failed
//   # bookmaker-group-done: FILE S     FILE's tests all ended, S seconds after its start
// and the reporter's section of FILE (its TAP, whether a test failed). Which files may share a process is the
// runner's decision (groupable() in scripts/test.mjs).
import { test } from 'node:test';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SENTINEL } from './test-group-reporter.mjs';

for (const file of process.argv.slice(2)) {
  process.stdout.write(`# bookmaker-group-start: ${file}\n`);
  const t0 = performance.now();
  try {
    await import(pathToFileURL(resolve(file)).href);
  } catch (e) {
    process.stdout.write(`# bookmaker-group-loadfail: ${file}\n`);
    console.error(e);
    process.exitCode = 1;
  }
  await test(`${SENTINEL}${file}`, () => {});
  process.stdout.write(`# bookmaker-group-done: ${file} ${((performance.now() - t0) / 1000).toFixed(3)}\n`);
}
