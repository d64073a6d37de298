/**
 * The test runner's tests (test/scripts/test-runner-hangs.test.ts, test-runner-groups, test-build-only): a tiny
 * project in a temp folder with the runner's files, and the runner run in it.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The files of the test runner (scripts/test.mjs and what it starts), copied into the tests' tiny temp projects. */
export const RUNNER_FILES = [
  'scripts/test.mjs',
  'scripts/test-lanes.mjs',
  'scripts/ts-loader.mjs',
  'scripts/ts-loader-hooks.mjs',
  'scripts/test-group.mjs',
  'scripts/test-group-reporter.mjs',
  'bin/newest-mtime.js',
];

const REPO = process.cwd();

/**
 * A temp folder (`prefix` + random) holding the runner's files, this checkout's node_modules (a link) and an ESM
 * package.json, and `files` (path in the project → text; their folders made). The caller removes it.
 */
export function runnerProject(prefix: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const f of RUNNER_FILES) {
    mkdirSync(join(dir, dirname(f)), { recursive: true });
    copyFileSync(join(REPO, f), join(dir, f));
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFiles(dir, files);
  return dir;
}

/** `files` (path in the project → text) written in the project `dir`, their folders made. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(f)), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

/**
 * `node scripts/test.mjs` in the project `dir`, to its end, killed after `timeoutMs` (a runner that never returns:
 * the caller asserts `signal` is not SIGKILL). No build (BOOKMAKER_TEST_BUILD=0) unless `env` says; TMPDIR is the
 * project, so the runner's timing files and the loader's cache stay in it; and without NODE_TEST_CONTEXT, which
 * `node --test` sets in its children and which would make the runner's own children report to it, not in TAP.
 */
export function runRunner(dir: string, env: Record<string, string> = {}, timeoutMs = 180_000): SpawnSyncReturns<string> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, ['scripts/test.mjs'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...base, BOOKMAKER_TEST_BUILD: '0', TMPDIR: dir, ...env },
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
}

/** Running (a zombie waiting for its reaper counts as ended). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    if (existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A module that starts a child (`node -e`) writing its pid to `pidFile` and living a minute, its stderr the
 * importer's (so it holds the importing file's output pipe open); `started()` waits for the pid file.
 */
export function childStarter(pidFile: string): string {
  const child = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 60000);`;
  return `import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
export const child = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'ignore', 'inherit'] });
export async function started() {
  while (!existsSync(${JSON.stringify(pidFile)})) await new Promise((r) => setTimeout(r, 20));
}
`;
}

/** Kills (SIGKILL) the processes whose pids the files that exist of `pidFiles` hold: a test's leftovers. */
export function killPids(pidFiles: readonly string[]): void {
  for (const p of pidFiles) {
    if (!existsSync(p)) continue;
    try {
      process.kill(Number(readFileSync(p, 'utf8')), 'SIGKILL');
    } catch {
      // stopped
    }
  }
}
