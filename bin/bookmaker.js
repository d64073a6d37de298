#!/usr/bin/env node
// Entry point of the `bookmaker` CLI.
//
// Which code runs: the build (dist/src/cli/main.js, from `npm run build`) when it is present and, in a
// checkout, not older than the sources; otherwise the TypeScript sources through the tsx loader
// (development). BOOKMAKER_SOURCE=1 forces the sources. The installed package and the Docker image ship
// only the build.
//
// Heap per command: BOOKMAKER_HEAP_LIMITS="run=128 import=2048 backtest=2048 default=512" (MB of V8 old
// space) re-executes this entry point once with --max-old-space-size for the command being run, so a
// quoting bot stays small while an import or a backtest gets the room it needs. An explicit
// --max-old-space-size in NODE_OPTIONS or on node's command line wins. The Docker image sets it.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newest } from './newest-mtime.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);

/** The --max-old-space-size (MB) configured for this command, or null. */
function heapLimitFor(command) {
  const spec = process.env.BOOKMAKER_HEAP_LIMITS;
  if (!spec || process.env.BOOKMAKER_HEAP_APPLIED) return null;
  if (/--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '') || process.execArgv.some((a) => a.startsWith('--max-old-space-size'))) return null;
  const limits = new Map();
  for (const part of spec.split(/[\s,]+/).filter(Boolean)) {
    const m = /^([a-z-]+)=(\d+)$/.exec(part);
    if (!m) {
      process.stderr.write(`bookmaker: BOOKMAKER_HEAP_LIMITS: ignoring "${part}" (expected COMMAND=MB, e.g. run=128)\n`);
      continue;
    }
    limits.set(m[1], Number(m[2]));
  }
  const mb = limits.get(command) ?? limits.get('default');
  return mb !== undefined && mb >= 16 ? mb : null;
}

const command = argv.find((a) => !a.startsWith('-')) ?? '';
const heapMb = heapLimitFor(command);
// the re-executed child of a launcher (below): the launcher's pid, watched through the IPC channel
const launcher = launcherOfThisProcess();
// `run` handles SIGHUP and SIGTERM from the first millisecond: noted here until the command
// takes them over (src/cli/early-signals.ts, the same registry), instead of Node's default exit. A
// re-executing parent forwards them instead (below).
if (command === 'run' && heapMb === null) installEarlySignals(launcher);
else if (launcher !== null) stopWhenLauncherGone(launcher);
if (heapMb !== null) {
  // Re-execute with the command's heap limit; forward the stop signals so shutdown (cancel all) still runs.
  // The IPC channel is the child's lifeline: it closes when this process ends, however it ends (kill -9,
  // the OOM killer), and the child then stops as on SIGTERM instead of quoting on unsupervised.
  const child = spawn(process.execPath, [...process.execArgv, `--max-old-space-size=${heapMb}`, fileURLToPath(import.meta.url), ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BOOKMAKER_HEAP_APPLIED: String(heapMb), BOOKMAKER_LAUNCHER_PID: String(process.pid) },
  });
  // A terminal's Ctrl-C reaches the whole foreground process group, the child included: forwarding it as
  // well would deliver it twice (a backtest reads a second Ctrl-C as "quit without the report"). Without a
  // terminal on stdin (docker stop / docker kill, kill -INT, an orchestrator), only this process gets it.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (sig === 'SIGINT' && process.stdin.isTTY) return;
      child.kill(sig);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 15)));
} else {
  // A closed pipe (`bookmaker markets list | head`) ends the command quietly instead of crashing.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e) => {
      if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const { main } = await import(pathToFileURL(await entry()).href);
  process.exitCode = await main(argv);
}

/**
 * This process's launcher (the parent that re-executed it with a heap limit, above) when it is one: its
 * pid, else null. The launcher is watched through the IPC channel it opened (its 'disconnect' event),
 * which keeps nothing alive (unref). The pid is shared with `run` through a global symbol
 * (src/cli/early-signals.ts, launcherPid) and kept from any process this one starts.
 */
function launcherOfThisProcess() {
  const pid = Number(process.env.BOOKMAKER_LAUNCHER_PID);
  delete process.env.BOOKMAKER_LAUNCHER_PID;
  // process.send stays defined once the channel is gone (process.channel is then null): a launcher killed before
  // this line ran is still this process's launcher, gone already (process.connected false)
  if (!Number.isInteger(pid) || pid <= 0 || typeof process.send !== 'function') return null;
  globalThis[Symbol.for('bookmaker.launcher')] = pid;
  return pid;
}

/** Commands other than `run`: a launcher gone ends this process as a SIGTERM would (the command's own handling). */
function stopWhenLauncherGone(pid) {
  const gone = () => {
    process.stderr.write(`bookmaker: the launcher process (pid ${pid}) is gone: stopping as on SIGTERM\n`);
    process.kill(process.pid, 'SIGTERM');
  };
  process.once('disconnect', gone);
  process.channel?.unref();
  if (!process.connected) gone();
}

/**
 * See src/cli/early-signals.ts: the same registry, installed before the TypeScript loader. A launcher
 * gone during start-up is noted as `launcher-gone` (LAUNCHER_GONE there).
 */
function installEarlySignals(launcherPid) {
  const key = Symbol.for('bookmaker.earlySignals');
  if (globalThis[key]) return;
  const received = [];
  const handlers = ['SIGHUP', 'SIGTERM', 'SIGINT'].map((sig) => {
    const h = () => {
      received.push(sig);
      process.stderr.write(
        `bookmaker: ${sig} during start-up: ${sig === 'SIGHUP' ? 'a reload is deferred until the bot runs' : 'stopping once start-up can be interrupted'}\n`,
      );
    };
    process.on(sig, h);
    return [sig, h];
  });
  if (launcherPid !== null) {
    let noted = false;
    const h = () => {
      if (noted) return;
      noted = true;
      received.push('launcher-gone');
      process.stderr.write(`bookmaker: the launcher process (pid ${launcherPid}) is gone during start-up: stopping once start-up can be interrupted\n`);
    };
    process.on('disconnect', h);
    process.channel?.unref();
    handlers.push(['disconnect', h]);
    if (!process.connected) h();
  }
  globalThis[key] = { received, release: () => handlers.forEach(([sig, h]) => process.off(sig, h)) };
}

async function entry() {
  const built = join(root, 'dist', 'src', 'cli', 'main.js');
  const source = join(root, 'src', 'cli', 'main.ts');
  const hasSource = existsSync(source);
  let useBuild = existsSync(built) && !(hasSource && process.env.BOOKMAKER_SOURCE === '1');
  // In a checkout, a build older than the sources is stale: run the sources rather than old code.
  if (useBuild && hasSource) {
    const builtAt = statSync(built).mtimeMs;
    useBuild = newest(join(root, 'src')) <= builtAt && newest(join(root, 'strategies')) <= builtAt;
  }
  if (useBuild) return built;
  const { register } = await import('tsx/esm/api');
  register();
  return source;
}
