/**
 * A short chaos soak inside `npm test`: the real bot (a child process) against the local exchange with
 * the heavy fault profile, an exchange restart and a kill -9 + restart of the bot. Zero invariant
 * violations, every invariant actually checked, and faults of every kind actually injected. Also
 * drives `bookmaker chaos --json` end to end in a shorter run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChaos } from '../../src/chaos/run-chaos.ts';
import { INVARIANT_NAMES } from '../../src/chaos/invariants.ts';
import { formatChaosReport } from '../../src/chaos/chaos-report.ts';
import { FAULT_KINDS } from '../../src/sim/faults.ts';

test('45 s heavy chaos soak: faults of every kind injected, every invariant checked, zero violations', { timeout: 180_000 }, async (t) => {
  const workDir = mkdtempSync(join(tmpdir(), 'bm-chaos-test-'));
  try {
    const r = await runChaos({ durationMs: 45_000, profile: 'heavy', seed: 3, workDir });
    t.diagnostic(formatChaosReport(r));
    for (const k of [...FAULT_KINDS, 'botKill9' as const]) assert.ok(r.faults[k] > 0, `fault ${k} injected (${r.faults[k]})`);
    for (const n of INVARIANT_NAMES) assert.ok(r.checks[n] > 0, `invariant ${n} checked (${r.checks[n]})`);
    assert.deepEqual(r.violations, [], formatChaosReport(r));
    assert.equal(r.totalViolations, 0);
    assert.equal(r.finalExitCode, 0);
    assert.equal(r.botStarts, 2);
    assert.ok(r.ordersPlaced > 20, `the bot quoted (${r.ordersPlaced} orders)`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
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
  assert.equal(code, 0, writes.join(''));
  assert.equal(report.totalViolations, 0);
  assert.equal(report.profile, 'flaky');
  assert.ok(report.totalChecks > 0);
  assert.match(writes.join(''), /Faults injected[\s\S]*Invariants[\s\S]*result: PASS/);
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
