#!/usr/bin/env node
// `npm test [-- FILE|DIR ...]`: runs every test/**/*.test.ts (or only the files/folders given), each file in its
// own Node process, or, for the small files that cannot reach past their own tests, several of a folder one after
// another in one process (see GROUP_MAX below: which files, and how each is still reported and timed out on its
// own); `--` flags go to each (and run every file alone). The TypeScript loader is the runner's own
// (scripts/ts-loader.mjs: tsx's esbuild transform of this package's ESM .ts files, cached by content, without tsx's
// ~0.4 CPU-s start in each of ~400 processes), except for the files in TSX_FILES below, which test what only tsx
// does (a user's .ts strategy outside the package, CommonJS to tsx) and run under `--import tsx` as before. A file
// the runner's loader cannot run fails saying so, naming TSX_FILES.
// BOOKMAKER_TEST_LOADER=tsx runs every file under tsx.
//
// Why not one `node --test FILE...`: Node 20's runner starts files in path order, so a long file (the chaos soak,
// the image build) that sorts late runs alone at the end while the other lane idles. Here the longest files start
// first (longest-processing-time order), by each file's wall time in the last run, kept in the OS temp folder
// (bookmaker-test-times.json, shared by the checkouts of a machine like the tests' data-set caches; SLOW below
// stands in where it is missing). A file never timed starts before the short ones, since it may be long. Each
// file's TAP output is printed whole when it ends, under a `# file:` line with its wall and CPU seconds; the end
// lists the slowest files and the failed ones.
//
// How many at once: BOOKMAKER_TEST_CONCURRENCY (default 2, the cores of the machines here) is a CPU budget, not a
// file count. Many of the longest files mostly wait (a bot quoting for its --duration, a churning sim's clock, a
// soak): each file's CPU seconds in its last run over the least wall seconds it ever took here (both kept in
// bookmaker-test-cpu.json beside the times: a loaded machine stretches the wall, not the work, so the least wall is
// the nearest to the file's own) is the share of a core it keeps busy, and a file starts beside the running ones
// while their shares and its own add up to the budget (a file never measured counts as a whole core), up to
// BOOKMAKER_TEST_MAX_FILES files (default twice the budget). So two busy files run as before, and a waiting file fills the idle core time
// beside them. BOOKMAKER_TEST_MAX_FILES=2 runs two at once whatever they cost.
//
// The whole suite (no files named, or BOOKMAKER_TEST_BUILD=1; not with BOOKMAKER_TEST_BUILD=0) first compiles the
// build the CLI's child processes run, when dist/ is missing or older than the sources: see build() below.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newest } from '../bin/newest-mtime.js';
import { nextToStart } from './test-lanes.mjs';

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
 * [wall, CPU] seconds of the slowest files, for the order and the shares only where this machine's figures are
 * missing (a new machine): the least wall seen on the development machines (two at once, load average 2-20) and
 * the CPU of a whole run of this runner (load average 22-38, which inflates CPU a little).
 */
const SLOW = {
  'test/readme-commands.test.ts': [72, 52],
  'test/e2e/rotation-churn.e2e.test.ts': [63, 8],
  'test/chaos/chaos-soak.test.ts': [49, 14],
  'test/package/pack-install.test.ts': [35, 23],
  'test/e2e/books-venue.e2e.test.ts': [35, 9],
  'test/deploy/image-commands.test.ts': [32, 39],
  'test/security/secrets-in-outputs.test.ts': [20, 7],
  'test/e2e/ledger-limits.e2e.test.ts': [16, 6],
  'test/e2e/controls-safety.e2e.test.ts': [16, 18],
  'test/backtest/importers/importers.test.ts': [15, 11],
  'test/e2e/ledger-failsafe.e2e.test.ts': [14, 9],
  'test/e2e/venue-faults.e2e.test.ts': [12, 3],
  'test/deploy/alertmanager.e2e.test.ts': [12, 4],
  'test/e2e/watchdog.e2e.test.ts': [12, 7],
  'test/e2e/signals.e2e.test.ts': [12, 12],
  'test/e2e/shards.e2e.test.ts': [12, 10],
  'test/deploy/prometheus-alert.e2e.test.ts': [11, 4],
  'test/backtest/book-replay.test.ts': [11, 11],
  'test/backtest/parity.test.ts': [10, 3],
  'test/sim/durability/crash.test.ts': [10, 3],
  'test/e2e/ledger-continuity.e2e.test.ts': [10, 8],
  'test/runtime/watchdog.test.ts': [8, 3],
  'test/e2e/ctl-startup.e2e.test.ts': [8, 9],
  'test/backtest/cli.test.ts': [8, 8],
};
/**
 * The files that run under tsx (`--import tsx`) rather than the runner's loader (scripts/ts-loader.mjs): those whose
 * tests load TypeScript the runner's loader does not compile (outside an ESM package scope, through require()).
 */
