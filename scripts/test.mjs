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
//
// The whole suite (no files named, or BOOKMAKER_TEST_BUILD=1; not with BOOKMAKER_TEST_BUILD=0) first compiles the
// build the CLI's child processes run, when dist/ is missing or older than the sources: see build() below.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { newest } from '../bin/newest-mtime.js';

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

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * dist/ as `npm run build` emits it (the JavaScript, not the .d.ts), when it is missing or stale. Hundreds of the
 * suite's child processes are the CLI (bin/bookmaker.js: the README's commands, the e2e bots and sims, the
 * backtests, the ledger admin): it runs the build when fresh, as the package and the Docker image do, and
 * otherwise loads every module through tsx, which costs each child about half a CPU-second more. tsc with
 * --noCheck emits the same files as the type-checked build (isolatedModules: each file compiles alone) at a
 * third of its cost; the typecheck is `npm run lint`'s and CI's. Emitted beside dist/ and renamed into place,
 * so a child sees either no build (the sources) or a whole one. A failed build is reported and the suite runs
 * on the sources.
 */
function build() {
  const root = process.cwd();
  const main = join(root, 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(join(root, 'tsconfig.build.json')) || !existsSync(join(root, 'src'))) return;
  if (existsSync(main) && Math.max(newest(join(root, 'src')), newest(join(root, 'strategies'))) <= statSync(main).mtimeMs) {
    console.log('# build: dist/ is fresh');
    return;
  }
  // what a killed run left beside dist/ (its process gone)
  for (const name of readdirSync(root)) {
    const m = /^dist\.(?:tmp|old)-(\d+)$/.exec(name);
    if (m && !alive(Number(m[1]))) rmSync(join(root, name), { recursive: true, force: true });
  }
  const t = Date.now();
  const tmp = join(root, `dist.tmp-${process.pid}`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--declaration', 'false', '--outDir', tmp], {
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    console.log(`# build: tsc failed (exit ${r.status ?? r.signal}); the CLI's children run the sources through tsx\n${r.stdout}${r.stderr}`);
    return;
  }
  const old = join(root, `dist.old-${process.pid}`);
  try {
    if (existsSync(join(root, 'dist'))) renameSync(join(root, 'dist'), old);
    renameSync(tmp, join(root, 'dist'));
  } catch {
    // another run moved the stale build or put its own in place meanwhile: the same sources, the same files
  }
  rmSync(tmp, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
  console.log(`# build: dist/ compiled for the CLI's children (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
// BOOKMAKER_TEST_BUILD=0 skips it; so does BOOKMAKER_SOURCE=1, with which every child runs the sources anyway.
const wantBuild = process.env.BOOKMAKER_TEST_BUILD === '1' || (!targets.length && process.env.BOOKMAKER_TEST_BUILD !== '0');
if (wantBuild && process.env.BOOKMAKER_SOURCE !== '1') build();

/**
 * CPU seconds (user + system) of this runner's finished children and their own waited-for children (Linux:
 * /proc/self/stat cutime + cstime, in USER_HZ = 100 ticks a second), or null elsewhere. On a loaded machine the
 * suite's wall time says little; this says what the suite costs.
 */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100; // fields 16 and 17 of proc(5), counted from the state (field 3)
  } catch {
    return null;
  }
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
const cpu = childrenCpuSeconds();
if (cpu !== null) console.log(`# cpu: ${cpu.toFixed(0)} s user+sys in the runner's children (the build, the files and their children)`);
console.log(`# slowest: ${slowest.map((r) => `${r.file} ${r.seconds.toFixed(1)} s`).join(', ')}`);
if (failed.length) console.log(`# failed files (${failed.length}): ${failed.join(' ')}`);
process.exitCode = failed.length ? 1 : 0; // not process.exit: the output above, on a pipe, is written out first
