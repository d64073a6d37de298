/**
 * Commands other than a running bot with stdout or stderr on a full disk (/dev/full: every write fails with
 * ENOSPC, written by Node as a file is). Before, only `run` was guarded, from after its flags: doctor with
 * stdout full crashed with an ENOSPC stack and exit 1 (its verdict was 0), and a config error, a missing
 * ledger or a ctl refusal with stderr full exited 1 instead of 2. Now every command is guarded from its first
 * line (src/cli/main.ts): the exit code is the command's own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliArgs } from '../support/cli.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** `args` with `which` on /dev/full and the other stream read back; the child is killed if it outlives 120 s. */
function withFull(args: string[], which: 'stdout' | 'stderr'): { status: number | null; signal: string | null; other: string } {
  const fd = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, cliArgs(args), {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      killSignal: 'SIGKILL',
      env: { ...process.env, BOOKMAKER_ADMIN_TOKEN: '' },
      stdio: ['ignore', which === 'stdout' ? fd : 'pipe', which === 'stderr' ? fd : 'pipe'],
    });
    return { status: r.status, signal: r.signal, other: String((which === 'stdout' ? r.stderr : r.stdout) ?? '') };
  } finally {
    closeSync(fd);
  }
}

test('doctor, ledger, ctl and a config error on a full stdout or stderr exit with their own codes, no ENOSPC stack', {
  skip: !existsSync('/dev/full') && 'no /dev/full',
}, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-output-full-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, readFileSync(join(ROOT, 'config/local.yaml'), 'utf8').replace(/maxPosition: \d+/, 'maxPosition: .nan'));
  const cases: [string, string[], number][] = [
    ['doctor ready', ['doctor', '-c', 'config/local.yaml'], 0],
    ['a config error', ['doctor', '-c', bad], 2],
    ['a missing ledger', ['ledger', 'summary', '--ledger', join(dir, 'none.db')], 2],
    ['ctl without a token', ['ctl', 'status', '-c', 'config/local.yaml'], 2],
  ];
  for (const [what, args, code] of cases) {
    for (const which of ['stdout', 'stderr'] as const) {
      const r = withFull(args, which);
      assert.equal(r.signal, null, `${what}, ${which} full: killed by the guard`);
      assert.equal(r.status, code, `${what}, ${which} full:\n${r.other}`);
      assert.doesNotMatch(r.other, /ENOSPC: no space left on device, write|^\s+at /m, `${what}, ${which} full: a stack`);
      // the other stream says what was lost (a one-shot command's output is the point of it)
      if (which === 'stdout' && code === 0) assert.match(r.other, /output lost: \d+ to stdout could not be written \(ENOSPC\)/);
    }
  }
});