const TSX_FILES = new Set([
  // a user's .ts strategy in a temp folder (no package.json: CommonJS to tsx), loaded through the registry
  'test/strategy/registry.test.ts',
  'test/config/load-config.test.ts',
]);
const LOADER = join(dirname(fileURLToPath(import.meta.url)), 'ts-loader.mjs');
const allTsx = process.env.BOOKMAKER_TEST_LOADER === 'tsx';
/**
 * The loader's cache (one file per compiled version of a source, ~20 KB; ~1,000 sources here) only grows as the
 * sources change: past TS_CACHE_MAX files it is emptied at the runner's start, and refilled as the files load.
 */
const TS_CACHE_MAX = 5_000;
{
  const cache = process.env.BOOKMAKER_TS_CACHE || join(tmpdir(), 'bookmaker-ts-cache');
  try {
    if (readdirSync(cache).length > TS_CACHE_MAX) rmSync(cache, { recursive: true, force: true });
  } catch {
    // no cache yet
  }
}
/** The `--import` of a test file's process. */
const loaderOf = (file) => (allTsx || TSX_FILES.has(file) ? 'tsx' : LOADER);

/** A file never timed: ahead of the short ones (it may be long), behind the known long ones. */
const UNKNOWN_S = 20;

const TIMES = join(tmpdir(), 'bookmaker-test-times.json');
/**
 * Each file's `{ cpu, wall }`: its CPU seconds (user + system, the file's process and the children it waited for) in
 * its last run, and the least wall seconds it took in any run.
 */
