/**
 * scripts/test.mjs runs small test files several to a process (scripts/test-group.mjs): each file is still reported
 * under its own `# file:` line with its own output and TAP; a failing test fails its file (named in the failed
 * list) and the run; a file that throws when imported fails, named; a file that hangs times out on its own clock,
 * named, its group stopped, and the group's files that had not started then run alone; a file that is not safe to
 * share a process (process-wide state here, or a helper it imports that starts a child) always runs alone. And the
 * runner's TypeScript loader (scripts/ts-loader.mjs) compiles the files. A group's process that dies in a file
 * fails that file with its exit code, and the files after it run alone; one that exits non-zero after its files'
 * tests all passed fails the run, named; what a group leaves running after it ended is stopped and reported under
 * its last file; a group's CPU is written on each of its files' lines. A tiny project in a temp folder.
 *
 * The file timeout (30 s) is far beyond what a file that ends takes (well under a second; a few at load 20), and
 * the hanging file never ends whatever it is: nothing here depends on how fast the machine is. (It was 10 s: a
 * group's first file, its process started cold at load 11-20, could take that long.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive, childStarter, killPids, runRunner, runnerProject, writeFiles } from './runner-files.ts';

/** The lines of the runner's output from `# file: FILE` up to the next `# file:` or `# group:` line. */
function section(out: string, file: string): string {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`# file: ${file} `));
  assert.ok(at >= 0, `no # file: line for ${file}:\n${out}`);
  const end = lines.findIndex((l, i) => i > at && /^# (file|group|files):? /.test(l));
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

test('grouped files: each reported under its own name; a failure, an import error, a hang and a death fail their file; the rest run', () => {
  const dir = runnerProject('bookmaker-runner-groups-');
  const leakPid = join(dir, 'leak.pid');
  try {
    const ok = (name: string, extra = '') =>
      `import { test } from 'node:test';\nconst n: number = 1;\n${extra}\ntest('${name} passes', () => { console.log('noise of ${name}'); if (n !== 1) throw new Error('no'); });\n`;
    writeFiles(dir, {
      // the temp project's folder u: four groupable files and one that reads process.env (alone)
      'test/u/a.test.ts': ok('a'),
      'test/u/b.test.ts': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('b fails', () => { assert.equal(1 + 1, 3); });\ntest('b passes', () => {});\n`,
      'test/u/c.test.ts': `import { test } from 'node:test';\nthrow new Error('c cannot load');\ntest('never', () => {});\n`,
      'test/u/d.test.ts': ok('d'),
      'test/u/env.test.ts': ok('env', "if (process.env.NOPE) throw new Error('set');"),
      // its folder h: a file that hangs (a pending timer, never resolved), then one that never starts in the group
      'test/h/g.test.ts': ok('g'),
      'test/h/hang.test.ts': `import { test } from 'node:test';\ntest('hangs', async () => { await new Promise((r) => setTimeout(r, 600_000)); });\n`,
      'test/h/z.test.ts': ok('z'),
      // a helper that starts a child makes the file that imports it run alone
      'test/h/spawner.ts': `import { spawnSync } from 'node:child_process';\nexport const run = () => spawnSync('true');\n`,
      'test/h/uses-spawner.test.ts': ok('uses-spawner', "import { run } from './spawner.ts';\nrun();"),
      // what the runner does not read for groupable() (the product's modules, under src/) reaches past a file's
      // tests: folder k's process dies in its second file (exit 7), and the third has not started
      'src/die.ts': 'export function die(): void {\n  process.exit(7);\n}\n',
      'test/k/a.test.ts': ok('ka'),
      'test/k/die.test.ts': `import { test } from 'node:test';\nimport { die } from '../../src/die.ts';\ntest('dies', () => { die(); });\n`,
      'test/k/m.test.ts': ok('m'),
      // folder l's: a file whose timer throws once its test passed (the process exits 1, no test failed), and
      // a file that leaves a child running (its stderr the group's output pipe)
      'test/l/a.test.ts': ok('la'),
      'test/l/late.test.ts': `import { test } from 'node:test';\ntest('late passes', () => { setTimeout(() => { throw new Error('thrown after the test ended'); }, 0); });\n`,
      'src/leak-child.ts': childStarter(leakPid),
      'test/l/leak.test.ts': `import { test } from 'node:test';\nimport { child, started } from '../../src/leak-child.ts';\ntest('leak passes', async () => { await started(); child.unref(); });\n`,
    });

    const r = runRunner(dir, { BOOKMAKER_TEST_FILE_TIMEOUT: '30' });
    const out = r.stdout + r.stderr;
    assert.notEqual(r.signal, 'SIGKILL', `the runner hung:\n${out}`);
    assert.equal(r.status, 1, out);

    // the groups: folder u's four files in one process, folder h's three (the spawner's user alone)
    assert.match(r.stdout, /^# group: 4 files in one process \(/m, out);
    assert.match(r.stdout, /^# group: 2 files in one process \([^)]*\); stopped early, to run alone: test\/h\/z\.test\.ts$/m, out);

    // each file under its own line, with its own output and its own TAP, numbered from 1
    const a = section(r.stdout, 'test/u/a.test.ts');
    assert.match(a, /^# file: test\/u\/a\.test\.ts \([0-9.]+ s; grouped: [^)]*\)$/m);
    assert.match(a, /^noise of a$/m);
    assert.match(a, /^ok 1 - a passes$/m);
    assert.doesNotMatch(a, /noise of d|b fails/);
    const d = section(r.stdout, 'test/u/d.test.ts');
    assert.match(d, /^noise of d$/m);
    assert.match(d, /^ok 1 - d passes$/m);
    assert.match(d, /^# pass 1$/m);

    // a failing test fails its file, named
    const b = section(r.stdout, 'test/u/b.test.ts');
    assert.match(b, /^# file: test\/u\/b\.test\.ts \([^)]*\) FAILED \(a test failed\)$/m);
    assert.match(b, /^not ok 1 - b fails$/m);
    assert.match(b, /^ok 2 - b passes$/m);
    // a file that throws when imported fails, its error under its name
    const c = section(r.stdout, 'test/u/c.test.ts');
    assert.match(c, /FAILED \(threw when imported\)$/m);
    assert.match(c, /c cannot load/);
    // a hang: timed out on its own clock, the processes listed; the file after it ran alone and passed
    const hang = section(r.stdout, 'test/h/hang.test.ts');
    assert.match(hang, /^# file: test\/h\/hang\.test\.ts \([^)]*\) FAILED \(timed out after 30 s\)$/m);
    assert.match(hang, /^# test\/h\/hang\.test\.ts: still running when it timed out \(stopped\):\n# {3}\d+ .*node/m);
    assert.match(section(r.stdout, 'test/h/g.test.ts'), /^ok 1 - g passes$/m);
    const z = section(r.stdout, 'test/h/z.test.ts');
    assert.match(z, /^# file: test\/h\/z\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m, 'z ran alone');
    assert.match(z, /^ok 1 - z passes$/m);

    // not safe to share a process: alone, whatever its folder
    assert.match(r.stdout, /^# file: test\/u\/env\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m);
    assert.match(r.stdout, /^# file: test\/h\/uses-spawner\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m);

    // a death in a file: that file fails with the process's exit code, the files after it run alone
    assert.match(r.stdout, /^# group: 2 files in one process \([^)]*\); stopped early, to run alone: test\/k\/m\.test\.ts$/m, out);
    assert.match(section(r.stdout, 'test/k/a.test.ts'), /^ok 1 - ka passes$/m);
    assert.match(r.stdout, /^# file: test\/k\/die\.test\.ts \([^)]*\) FAILED \(the group's process ended while it ran: exit 7\)$/m);
    assert.match(section(r.stdout, 'test/k/m.test.ts'), /^# file: test\/k\/m\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)\n(.*\n)*ok 1 - m passes$/m, 'm ran alone');

    // a group that exits 1 after its files' tests all passed: the run fails, the group named
    for (const f of ['a', 'late', 'leak']) assert.match(r.stdout, new RegExp(`^# file: test/l/${f}\\.test\\.ts \\([^)]*grouped[^)]*\\)$`, 'm'), f);
    // (under its file, or after the group's last file: where the timer fell among the group's marker tests)
    assert.match(r.stdout, /^# Error: Test "late passes" .*thrown after the test ended/m);
    // what the group left running: listed under its last file, stopped, counted
    assert.match(r.stdout, /^# test\/l\/leak\.test\.ts \(its group\): left running after it ended \(stopped\):\n# {3}\d+ .*node -e/m);
    assert.match(r.stdout, /^# files that left processes running after they ended \(stopped\): test\/l\/leak\.test\.ts \(1\)$/m);
    assert.equal(alive(Number(readFileSync(leakPid, 'utf8'))), false, 'the child the group left running was stopped');

    // the CPU of a group is on each of its files' lines; a file alone has its own, kept for the next run's order
    assert.match(a, /grouped: the group's cpu [0-9.]+ s for 4 files\)$/m);
    const cpu = JSON.parse(readFileSync(join(dir, 'bookmaker-test-cpu.json'), 'utf8')) as Record<string, { cpu: number; wall: number }>;
    assert.deepEqual(Object.keys(cpu).sort(), ['test/h/uses-spawner.test.ts', 'test/h/z.test.ts', 'test/k/m.test.ts', 'test/u/env.test.ts']);
    for (const [f, c] of Object.entries(cpu)) assert.ok(c.cpu >= 0 && c.wall > 0, `${f}: ${JSON.stringify(c)}`);

    assert.match(r.stdout, /^# timed out \(1, after 30 s each\): test\/h\/hang\.test\.ts$/m);
    const group = "(group of test/l/a.test.ts test/l/late.test.ts test/l/leak.test.ts: exit 1 after its files' tests)";
    const failed = /^# failed files \(5\): (.*)$/m.exec(r.stdout)?.[1];
    assert.ok(failed?.includes(group), out);
    assert.deepEqual(
      failed!.replace(group, '').split(' ').filter(Boolean).sort(),
      ['test/h/hang.test.ts', 'test/k/die.test.ts', 'test/u/b.test.ts', 'test/u/c.test.ts'],
      out,
    );
    assert.match(r.stdout, /^# files 16,/m, 'every file reported once, and the group that failed after its files');
  } finally {
    killPids([leakPid]);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a group whose files all pass: the run passes; BOOKMAKER_TEST_GROUP=0 runs each file alone', () => {
  const files: Record<string, string> = {};
  for (const n of ['a', 'b', 'c']) {
    files[`test/u/${n}.test.ts`] =
      `import { test } from 'node:test';\nconst x: string = '${n}';\ntest('${n}', () => { if (x !== '${n}') throw new Error(x); });\n`;
  }
  const dir = runnerProject('bookmaker-runner-groups-', files);
  try {
    const grouped = runRunner(dir);
    assert.equal(grouped.status, 0, grouped.stdout + grouped.stderr);
    assert.match(grouped.stdout, /^# group: 3 files in one process/m);
    assert.equal(grouped.stdout.match(/^# file: test\/u\/[abc]\.test\.ts \([^)]*grouped[^)]*\)$/gm)?.length, 3, grouped.stdout);
    const alone = runRunner(dir, { BOOKMAKER_TEST_GROUP: '0' });
    assert.equal(alone.status, 0, alone.stdout + alone.stderr);
    assert.doesNotMatch(alone.stdout, /^# group:/m);
    assert.equal(alone.stdout.match(/^# file: test\/u\/[abc]\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/gm)?.length, 3, alone.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
