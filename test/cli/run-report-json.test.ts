/**
 * `bookmaker run --report-json PATH` with a path that cannot be written: refused at once (exit 2, the flag
 * named, nothing started), not found out when the run ends (before: the bot ran, then logged that the report
 * could not be written and exited 0, the report of the whole run lost).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