const CPU = join(tmpdir(), 'bookmaker-test-cpu.json');
function readTimes(path = TIMES) {
  try {
    const t = JSON.parse(readFileSync(path, 'utf8'));
    return t && typeof t === 'object' ? t : {};
  } catch {
    return {};
  }
}
/** Merged into what is there (another checkout's run may have written it), written whole by a rename. */
function writeTimes(measured, path = TIMES) {
  try {
    const all = { ...readTimes(path), ...measured };
    const tmp = `${path}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(all, null, 1));
    renameSync(tmp, path);
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
const maxFiles = Math.max(1, Math.floor(Number(process.env.BOOKMAKER_TEST_MAX_FILES ?? concurrency * 2) || concurrency * 2));
const known = readTimes();
const knownCpu = readTimes(CPU);
/**
 * The share of a core `file` keeps busy: its CPU seconds over its least wall seconds, else from SLOW (at least 0.05,
 * at most the whole budget), or a whole core when neither has both.
 */
function share(file) {
  const k = knownCpu[file];
  const [wall, cpu] = k && typeof k.cpu === 'number' && typeof k.wall === 'number' ? [k.wall, k.cpu] : (SLOW[file] ?? []);
  if (typeof cpu !== 'number' || typeof wall !== 'number' || !(wall > 0)) return 1;
  return Math.min(concurrency, Math.max(0.05, cpu / wall));
}
const estimate = (f) => (typeof known[f] === 'number' ? known[f] : (SLOW[f]?.[0] ?? UNKNOWN_S));

/**
 * Small test files share a process (scripts/test-group.mjs runs them one after another, each file's tests ended
 * before the next file is imported; its reporter, scripts/test-group-reporter.mjs, keeps each file's TAP apart):
 * ~0.4 CPU-s a file less (one Node start, one loader, the modules they import loaded once), ~90 CPU-s of the suite.
 * Only files that cannot reach past their own tests: groupable() reads the file's source, and that of the test
 * helpers it imports (relative imports outside src/ and strategies/, followed), and refuses any file
 * that touches process-wide state (process.* other than a few read-only fields, globals, a built-in's method
 * replaced), registers a hook (before/after/beforeEach/afterEach: at the top level they would run around other
 * files' tests), mocks (node:test's mock), starts a child process, a worker, a vm or an interval, uses prom-client's
 * registry, imports a helper that starts processes, or is an end-to-end file (*.e2e.test.ts); and the files of
 * NEVER_GROUP (they pass that reading but share state through what they import). The groups are the groupable
 * files of one folder in path order, GROUP_MAX at most, so a folder's groups are the same whether the whole suite
 * or only that folder runs. Each file is still reported under its own `# file:` line (its wall time; the group's
 * CPU), a failing test fails its file, and a file still running after BOOKMAKER_TEST_FILE_TIMEOUT (counted from
 * its own start) fails as timed out, its group stopped; the files of the group that had not started then run
 * alone. Not with `--` flags, nor with BOOKMAKER_TEST_GROUP=0 (every file alone, as before).
 */
const GROUP_MAX = 12;
const NEVER_GROUP = new Set([]);
const UNGROUPABLE = [
  /\bprocess\.(?!cwd\(\)|execPath\b|platform\b|arch\b|versions?\b|pid\b|hrtime\b|memoryUsage\b|cpuUsage\b|nextTick\b)/,
  /\bglobalThis\b|\bglobal\./,
  /\b(before|after|beforeEach|afterEach)\s*\(/,
  /\bmock\b/,
  /node:(child_process|worker_threads|cluster|vm|inspector|v8)\b/,
  /\b(Date|Math|console|JSON|Promise|Object|Array|Symbol|Error|Reflect|performance)\.\w+\s*=(?!=)/,
  /\bprom-client\b/,
  /\bsetInterval\s*\(/,
  /from '[^']*(support\/(cli|bot-orchestrator|sim-child)|e2e\/harness|deploy\/|package\/pack)[^']*'/,
];
/** Per path: whether the file and the test helpers it imports read clean of UNGROUPABLE (see groupable). */
const cleanSources = new Map();
/**
 * `path` and, followed from it, every relative import outside src/ and strategies/ (a test's own helpers; the
 * product's modules are what the tests exercise, each in its own tests) have none of UNGROUPABLE.
 */
function cleanSource(path) {
  if (cleanSources.has(path)) return cleanSources.get(path);
  cleanSources.set(path, true); // an import cycle reads as clean here; its other files still decide
  let source;
  try {
    source = readFileSync(path, 'utf8');
  } catch {
    cleanSources.set(path, false);
    return false;
  }
  let clean = !UNGROUPABLE.some((re) => re.test(source));
  for (const m of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    if (!clean) break;
    const dep = relative(process.cwd(), join(dirname(path), m[1]));
    if (/^(src|strategies)\//.test(dep) || !/\.(ts|mts|js|mjs)$/.test(dep)) continue;
    clean = cleanSource(dep);
  }
  cleanSources.set(path, clean);
  return clean;
}
/** Whether `file` may share a process with others (see above). */
function groupable(file) {
  if (file.endsWith('.e2e.test.ts') || NEVER_GROUP.has(file) || TSX_FILES.has(file) || file in SLOW) return false;
  return cleanSource(file);
}
const grouping = !flags.length && process.env.BOOKMAKER_TEST_GROUP !== '0' && !allTsx;
/** What runs in one process: `{ name, files, group }`, a group when it has more than one file. */
const units = [];
{
  const byDir = new Map();
  for (const f of [...files].sort()) {
    if (grouping && groupable(f)) {
      const d = dirname(f);
      if (!byDir.has(d)) byDir.set(d, []);
      byDir.get(d).push(f);
    } else units.push({ name: f, files: [f], group: false });
  }
  for (const [d, fs] of byDir) {
    const n = Math.ceil(fs.length / GROUP_MAX);
    for (let i = 0; i < n; i++) {
      const part = fs.slice(Math.floor((i * fs.length) / n), Math.floor(((i + 1) * fs.length) / n));
      if (part.length === 1) units.push({ name: part[0], files: part, group: false });
      else units.push({ name: `${d}/ (${n > 1 ? `${i + 1} of ${n}, ` : ''}${part.length} files)`, files: part, group: true });
    }
  }
}
/** A unit's wall seconds (a group's: its files'), for the longest-first order. */
const unitEstimate = (u) => u.files.reduce((a, f) => a + estimate(f), 0);
/** A group keeps a core busy (small files that compute); a lone file's share is its own. */
const unitShare = (u) => (u.group ? 1 : share(u.files[0]));
const byLongest = (a, b) => unitEstimate(b) - unitEstimate(a) || (a.name < b.name ? -1 : 1);
const queue = units.sort(byLongest);
// BOOKMAKER_TEST_LIST=1: what would run in which process, and nothing run
if (process.env.BOOKMAKER_TEST_LIST === '1') {
  for (const u of [...units].sort((a, b) => (a.name < b.name ? -1 : 1))) console.log(u.group ? `group ${u.name}: ${u.files.join(' ')}` : `alone ${u.name}`);
  process.exit(0);
}

/** The runner's reaped children's CPU seconds when the last child was reaped (see childrenCpuSeconds). */
let reapedCpu = 0;

/**
 * A file may run for BOOKMAKER_TEST_FILE_TIMEOUT seconds (default 600; the longest file takes ~75 s on a quiet
 * machine here): then its process group is stopped (SIGTERM, SIGKILL 5 s later) and the file fails, its output so far
 * printed with the processes that were still running. Without it one test waiting on an event that never came (or a
 * child it started and never stopped, holding the file's output pipe open) held the whole suite until CI's own
 * limit killed it, with nothing said about which file. At half the limit the runner says which file is still running.
 */
const fileTimeoutS = Math.max(1, Number(process.env.BOOKMAKER_TEST_FILE_TIMEOUT ?? '600') || 600);
/** After a file's process ends, how long the processes it started may keep its output pipes open. */
// how long a file's process group may outlive its process before what is left is listed and stopped
const LINGER_MS = Number(process.env.BOOKMAKER_TEST_LINGER_MS) > 0 ? Number(process.env.BOOKMAKER_TEST_LINGER_MS) : 5_000;
/** The process groups of the running files (each file is its own group's leader), stopped if the runner is. */
const groups = new Set();
/** Set when the runner is stopped: no file starts after it. */
let stopping = false;

/** The live processes of a process group, `pid command` each (Linux: /proc; elsewhere an empty list). */
function groupProcesses(pgid) {
  const out = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // a zombie (Z: ended, waiting for its reaper) or one being torn down (X) runs nothing
      if (Number(f[2]) !== pgid || f[0] === 'Z' || f[0] === 'X') continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      out.push(`${pid} ${cmd.length > 160 ? `${cmd.slice(0, 160)}…` : cmd}`);
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * Watches the process of a file (or of a group of files), the leader of its own process group: the timeout (armed
 * by `arm`, again for each file of a group: at half of it the runner says which file is still running; at the
 * limit the processes still running are listed and the group stopped, SIGTERM then SIGKILL 5 s later), its CPU
 * seconds (what the reaped children's total grew by when it was reaped: on Linux; null elsewhere; two processes
 * reaped in the same instant would share theirs, which only blurs the next run's order), and what it leaves
 * running after its process ended (a child it never stopped, holding its output pipes open: listed and stopped
 * with the group, LINGER_MS after the exit, or at once when the pipes close with a process of the group still
 * running). `onClose` gets `{ code, signal, cpu, timedOut, leftRunning }` once the output pipes closed:
 * `timedOut` is null or `{ label, procs }` (the label `arm` was given, the processes listed), `leftRunning` the
 * processes listed after the exit. One watcher for runFile and runGroup, so a file is treated the same alone or
 * in a group.
 */
function watchChild(child, onClose) {
  const pgid = child.pid;
  if (pgid !== undefined) groups.add(pgid);
  let exitCode = null;
  let exitSignal = null;
  let cpu = null;
  let timedOut = null;
  let leftRunning = [];
  let warn = null;
  let limit = null;
  let linger = null;
  const clearTimers = () => {
    clearTimeout(warn);
    clearTimeout(limit);
  };
  /** (Re)starts the timeout of `label` (a file), from now; `where` follows its name in the half-time note. */
  const arm = (label, where = '') => {
    clearTimers();
    warn = setTimeout(() => process.stdout.write(`# still running after ${fileTimeoutS / 2} s: ${label}${where}\n`), (fileTimeoutS / 2) * 1000);
    limit = setTimeout(() => {
      timedOut = { label, procs: groupProcesses(pgid) };
      killGroup(pgid, 'SIGTERM');
      setTimeout(() => killGroup(pgid, 'SIGKILL'), 5_000).unref();
    }, fileTimeoutS * 1000);
  };
  child.on('exit', (code, signal) => {
    exitCode = code;
    exitSignal = signal;
    // the process ended within its time: what it left running is the linger's to stop, not a timeout (a file
    // ending near the limit with a child holding its pipes was reported as timed out)
    clearTimers();
    const now = childrenCpuSeconds();
    if (now !== null) {
      cpu = Math.max(0, now - reapedCpu);
      reapedCpu = now;
    }
    // what it started and left running holds the output pipes open: listed, then stopped
    linger = setTimeout(() => {
      leftRunning = groupProcesses(pgid);
      killGroup(pgid, 'SIGKILL');
    }, LINGER_MS);
  });
  child.on('close', () => {
    clearTimers();
    clearTimeout(linger);
    if (pgid !== undefined) {
      // the pipes closed, but a process of the group may still run (its output elsewhere)
      if (leftRunning.length === 0) leftRunning = groupProcesses(pgid);
      if (leftRunning.length) killGroup(pgid, 'SIGKILL');
      groups.delete(pgid);
    }
    onClose({ code: exitCode, signal: exitSignal, cpu, timedOut, leftRunning });
  });
  return { arm };
}

/** The lines `# NAME: WHAT (stopped):` and `#   pid command` a line for each of `procs`. */
const listed = (name, what, procs) => `# ${name}: ${what} (stopped):\n${procs.map((l) => `#   ${l}\n`).join('')}`;

/**
 * One file in its own process, as `node --test` would run it, in its own process group (watched by watchChild:
 * its timeout, its CPU, what it leaves running); its output is printed whole when it ends.
 */
function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const chunks = [];
    const child = spawn(process.execPath, ['--import', loaderOf(file), '--test-reporter=tap', ...flags, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.on('data', (b) => chunks.push(b));
    child.stderr.on('data', (b) => chunks.push(b));
    const watch = watchChild(child, ({ code, signal, cpu, timedOut, leftRunning }) => {
      const seconds = (Date.now() - t0) / 1000;
      const ok = code === 0 && timedOut === null;
      const cost = cpu === null ? '' : `; cpu ${cpu.toFixed(1)} s`;
      const why = timedOut !== null ? ` FAILED (timed out after ${fileTimeoutS} s)` : ok ? '' : ` FAILED (exit ${code ?? signal})`;
      process.stdout.write(`# file: ${file} (${seconds.toFixed(1)} s${cost})${why}\n`);
      process.stdout.write(Buffer.concat(chunks));
      if (timedOut !== null) process.stdout.write(listed(file, 'still running when it timed out', timedOut.procs));
      if (leftRunning.length) process.stdout.write(listed(file, 'left running after it ended', leftRunning));
      resolve({ file, seconds, cpu, ok, timedOut: timedOut !== null, leftRunning: leftRunning.length });
    });
    watch.arm(file);
  });
}

const GROUP_DRIVER = join(dirname(fileURLToPath(import.meta.url)), 'test-group.mjs');
const GROUP_REPORTER = join(dirname(fileURLToPath(import.meta.url)), 'test-group-reporter.mjs');

/**
 * Several files in one process (scripts/test-group.mjs), in their order; resolves `{ results, alone }`: a result
 * per file that ran (as runFile's, its CPU null: the group's is in its lines), and the files that never started
 * because the group was stopped (a file timed out, or the process died), to run alone. Each file's output (what
 * it wrote while it ran, then its TAP section from the group's reporter) is printed under its own `# file:` line.
 * The timeout counts from each file's start: a file that hangs fails as timed out, named, with the processes
 * still running.
 */
function runGroup(files) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const per = new Map(files.map((f) => [f, { out: [], tap: null, status: null, loadfail: false, seconds: null, started: false }]));
    const stray = [];
    let current = null;
    let section = null;
    let rest = false;
    // stderr into the stdout pipe (sh's 2>&1, then exec: the same pid), so what a file writes to either stays in
    // the order it was written and lands under that file, not under the next one
    const argv = [process.execPath, '--import', LOADER, `--test-reporter=${GROUP_REPORTER}`, GROUP_DRIVER, ...files];
    const child = existsSync('/bin/sh')
      ? spawn('/bin/sh', ['-c', 'exec "$@" 2>&1', 'sh', ...argv], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let watch = null;
    const sink = () => (current ? per.get(current).out : stray);
    const onLine = (line) => {
      if (section !== null) {
        if (line === `# bookmaker-group-end: ${section}`) section = null;
        else per.get(section).tap.push(line);
        return;
      }
      let m = /^# bookmaker-group-(start|loadfail|done|file): (.*?)(?: (ok|failed|[0-9.]+))?$/.exec(line);
      if (m && per.has(m[2])) {
        const p = per.get(m[2]);
        if (m[1] === 'start') {
          current = m[2];
          p.started = true;
          watch.arm(current, ' (in a group)');
        } else if (m[1] === 'loadfail') p.loadfail = true;
        else if (m[1] === 'done') p.seconds = Number(m[3]);
        else if (m[1] === 'file' && m[3]) {
          p.tap = [];
          p.status = m[3];
          section = m[2];
        }
        return;
      }
      if (line === '# bookmaker-group-rest') {
        rest = true;
        current = null;
        return;
      }
      (rest ? stray : sink()).push(line);
    };
    const lines = (onEach) => {
      let pending = '';
      return {
        data(b) {
          const parts = (pending + b.toString('utf8')).split('\n');
          pending = parts.pop();
          for (const l of parts) onEach(l);
        },
        end() {
          if (pending) onEach(pending);
          pending = '';
        },
      };
    };
    const out = lines(onLine);
    const err = lines((l) => sink().push(l));
    child.stdout.on('data', out.data);
    child.stderr.on('data', err.data);
    watch = watchChild(child, ({ code, signal, cpu, timedOut, leftRunning }) => {
      out.end();
      err.end();
      const seconds = (Date.now() - t0) / 1000;
      const cost = cpu === null ? '' : `; cpu ${cpu.toFixed(1)} s`;
      const ran = files.filter((f) => per.get(f).started);
      const alone = files.filter((f) => !per.get(f).started);
      const exit = `exit ${code ?? signal}`;
      process.stdout.write(
        `# group: ${ran.length} files in one process (${seconds.toFixed(1)} s${cost})${alone.length ? `; stopped early, to run alone: ${alone.join(' ')}` : ''}\n`,
      );
      const results = [];
      for (const f of ran) {
        const p = per.get(f);
        let why = '';
        let timed = false;
        if (timedOut?.label === f) {
          why = ` FAILED (timed out after ${fileTimeoutS} s)`;
          timed = true;
        } else if (p.loadfail) why = ' FAILED (threw when imported)';
        else if (p.tap === null) why = ` FAILED (the group's process ended while it ran: ${exit})`;
        else if (p.status !== 'ok') why = ' FAILED (a test failed)';
        const s = p.seconds ?? (p.tap === null ? seconds : 0);
        process.stdout.write(
          `# file: ${f} (${s.toFixed(1)} s; grouped: the group's cpu ${cost ? `${cpu.toFixed(1)} s` : 'unknown'} for ${ran.length} files)${why}\n`,
        );
        const text = [...p.out, ...(p.tap ?? [])].join('\n');
        if (text) process.stdout.write(`${text}\n`);
        if (timed) process.stdout.write(listed(f, 'still running when it timed out', timedOut.procs));
        results.push({ file: f, seconds: s, cpu: null, ok: why === '', timedOut: timed, leftRunning: 0 });
      }
      if (stray.length) process.stdout.write(`${stray.join('\n')}\n`);
      // the process failed though none of its files did (an error after the last file's tests): the group fails
      const anyFailed = results.some((r) => !r.ok);
      if (!anyFailed && timedOut === null && code !== 0) {
        results.push({
          file: `(group of ${ran.join(' ')}: ${exit} after its files' tests)`,
          seconds: 0,
          cpu: null,
          ok: false,
          timedOut: false,
          leftRunning: 0,
        });
      }
      if (leftRunning.length) {
        const last = ran.at(-1) ?? files[0];
        process.stdout.write(listed(`${last} (its group)`, 'left running after it ended', leftRunning));
        const r = results.find((x) => x.file === last);
        if (r) r.leftRunning = leftRunning.length;
      }
      resolve({ results, alone });
    });
    watch.arm(files[0], ' (in a group)');
  });
}

/** The runner stopped (Ctrl-C, CI's limit): the files' process groups go with it. */
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    stopping = true;
    for (const g of groups) killGroup(g, 'SIGTERM');
    setTimeout(() => {
      for (const g of groups) killGroup(g, 'SIGKILL');
      process.exit(sig === 'SIGINT' ? 130 : 143);
    }, 2_000).unref();
  });
}
process.on('exit', () => {
  for (const g of groups) killGroup(g, 'SIGKILL');
});

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
// BOOKMAKER_TEST_BUILD=only builds and runs no test (.ci/run builds while the typecheck and npm's native compile run).
const wantBuild = ['1', 'only'].includes(process.env.BOOKMAKER_TEST_BUILD) || (!targets.length && process.env.BOOKMAKER_TEST_BUILD !== '0');
if (wantBuild && process.env.BOOKMAKER_SOURCE !== '1') build();
if (process.env.BOOKMAKER_TEST_BUILD === 'only') process.exit(0);

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

