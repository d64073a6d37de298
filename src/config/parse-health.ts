/**
 * `health:` section (optional, with defaults): the health model's thresholds.
 *   notQuotingGraceSeconds  a market that should quote and has had no live quote this long makes /readyz
 *                           answer 503 (default 30)
 *   strategyBudgetMs        a strategy call slower than this is counted and marks its market
 *                           strategy-slow (default 50)
 *   logIntervalSeconds      storms (refusals, strategy errors, state flapping) are summarised once per
 *                           this interval after their first line (default 10)
 */
import { readNumber, readOptionalObject } from '../core/fields.ts';
import type { HealthSettings } from './types.ts';

export function parseHealth(raw: unknown, path: string): HealthSettings {
  const o = readOptionalObject(raw, path, ['notQuotingGraceSeconds', 'strategyBudgetMs', 'logIntervalSeconds']);
  return {
    notQuotingGraceMs: Math.round(readNumber(o, 'notQuotingGraceSeconds', path, { min: 1, max: 86_400 }, 30) * 1000),
    strategyBudgetMs: readNumber(o, 'strategyBudgetMs', path, { min: 1, max: 60_000 }, 50),
    logIntervalMs: Math.round(readNumber(o, 'logIntervalSeconds', path, { min: 1, max: 3600 }, 10) * 1000),
  };
}
