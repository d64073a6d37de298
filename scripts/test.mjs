#!/usr/bin/env node
// `npm test [-- FILE|DIR ...]`: runs every test/**/*.test.ts (or only the files/folders given), each file in its
// own Node process with the tsx loader, BOOKMAKER_TEST_CONCURRENCY (default 2) at once; `--` flags go to each.
//
// Why not one `node --test FILE...`: Node 20's runner starts files in path order, so a long file (the chaos soak,
// the image build) that sorts late runs alone at the end while the other lane idles. Here the longest files start
// first (longest-processing-time order), by each file's wall time in the last run, kept in the OS temp folder
// (bookmaker-test-times.json, shared by the checkouts of a machine like the tests' data-set caches; SLOW below
// stands in where it is missing). A file never timed starts before the short ones, since it may be long. Each
// file's TAP output is printed whole when it ends, under a `# file:` line with its wall time; the end lists the
// slowest files and the failed ones.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

function collect(path, out) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'bench') continue;
      collect(join(path, name), out);
    }
  } else if (path.endsWith('.test.ts')) out.push(path);
  return out;
}

/**
 * Wall seconds of the slowest files (this runner, two files at once, measured at load average 10-20: about twice
 * a quiet machine's), for the order only, where the last run's times are missing.
 */
const SLOW = {
  'test/deploy/image-commands.test.ts': 192,
  'test/package/pack-install.test.ts': 184,
  'test/readme-commands.test.ts': 156,
  'test/chaos/chaos-soak.test.ts': 118,
  'test/backtest/cli.test.ts': 105,
  'test/e2e/controls-safety.e2e.test.ts': 92,
  'test/e2e/books-venue.e2e.test.ts': 86,
  'test/e2e/rotation-churn.e2e.test.ts': 83,
  'test/backtest/explain.test.ts': 81,
  'test/backtest/importers/importers.test.ts': 78,
  'test/e2e/ctl-startup.e2e.test.ts': 77,
  'test/e2e/doctor.e2e.test.ts': 74,
  'test/backtest/synthetic.test.ts': 70,
  'test/e2e/ledger-continuity.e2e.test.ts': 62,
  'test/cli/ledger-admin.test.ts': 51,
  'test/backtest/book-replay.test.ts': 47,
  'test/backtest/walk-forward.test.ts': 43,
  'test/e2e/ledger-failsafe.e2e.test.ts': 40,
  'test/e2e/logs.e2e.test.ts': 36,
  'test/e2e/ledger-limits.e2e.test.ts': 28,
  'test/backtest/sweep-shard.test.ts': 27,
  'test/backtest/sweep.test.ts': 26,
  'test/cli/sign.test.ts': 25,
  'test/package/entry-point.test.ts': 24,
};
/** A file never timed: ahead of the short ones (it may be long), behind the known long ones. */
const UNKNOWN_S = 20;

const TIMES = join(tmpdir(), 'bookmaker-test-times.json');
function readTimes() {
  try {
    const t = JSON.parse(readFileSync(TIMES, 'utf8'));
    return t && typeof t === 'object' ? t : {};
  } catch {
    return {};
  }
}
/** Merged into what is there (another checkout's run may have written it), written whole by a rename. */
function writeTimes(measured) {
  try {
    const all = { ...readTimes(), ...measured };
    const tmp = `${TIMES}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(all, null, 1));
    renameSync(tmp, TIMES);
  } catch {
    // no writable temp folder: the next run orders by SLOW again
  }
}

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const targets = args.filter((a) => !a.startsWith('--'));
const files = (targets.length ? targets : ['test']).flatMap((t) => collect(t, [])).map((f) => relative(process.cwd(), f));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = Math.max(1, Number(process.env.BOOKMAKER_TEST_CONCURRENCY ?? '2') || 2);
const known = readTimes();
const estimate = (f) => (typeof known[f] === 'number' ? known[f] : (SLOW[f] ?? UNKNOWN_S));
const queue = [...files].sort((a, b) => estimate(b) - estimate(a) || (a < b ? -1 : 1));

/** One file in its own process, as `node --test` would run it; its output is printed whole when it ends. */
function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const chunks = [];
    const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=tap', ...flags, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b) => chunks.push(b));
    child.stderr.on('data', (b) => chunks.push(b));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - t0) / 1000;
      const ok = code === 0;
      process.stdout.write(`# file: ${file} (${seconds.toFixed(1)} s)${ok ? '' : ` FAILED (exit ${code ?? signal})`}\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve({ file, seconds, ok });
    });
  });
}

const t0 = Date.now();
const results = [];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length) results.push(await runFile(queue.shift()));
  }),
);
if (!flags.length) writeTimes(Object.fromEntries(results.filter((r) => r.file.startsWith('test/')).map((r) => [r.file, Math.round(r.seconds * 10) / 10])));

const failed = results.filter((r) => !r.ok).map((r) => r.file);
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 15);
console.log(
  `# files ${results.length}, ${concurrency} at once: ${((Date.now() - t0) / 1000).toFixed(0)} s wall, ${results.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s summed`,
);
console.log(`# slowest: ${slowest.map((r) => `${r.file} ${r.seconds.toFixed(1)} s`).join(', ')}`);
if (failed.length) console.log(`# failed files (${failed.length}): ${failed.join(' ')}`);
process.exitCode = failed.length ? 1 : 0; // not process.exit: the output above, on a pipe, is written out first