/** Every unit of the queue (a file, a group), started as nextToStart (scripts/test-lanes.mjs) says; resolves when the last one ends. */
async function runAll() {
  const running = new Map(); // unit → share
  const out = [];
  let most = 0;
  await new Promise((finished) => {
    const fill = () => {
      while (!stopping) {
        const i = nextToStart(queue, [...running.values()], unitShare, concurrency, maxFiles);
        if (i < 0) break;
        const [unit] = queue.splice(i, 1);
        running.set(unit, unitShare(unit));
        most = Math.max(most, running.size);
        (unit.group ? runGroup(unit.files) : runFile(unit.files[0]).then((r) => ({ results: [r], alone: [] }))).then(({ results, alone }) => {
          out.push(...results);
          // a group stopped early: its files that had not started run alone
          if (alone.length) {
            queue.push(...alone.map((f) => ({ name: f, files: [f], group: false })));
            queue.sort(byLongest);
          }
          running.delete(unit);
          fill();
          if (running.size === 0) finished();
        });
      }
    };
    fill();
    if (running.size === 0) finished();
  });
  return { results: out, most };
}

reapedCpu = childrenCpuSeconds() ?? 0; // the build's
const t0 = Date.now();
const { results, most } = await runAll();
if (!flags.length) {
  const timed = results.filter((r) => r.file.startsWith('test/'));
  writeTimes(Object.fromEntries(timed.map((r) => [r.file, Math.round(r.seconds * 10) / 10])));
  const prior = readTimes(CPU); // as it is now: another checkout's run may have written it since this run began
  const least = (r) => Math.min(r.seconds, typeof prior[r.file]?.wall === 'number' ? prior[r.file].wall : Infinity);
  const costs = timed.filter((r) => r.cpu !== null).map((r) => [r.file, { cpu: Math.round(r.cpu * 10) / 10, wall: Math.round(least(r) * 10) / 10 }]);
  writeTimes(Object.fromEntries(costs), CPU);
}

