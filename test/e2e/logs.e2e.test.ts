/**
 * Observation 6 (log modes): `logging.pretty` / BOOKMAKER_LOG_PRETTY decide between
 * human-readable lines and JSON (the setting used to be validated and then ignored). Run on the
 * `npm start` demo (embedded local exchange), stderr a pipe, so 'auto' means JSON.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';

const demo = ['run', '-c', 'config/local.yaml', '--metrics-port', '0', '--summary-seconds', '0', '--log-level', 'info'];

/** Run the demo until it quotes, then SIGTERM; resolves with its exit code. */
async function quoteThenStop(c: Child): Promise<number | null> {
  await waitFor('the demo quotes', () => /bot: quoting|"msg":"quoting"/.test(c.out()), 40_000);
  c.proc.kill('SIGTERM');
  return withTimeout(c.exit, 30_000, 'demo did not stop');
}

test('BOOKMAKER_LOG_PRETTY=true: readable lines, no JSON', async () => {
  const c = cli(demo, { BOOKMAKER_LOG_PRETTY: 'true' });
  try {
    assert.equal(await quoteThenStop(c), 0, c.out());
    const out = c.out();
    assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} INFO  bot: quoting metrics=off trader=0x[0-9a-fA-F]{40}$/m);
    assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} INFO  bot: stopped reason=SIGTERM /m);
    assert.doesNotMatch(out, /^\{"level"/m, 'no JSON line in pretty mode');
    assert.doesNotMatch(out, /\x1b\[/, 'no colour codes when stderr is not a terminal');
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('auto on a pipe (and BOOKMAKER_LOG_PRETTY=false): one JSON object per log line', async () => {
  for (const env of [{}, { BOOKMAKER_LOG_PRETTY: 'false' }]) {
    const c = cli(demo, env);
    try {
      assert.equal(await quoteThenStop(c), 0, c.out());
      const logs = c
        .out()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      assert.ok(logs.length >= 3, c.out());
      for (const l of logs) assert.equal(typeof (JSON.parse(l) as { msg: unknown }).msg, 'string');
      assert.ok(logs.some((l) => (JSON.parse(l) as { msg: string }).msg === 'quoting'));
    } finally {
      c.proc.kill('SIGKILL');
    }
  }
});
