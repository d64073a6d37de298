/**
 * The chaos soak as a benchmark: `npm run bench -- chaos-soak [--minutes 10] [--profile heavy]
 * [--seed N]` runs src/chaos/run-chaos.ts and reports faults injected by kind, invariant checks and
 * violations (the figure; must be 0). No baseline: the comparison is with the invariants themselves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from './lib.ts';
import { runChaos } from '../../src/chaos/run-chaos.ts';
import { formatChaosReport } from '../../src/chaos/chaos-report.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const minutes = Number(arg('minutes') ?? 10);
const seed = Number(arg('seed') ?? 1);
const profile = arg('profile') ?? 'heavy';
if (!(minutes > 0) || !Number.isSafeInteger(seed)) throw new Error('--minutes: a positive number; --seed: an integer');

const workDir = mkdtempSync(join(tmpdir(), 'bm-chaos-bench-'));
const r = await runChaos({ durationMs: minutes * 60_000, profile, seed, workDir, progress: (l) => process.stderr.write(`chaos: ${l}\n`) });
process.stderr.write(formatChaosReport(r));
const faults = Object.values(r.faults).reduce((a, b) => a + b, 0);
report(
  [
    ['duration', `${(r.durationMs / 1000).toFixed(0)} s, profile ${r.profile}, seed ${r.seed}, ${r.markets} markets`],
    ['faults injected', faults],
    ...Object.entries(r.faults).map(([k, v]) => [`  ${k}`, v] as [string, number]),
    ['invariant checks', r.totalChecks],
    ...Object.entries(r.checks).map(
      ([k, v]) => [`  ${k}`, `${v} checks, ${r.violationCounts[k as keyof typeof r.violationCounts]} violations`] as [string, string],
    ),
    ['violations', r.totalViolations],
    ['orders placed / with fills', `${r.ordersPlaced} / ${r.fills}`],
    ['bot starts (kill -9 + restart)', r.botStarts],
    ['logs', workDir],
  ],
  {
    name: 'chaos-soak',
    unit: 'invariant violations',
    value: r.totalViolations,
    faultsInjected: faults,
    faults: r.faults,
    checks: r.totalChecks,
    violationsByInvariant: r.violationCounts,
    minutes,
    profile,
  },
);
