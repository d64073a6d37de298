/**
 * One preflight check of `bookmaker doctor` (src/cli/commands/doctor.ts): a name, a result, what it
 * found and, when it is not ok, the fix. The `--json` output is `{checks: CheckResult[]}` as is.
 */
export type CheckOutcome = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  readonly name: string;
  readonly result: CheckOutcome;
  /** what the check found (never a secret: every detail is scrubbed before it is printed) */
  readonly detail: string;
  /** what to do about it ('' when ok) */
  readonly fix: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, result: 'ok', detail, fix: '' });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ name, result: 'warn', detail, fix });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, result: 'fail', detail, fix });

/** USDC in 1e-6 units as a decimal with 2 places (truncated), for details. */
export function usdcText(v: bigint | number): string {
  const n = typeof v === 'bigint' ? v : BigInt(Math.trunc(v));
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? '-' : ''}${a / 1_000_000n}.${String((a % 1_000_000n) / 10_000n).padStart(2, '0')}`;
}
