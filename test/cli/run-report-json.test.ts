/**
 * `bookmaker run --report-json PATH` with a path that cannot be written: refused at once (exit 2, the flag
 * named, nothing started), not found out when the run ends (before: the bot ran, then logged that the report
 * could not be written and exited 0, the report of the whole run lost).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliArgs } from '../support/cli.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

test('run refuses a --report-json it cannot write before it starts: exit 2, the flag named', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-run-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'afile'), 'x');
  for (const path of [join(dir, 'afile', 'report.json'), dir]) {
    const r = spawnSync(
      process.execPath,
      cliArgs(['run', '-c', 'config/local.yaml', '--metrics-port', '0', '--summary-seconds', '0', '--duration', '5', '--report-json', path]),
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^bookmaker run: BAD_INPUT: --report-json: expected a file path/m);
    assert.doesNotMatch(r.stdout, /bookmaker: quoting/, 'refused before the bot started');
  }
});

test('a --report-json under /proc is refused at once (exit 2), not a spin in a recursive mkdir', (t) => {
  if (!existsSync('/proc/self')) return t.skip('no /proc on this system');
  // Node's own recursive mkdir loops forever under /proc, in one synchronous call no signal handler
  // interrupts: the child is killed by its timeout if that comes back
  for (const path of ['/proc/x/y.json', '/proc/self/x/y.json']) {
    const r = spawnSync(
      process.execPath,
      cliArgs(['run', '-c', 'config/local.yaml', '--metrics-port', '0', '--summary-seconds', '0', '--duration', '5', '--report-json', path]),
      { cwd: ROOT, encoding: 'utf8', timeout: 90_000, killSignal: 'SIGKILL' },
    );
    assert.equal(r.signal, null, `${path}: the child had to be killed (a spin)`);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^bookmaker run: BAD_INPUT: --report-json: expected a file path that can be written \(\/proc\/.*\), got "ENOENT/m);
    assert.doesNotMatch(r.stdout, /bookmaker: quoting/, 'refused before the bot started');
  }
});
