/**
 * The generated reference pages of docs/reference/ (CLI help, config keys, metrics, exit codes) are what
 * the code gives now: `scripts/docs.ts --check` regenerates them in a process of its own (the metrics page
 * starts a bot on the embedded local exchange) and fails naming the stale pages and `npm run docs`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { exitCodes, EXIT_MEANINGS } from '../../scripts/docs.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

test('docs/reference is up to date (else: npm run docs)', { timeout: 120_000 }, () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BOOKMAKER_')));
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/docs.ts', '--check'], { cwd: REPO, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
  assert.match(r.stdout, /up to date/);
});

test('every exit code constant of src/ is found and has a meaning', () => {
  const codes = exitCodes();
  assert.ok(
    codes.some((c) => c.name === 'EXIT_KILL_SWITCH' && c.code === 3),
    'EXIT_KILL_SWITCH = 3 found',
  );
  for (const c of codes) assert.ok(c.name in EXIT_MEANINGS, `${c.name} (${c.file}) has a meaning`);
});