const failed = results.filter((r) => !r.ok).map((r) => r.file);
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 15);
console.log(
  `# files ${results.length}, a CPU budget of ${concurrency}, up to ${maxFiles} at once (${most} reached): ${((Date.now() - t0) / 1000).toFixed(0)} s wall, ${results.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s summed`,
);
const cpu = childrenCpuSeconds();
if (cpu !== null) console.log(`# cpu: ${cpu.toFixed(0)} s user+sys in the runner's children (the build, the files and their children)`);
console.log(`# slowest: ${slowest.map((r) => `${r.file} ${r.seconds.toFixed(1)} s`).join(', ')}`);
const timedOut = results.filter((r) => r.timedOut).map((r) => r.file);
if (timedOut.length) console.log(`# timed out (${timedOut.length}, after ${fileTimeoutS} s each): ${timedOut.join(' ')}`);
const leaked = results.filter((r) => r.leftRunning > 0).map((r) => `${r.file} (${r.leftRunning})`);
if (leaked.length) console.log(`# files that left processes running after they ended (stopped): ${leaked.join(', ')}`);
if (failed.length) console.log(`# failed files (${failed.length}): ${failed.join(' ')}`);
process.exitCode = failed.length ? 1 : 0; // not process.exit: the output above, on a pipe, is written out first
