/**
 * scripts/test.mjs runs small test files several to a process (scripts/test-group.mjs): each file is still reported
 * under its own `# file:` line with its own output and TAP; a failing test fails its file (named in the failed
 * list) and the run; a file that throws when imported fails, named; a file that hangs times out on its own clock,
 * named, its group stopped, and the group's files that had not started then run alone; a file that is not safe to
 * share a process (process-wide state here, or a helper it imports that starts a child) always runs alone. And the
 * runner's TypeScript loader (scripts/ts-loader.mjs) compiles the files. A tiny project in a temp folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNER_FILES } from './runner-files.ts';

const REPO = process.cwd();

/** The lines of the runner's output from `# file: FILE` up to the next `# file:` or `# group:` line. */
function section(out: string, file: string): string {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`# file: ${file} `));
  assert.ok(at >= 0, `no # file: line for ${file}:\n${out}`);
  const end = lines.findIndex((l, i) => i > at && /^# (file|group|files):? /.test(l));
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

test('grouped files: each reported under its own name; a failure, an import error and a hang fail their file; the rest run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-runner-groups-'));
  try {
    for (const d of ['scripts', 'bin', 'test/u', 'test/h']) mkdirSync(join(dir, d), { recursive: true });
    for (const f of RUNNER_FILES) copyFileSync(join(REPO, f), join(dir, f));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const ok = (name: string, extra = '') =>
      `import { test } from 'node:test';\nconst n: number = 1;\n${extra}\ntest('${name} passes', () => { console.log('noise of ${name}'); if (n !== 1) throw new Error('no'); });\n`;
    // the temp project's folder u: four groupable files and one that reads process.env (alone)
    writeFileSync(join(dir, 'test/u/a.test.ts'), ok('a'));
    writeFileSync(
      join(dir, 'test/u/b.test.ts'),
      `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('b fails', () => { assert.equal(1 + 1, 3); });\ntest('b passes', () => {});\n`,
    );
    writeFileSync(join(dir, 'test/u/c.test.ts'), `import { test } from 'node:test';\nthrow new Error('c cannot load');\ntest('never', () => {});\n`);
    writeFileSync(join(dir, 'test/u/d.test.ts'), ok('d'));
    writeFileSync(join(dir, 'test/u/env.test.ts'), ok('env', "if (process.env.NOPE) throw new Error('set');"));
    // its folder h: a file that hangs (a pending timer, never resolved), then one that never starts in the group
    writeFileSync(join(dir, 'test/h/g.test.ts'), ok('g'));
    writeFileSync(
      join(dir, 'test/h/hang.test.ts'),
      `import { test } from 'node:test';\ntest('hangs', async () => { await new Promise((r) => setTimeout(r, 600_000)); });\n`,
    );
    writeFileSync(join(dir, 'test/h/z.test.ts'), ok('z'));
    // a helper that starts a child makes the file that imports it run alone
    writeFileSync(join(dir, 'test/h/spawner.ts'), `import { spawnSync } from 'node:child_process';\nexport const run = () => spawnSync('true');\n`);
    writeFileSync(join(dir, 'test/h/uses-spawner.test.ts'), ok('uses-spawner', "import { run } from './spawner.ts';\nrun();"));

    const r = spawnSync(process.execPath, ['scripts/test.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      // TMPDIR: the runner's timing files and the loader's cache stay in the temp project
      env: { ...process.env, BOOKMAKER_TEST_BUILD: '0', BOOKMAKER_TEST_FILE_TIMEOUT: '10', TMPDIR: dir },
      timeout: 180_000,
      killSignal: 'SIGKILL',
    });
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
    assert.match(hang, /^# file: test\/h\/hang\.test\.ts \([^)]*\) FAILED \(timed out after 10 s\)$/m);
    assert.match(hang, /^# test\/h\/hang\.test\.ts: still running when it timed out \(stopped\):\n# {3}\d+ .*node/m);
    assert.match(section(r.stdout, 'test/h/g.test.ts'), /^ok 1 - g passes$/m);
    const z = section(r.stdout, 'test/h/z.test.ts');
    assert.match(z, /^# file: test\/h\/z\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m, 'z ran alone');
    assert.match(z, /^ok 1 - z passes$/m);

    // not safe to share a process: alone, whatever its folder
    assert.match(r.stdout, /^# file: test\/u\/env\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m);
    assert.match(r.stdout, /^# file: test\/h\/uses-spawner\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/m);

    assert.match(r.stdout, /^# timed out \(1, after 10 s each\): test\/h\/hang\.test\.ts$/m);
    const failed = /^# failed files \(\d+\): (.*)$/m.exec(r.stdout)?.[1]?.split(' ').sort();
    assert.deepEqual(failed, ['test/h/hang.test.ts', 'test/u/b.test.ts', 'test/u/c.test.ts']);
    assert.match(r.stdout, /^# files 9,/m, 'every file reported once');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a group whose files all pass: the run passes; BOOKMAKER_TEST_GROUP=0 runs each file alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-runner-groups-'));
  try {
    for (const d of ['scripts', 'bin', 'test/u']) mkdirSync(join(dir, d), { recursive: true });
    for (const f of RUNNER_FILES) copyFileSync(join(REPO, f), join(dir, f));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    for (const n of ['a', 'b', 'c']) {
      writeFileSync(
        join(dir, `test/u/${n}.test.ts`),
        `import { test } from 'node:test';\nconst x: string = '${n}';\ntest('${n}', () => { if (x !== '${n}') throw new Error(x); });\n`,
      );
    }
    const run = (env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ['scripts/test.mjs'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, BOOKMAKER_TEST_BUILD: '0', TMPDIR: dir, ...env },
        timeout: 120_000,
        killSignal: 'SIGKILL',
      });
    const grouped = run();
    assert.equal(grouped.status, 0, grouped.stdout + grouped.stderr);
    assert.match(grouped.stdout, /^# group: 3 files in one process/m);
    assert.equal(grouped.stdout.match(/^# file: test\/u\/[abc]\.test\.ts \([^)]*grouped[^)]*\)$/gm)?.length, 3, grouped.stdout);
    const alone = run({ BOOKMAKER_TEST_GROUP: '0' });
    assert.equal(alone.status, 0, alone.stdout + alone.stderr);
    assert.doesNotMatch(alone.stdout, /^# group:/m);
    assert.equal(alone.stdout.match(/^# file: test\/u\/[abc]\.test\.ts \([0-9.]+ s; cpu [0-9.]+ s\)$/gm)?.length, 3, alone.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
