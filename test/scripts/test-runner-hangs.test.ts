/**
 * scripts/test.mjs when a test file never ends: the file times out (BOOKMAKER_TEST_FILE_TIMEOUT), fails with its
 * output so far and the processes still running, and the suite goes on; a file that ends but leaves a child holding
 * its output pipe is stopped with its process group and reported, the suite goes on. Before, either held the
 * suite until CI's own limit killed it. A tiny project in a temp folder: the runner, its helpers, three test files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNER_FILES } from './runner-files.ts';

const REPO = process.cwd();

/** Running (a zombie waiting for its reaper counts as ended). */
function alive(pid: number): boolean {
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

/** A test file that starts a child writing its pid to `pidFile`; the child lives for a minute, its stderr the file's. */
function childStarter(pidFile: string): string {
  const child = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 60000);`;
  return `import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
export const child = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'ignore', 'inherit'] });
export async function started() {
  while (!existsSync(${JSON.stringify(pidFile)})) await new Promise((r) => setTimeout(r, 20));
}
`;
}

test('a file that never ends times out and fails; one that leaves a child running is stopped with it; the rest run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-runner-hangs-'));
  const pids = [join(dir, 'hang.pid'), join(dir, 'leak.pid')];
  try {
    for (const d of ['scripts', 'bin', 'test']) mkdirSync(join(dir, d));
    for (const f of RUNNER_FILES) copyFileSync(join(REPO, f), join(dir, f));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'test', 'hang-child.ts'), childStarter(pids[0]!));
    writeFileSync(join(dir, 'test', 'leak-child.ts'), childStarter(pids[1]!));
    // the shape of a test that failed between starting its child and stopping it: the child keeps the file alive
    writeFileSync(
      join(dir, 'test', 'hang.test.ts'),
      `import { test } from 'node:test';\nimport { started } from './hang-child.ts';\ntest('fails with its child alive', async () => { await started(); throw new Error('an assertion failed'); });\n`,
    );
    // a file that passes and exits, its child (stderr inherited) still running
    writeFileSync(
      join(dir, 'test', 'leak.test.ts'),
      `import { test } from 'node:test';\nimport { child, started } from './leak-child.ts';\ntest('passes', async () => { await started(); child.unref(); });\n`,
    );
    writeFileSync(join(dir, 'test', 'ok.test.ts'), `import { test } from 'node:test';\ntest('passes', () => {});\n`);
    const r = spawnSync(process.execPath, ['scripts/test.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      // TMPDIR: the runner's per-machine timing files stay in the temp project
      // the linger (how long a file's leftovers may run after it ends) longer than the file timeout: a runner that
      // counted a file's leftovers against its timeout reported the leaking file as timed out (seen in a CI at load 12)
      env: { ...process.env, BOOKMAKER_TEST_BUILD: '0', BOOKMAKER_TEST_FILE_TIMEOUT: '12', BOOKMAKER_TEST_LINGER_MS: '15000', TMPDIR: dir },
      timeout: 120_000, // the old runner never returns: this ends the test
      killSignal: 'SIGKILL',
    });
    assert.notEqual(r.signal, 'SIGKILL', `the runner hung:\n${r.stdout}${r.stderr}`);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /# file: test\/hang\.test\.ts \([^)]*\) FAILED \(timed out after 12 s\)/);
    assert.match(r.stdout, /not ok 1 - fails with its child alive|# test\/hang\.test\.ts: still running when it timed out/);
    assert.match(r.stdout, /# test\/hang\.test\.ts: still running when it timed out \(stopped\):\n# {3}\d+ .*node/);
    assert.match(r.stdout, /# file: test\/leak\.test\.ts \([^)]*\)\n/, 'the leaking file passed');
    assert.match(r.stdout, /# test\/leak\.test\.ts: left running after it ended \(stopped\):\n# {3}\d+ .*node -e/);
    assert.match(r.stdout, /# file: test\/ok\.test\.ts \([^)]*\)\n/);
    assert.match(r.stdout, /# timed out \(1, after 12 s each\): test\/hang\.test\.ts/);
    assert.match(r.stdout, /# files that left processes running after they ended \(stopped\): test\/leak\.test\.ts \(1\)/);
    assert.match(r.stdout, /# failed files \(1\): test\/hang\.test\.ts\n/);
    for (const p of pids) {
      const pid = Number(readFileSync(p, 'utf8'));
      assert.equal(alive(pid), false, `child ${pid} (${p}) was stopped`);
    }
  } finally {
    for (const p of pids) {
      if (existsSync(p)) {
        try {
          process.kill(Number(readFileSync(p, 'utf8')), 'SIGKILL');
        } catch {
          // stopped
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
