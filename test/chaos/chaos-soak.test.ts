/**
 * A short chaos soak inside `npm test`: the real bot (a child process) against the local exchange with
 * the heavy fault profile, an exchange restart and a kill -9 + restart of the bot. Zero invariant
 * violations, every invariant actually checked, and faults of every kind actually injected. Also
 * drives `bookmaker chaos --json` end to end in a shorter run.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { runChaos, type ChaosReport } from '../../src/chaos/run-chaos.ts';
import { INVARIANT_NAMES } from '../../src/chaos/invariants.ts';
import { formatChaosReport } from '../../src/chaos/chaos-report.ts';
import { FAULT_KINDS } from '../../src/sim/faults.ts';

// The CLI runs as a child process: swapping process.stdout.write here would also swallow the test
// runner's own reports, which travel on this process's stdout (a run once listed 2 of 5 tests).
const bin = join(process.cwd(), 'bin', 'bookmaker.js');
async function cli(args: string[], timeout: number, env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [bin, ...args], { timeout, maxBuffer: 16 << 20, env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/** the deadlines of the CLI children: a guard against a hang only, never a pace a busy machine must keep */
const HANG_MS = 600_000;
/** how late the CLI run's first bot starts (a loaded machine's start-up): longer than half its 20 s schedule */
const SLOW_START_MS = 12_000;
let report: ChaosReport;
/** `bookmaker chaos --json` of the CLI test below, started with the soak: a child process with its own exchange and bot */
let cliChaos: Promise<{ dir: string; out: string; r: Awaited<ReturnType<typeof cli>> }>;
before(async () => {
  cliChaos = (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bm-chaos-cli-'));
    const out = join(dir, 'report.json');
    // its first bot starts SLOW_START_MS late, as on a loaded machine: the schedule must count from the bot's ready
    const slow = {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(process.cwd(), 'test', 'support', 'slow-first-start.mjs')).href}`,
      BOOKMAKER_TEST_SLOW_START_MS: String(SLOW_START_MS),
      BOOKMAKER_TEST_SLOW_START_MARKER: join(dir, 'slept'),
    };
    const r = await cli(
      ['chaos', '--duration', '20s', '--profile', 'flaky', '--seed', '5', '--json', out, '--work-dir', join(dir, 'work'), '--quiet'],
      // a hang guard only: a busy machine's two bot start-ups and exchange may take minutes (its 20 s schedule
      // counts from the first bot's ready)
      HANG_MS,
      slow,
    );
    return { dir, out, r };
  })();
  const workDir = mkdtempSync(join(tmpdir(), 'bm-chaos-test-'));
  try {
    report = await runChaos({ durationMs: 45_000, profile: 'heavy', seed: 3, workDir });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('45 s heavy chaos soak: faults of every kind injected, every invariant checked', (t) => {
  const r = report;
  t.diagnostic(formatChaosReport(r));
  for (const k of [...FAULT_KINDS, 'botKill9' as const, 'marketCreated' as const, 'marketResolved' as const])
    assert.ok(r.faults[k] > 0, `fault ${k} injected (${r.faults[k]})`);
  assert.ok(r.rotation, 'the rotation event ran');
  assert.equal(r.rotation.marketsCreated, 1);
  assert.equal(r.rotation.marketsResolved, 2, 'the start-up market ending half way and the new one');
  assert.ok(r.rotation.endedMarketsQuoted >= 1, 'the bot had quoted the market that ended, so no-order-in-ended-market judged it');
  assert.equal(r.rotation.newMarketsQuoted, 1, 'rotation started the market created during the run');
  for (const n of INVARIANT_NAMES) assert.ok(r.checks[n] > 0, `invariant ${n} checked (${r.checks[n]})`);
  assert.equal(r.finalExitCode, 0);
  assert.equal(r.botStarts, 2);
  assert.ok(r.ordersPlaced > 20, `the bot quoted (${r.ordersPlaced} orders)`);
});

test('zero violations: reconcile view, nonces, duplicates, stalls, crashes, clean stop, restart adoption', () => {
  const others = report.violations.filter((v) => v.invariant !== 'position-limit' && v.invariant !== 'notional-limit');
  assert.deepEqual(others, [], formatChaosReport(report));
});

test('zero violations: position and notional limits at worst case', () => {
  const limits = report.violations.filter((v) => v.invariant === 'position-limit' || v.invariant === 'notional-limit');
  assert.deepEqual(limits, [], formatChaosReport(report));
});

test('bookmaker chaos --json writes the report and exits 0, its schedule whole after a slow start-up', { timeout: 2 * HANG_MS }, async () => {
  const { dir, out, r } = await cliChaos;
  try {
    assert.ok(existsSync(join(dir, 'slept')), 'the first bot started late');
    assert.ok(existsSync(out), `no report (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(report.violations, [], r.stdout);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(report.profile, 'flaky');
    assert.ok(report.totalChecks > 0);
    // the schedule counts from the first bot's ready, not from before its start-up: every event still comes
    assert.equal(report.botStarts, 2, 'the kill -9 and restart happened');
    assert.ok(report.rotation.endedMarketsQuoted >= 1, 'the market that ended half way was quoted before it ended');
    assert.equal(report.rotation.newMarketsQuoted, 1, 'the market created at 20 % was quoted');
    assert.match(r.stdout, /Faults injected[\s\S]*Invariants[\s\S]*result: PASS/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad flags are refused with exit 2 before anything starts', async () => {
  for (const [flags, named] of [
    [['--profile', 'nope'], /--profile/],
    [['--duration', '5s'], /--duration/],
    [['--seed', '-1'], /--seed/],
  ] as const) {
    const r = await cli(['chaos', ...flags], HANG_MS);
    assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, named);
  }
});
