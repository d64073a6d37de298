/**
 * A benchmark's bot child that ends mid-run (the load bench's bot ended by the watchdog, exit 5) is told
 * in the operator's words: its exit code, the meaning docs/reference/exit-codes.md gives it, and the
 * bot's own last fatal line. test/bench/load.bench.ts prints this and records the run as failed instead
 * of throwing `Error: bot exited (code 5, signal null)` with a stack.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { botEnd, exitMeaning } from '../bench/bot-end.ts';

const WATCHDOG_LOG = [
  '{"level":40,"time":1,"component":"health","msg":"market not quoting: stale book"}',
  'Waiting for the debugger to disconnect...',
  '{"level":60,"time":2,"component":"watchdog","exitCode":5,"msg":"event loop blocked: the watchdog cancels every open order and ends the process"}',
  '{"level":40,"time":3,"component":"watchdog","msg":"watchdog: no order of the bot left open at the venue"}',
  '{"level":60,"time":4,"component":"watchdog","exitCode":5,"msg":"watchdog: exit 5: the event loop did not turn for 1.082 s (limit 1 s); the main thread ran 0.336 s and waited 0.663 s for a CPU"}',
  '',
].join('\n');

test("the watchdog's exit 5: the code, its documented meaning and the bot's last fatal line", () => {
  const end = botEnd({ code: 5, signal: null }, WATCHDOG_LOG);
  assert.equal(end.exitCode, 5);
  const table = readFileSync('docs/reference/exit-codes.md', 'utf8');
  assert.ok(table.includes(`| 5 | ${end.meaning} |`), `the meaning is the reference's: ${end.meaning}`);
  assert.match(end.reason ?? '', /^watchdog: exit 5: the event loop did not turn for 1\.082 s/);
  assert.match(end.text, /^the bot exited 5 \(the watchdog found the event loop blocked past `watchdog\.blockedLimitSeconds`.*\): watchdog: exit 5: /);
});

test('a kill from outside, an undocumented code, a log without a fatal line', () => {
  const killed = botEnd({ code: null, signal: 'SIGKILL' }, '{"level":50,"msg":"ledger write failed"}\n');
  assert.match(killed.text, /^the bot was killed \(SIGKILL\) \(killed by SIGKILL .*out-of-memory.*\): ledger write failed$/);
  const odd = botEnd({ code: 13, signal: null }, 'not json\n');
  assert.equal(odd.reason, null);
  assert.equal(odd.text, 'the bot exited 13 (not an exit code bookmaker documents (a crash of the process))');
  assert.match(exitMeaning(8), /venue kept failing transiently/);
  assert.match(exitMeaning(2), /^bad input/);
});
