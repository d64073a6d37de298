/**
 * Sharpe ratio of a PnL curve on a stated period: the mean over the standard deviation of the PnL
 * change per period (day, hour or minute), never scaled to a year. The period is the longest one the
 * span covers at least MIN_PERIODS times, so a 20-minute run gives a per-minute figure, a 6-hour run a
 * per-hour figure and a 55-day run a per-day figure; each is what it says, with the number of periods.
 */
export type SharpePeriod = 'day' | 'hour' | 'minute';

export interface PeriodSharpe {
  /** mean / sd of the PnL change per period; null when undefined (too few periods, or no variation) */
  readonly value: number | null;
  readonly period: SharpePeriod | null;
  /** how many whole periods the value is computed from */
  readonly periods: number;
  /** why value is null, when it is */
  readonly note?: string;
}

export const PERIOD_MS: Readonly<Record<SharpePeriod, number>> = { day: 86_400_000, hour: 3_600_000, minute: 60_000 };
/** the fewest whole periods a Sharpe is computed from */
export const MIN_PERIODS = 3;

const round = (x: number, d: number): number => Number(x.toFixed(d));

/** The longest period the span [start, end] covers at least MIN_PERIODS times, or null. */
export function sharpePeriod(spanMs: number): SharpePeriod | null {
  for (const p of ['day', 'hour', 'minute'] as const) if (spanMs >= MIN_PERIODS * PERIOD_MS[p]) return p;
  return null;
}

/**
 * `t` ascending sample times (ms), `pnl` the PnL at each (any unit: the ratio has none). The PnL at a
 * period boundary is the last sample at or before it.
 */
export function periodSharpe(t: readonly number[], pnl: readonly number[]): PeriodSharpe {
  const n = Math.min(t.length, pnl.length);
  if (n < 2) return { value: null, period: null, periods: 0, note: 'fewer than two samples' };
  const start = t[0]!;
  const span = t[n - 1]! - start;
  const period = sharpePeriod(span);
  if (period === null) return { value: null, period: null, periods: 0, note: `the run spans ${Math.round(span / 1000)} s, under ${MIN_PERIODS} minutes` };
  const step = PERIOD_MS[period];
  const whole = Math.floor(span / step);
  const marks: number[] = [];
  let k = 0;
  for (let p = 0; p <= whole; p++) {
    const boundary = start + p * step;
    while (k + 1 < n && t[k + 1]! <= boundary) k++;
    marks.push(pnl[k]!);
  }
  const d: number[] = [];
  for (let p = 1; p < marks.length; p++) d.push(marks[p]! - marks[p - 1]!);
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1));
  if (!(sd > 0)) return { value: null, period, periods: d.length, note: `the PnL did not vary from ${period} to ${period}` };
  return { value: round(mean / sd, 6), period, periods: d.length };
}
