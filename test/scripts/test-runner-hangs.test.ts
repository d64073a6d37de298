/**
 * scripts/test.mjs when a test file never ends: the file times out (BOOKMAKER_TEST_FILE_TIMEOUT), fails with its
 * output so far and the processes still running, and the suite goes on; a file that ends but leaves a child holding
 * its output pipe is stopped with its process group and reported, the suite goes on; a file that fails fails the
 * run with its exit code. Before, a hang held the suite until CI's own limit killed it. A tiny project in a temp
 * folder: the runner, its helpers, four test files, each alone in its process (they start children).
 *
 * No figure here depends on how fast the machine is: the file timeout (30 s) is far beyond what a file that ends
 * takes (~1 s; a few at load 20), the hanging file never ends whatever the timeout, and the leaking file's
 * leftovers outlive the timeout by the linger (35 s), however late it ended. (The timeout was 12 s: a file that
 * ends, started beside the others at load 11-20 with the loader's cache cold, could take that long.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive, childStarter, killPids, runRunner, runnerProject, writeFiles } from './runner-files.ts';

test('a file that never ends times out and fails; one that leaves a child running is stopped with it; one that fails fails the run; the rest run', () => {
  const dir = runnerProject('bookmaker-runner-hangs-');
  const pids = [join(dir, 'hang.pid'), join(dir, 'leak.pid')];
  try {
    writeFiles(dir, {
      'test/hang-child.ts': childStarter(pids[0]!),
      'test/leak-child.ts': childStarter(pids[1]!),
      // the shape of a test that failed between starting its child and stopping it: the child keeps the file alive
      'test/hang.test.ts': `import { test } from 'node:test';\nimport { started } from './hang-child.ts';\ntest('fails with its child alive', async () => { await started(); throw new Error('an assertion failed'); });\n`,
      // a file that passes and exits, its child (stderr inherited) still running
      'test/leak.test.ts': `import { test } from 'node:test';\nimport { child, started } from './leak-child.ts';\ntest('passes', async () => { await started(); child.unref(); });\n`,
      'test/ok.test.ts': `import { test } from 'node:test';\ntest('passes', () => {});\n`,
      // alone (process.env): its process exits 1
      'test/fails.test.ts': `import { test } from 'node:test';\ntest('fails', () => { if (process.env.TMPDIR) throw new Error('failed here'); });\n`,
    });
    // the linger (how long a file's leftovers may run after it ends) longer than the file timeout: a runner that
    // counted a file's leftovers against its timeout reported the leaking file as timed out (seen in a CI at load 12)
    const r = runRunner(dir, { BOOKMAKER_TEST_FILE_TIMEOUT: '30', BOOKMAKER_TEST_LINGER_MS: '35000' }, 240_000);
    assert.notEqual(r.signal, 'SIGKILL', `the runner hung:\n${r.stdout}${r.stderr}`);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /# file: test\/hang\.test\.ts \([^)]*\) FAILED \(timed out after 30 s\)/);
    assert.match(r.stdout, /not ok 1 - fails with its child alive|# test\/hang\.test\.ts: still running when it timed out/);
    assert.match(r.stdout, /# test\/hang\.test\.ts: still running when it timed out \(stopped\):\n# {3}\d+ .*node/);
    assert.match(r.stdout, /# file: test\/leak\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)\n/, 'the leaking file passed');
    assert.match(r.stdout, /# test\/leak\.test\.ts: left running after it ended \(stopped\):\n# {3}\d+ .*node -e/);
    assert.match(r.stdout, /# file: test\/ok\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)\n/);
    assert.match(r.stdout, /# file: test\/fails\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\) FAILED \(exit 1\)\n/);
    assert.match(r.stdout, /not ok 1 - fails\n/);
    assert.match(r.stdout, /# timed out \(1, after 30 s each\): test\/hang\.test\.ts/);
    assert.match(r.stdout, /# files that left processes running after they ended \(stopped\): test\/leak\.test\.ts \(1\)/);
    assert.deepEqual(/^# failed files \(2\): (.*)$/m.exec(r.stdout)?.[1]?.split(' ').sort(), ['test/fails.test.ts', 'test/hang.test.ts'], r.stdout);
    for (const p of pids) {
      const pid = Number(readFileSync(p, 'utf8'));
      assert.equal(alive(pid), false, `child ${pid} (${p}) was stopped`);
    }
    // each file's CPU seconds, kept for the next run's order (a file alone: its own process's)
    const cpu = JSON.parse(readFileSync(join(dir, 'bookmaker-test-cpu.json'), 'utf8')) as Record<string, { cpu: number; wall: number }>;
    assert.deepEqual(Object.keys(cpu).sort(), ['test/fails.test.ts', 'test/hang.test.ts', 'test/leak.test.ts', 'test/ok.test.ts']);
    for (const [f, c] of Object.entries(cpu)) assert.ok(c.cpu >= 0 && c.wall > 0, `${f}: ${JSON.stringify(c)}`);
  } finally {
    killPids(pids);
    rmSync(dir, { recursive: true, force: true });
  }
});
