/**
 * The chaos report as a terminal table (faults injected by kind, invariant checks run, violations)
 * and as JSON (the same figures, for CI and BENCHMARKS.md).
 */
import { FAULT_KINDS } from '../sim/faults.ts';
import { INVARIANT_NAMES } from './invariants.ts';
import type { ChaosFault, ChaosReport } from './run-chaos.ts';

const FAULT_ROWS: readonly ChaosFault[] = [...FAULT_KINDS, 'botKill9', 'marketCreated', 'marketResolved'];

function table(title: string, rows: readonly (readonly string[])[]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => '  ' + r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('   ');
  return [title, line(rows[0]!), '  ' + w.map((n) => '-'.repeat(n)).join('   '), ...rows.slice(1).map(line)];
}

export function formatChaosReport(r: ChaosReport): string {
  const out: string[] = [];
  out.push(
    `chaos soak: ${(r.durationMs / 1000).toFixed(0)} s, profile ${r.profile}, seed ${r.seed}, ${r.markets} markets, ${r.botStarts} bot starts, ${r.ordersPlaced} orders placed, ${r.fills} with fills`,
  );
  out.push('');
  out.push(
    ...table('Faults injected', [
      ['kind', 'count'],
      ...FAULT_ROWS.map((k) => [k, String(r.faults[k] ?? 0)]),
      ['total', String(FAULT_ROWS.reduce((a, k) => a + (r.faults[k] ?? 0), 0))],
    ]),
  );
  if (r.rotation)
    out.push(
      '',
      `rotation: ${r.rotation.marketsCreated} market(s) created and ${r.rotation.marketsResolved} resolved during the run; the bot quoted ${r.rotation.newMarketsQuoted} of the new ones and ${r.rotation.endedMarketsQuoted} of the ended ones before they ended`,
    );
  if (r.booksCashRoundingMicro > 0)
    out.push(
      '',
      `books cash off the venue's by up to ${(r.booksCashRoundingMicro / 1e6).toFixed(6)} USDC, within the rounding of the venue's stated average fill prices (docs/books-and-pnl.md, "Price")`,
    );
  out.push('');
  out.push(
    ...table('Invariants', [
      ['invariant', 'checks', 'violations'],
      ...INVARIANT_NAMES.map((n) => [n, String(r.checks[n]), String(r.violationCounts[n])]),
      ['total', String(r.totalChecks), String(r.totalViolations)],
    ]),
  );
  if (r.violations.length) {
    out.push('', 'Violations:');
    for (const v of r.violations.slice(0, 50)) out.push(`  [${v.invariant}] ${new Date(v.atMs).toISOString()} ${v.detail}`);
  }
  out.push('', r.totalViolations === 0 ? 'result: PASS (0 violations)' : `result: FAIL (${r.totalViolations} violations)`);
  return out.join('\n') + '\n';
}

export function chaosReportJson(r: ChaosReport): string {
  return JSON.stringify(r, null, 2) + '\n';
}
