/**
 * Mean of independent runs (one per seed) with its 95 % confidence interval: mean ± t(0.975, n − 1)
 * · s / √n, s the sample standard deviation. With one run the interval is unknown (null bounds).
 */
export interface MeanCi {
  readonly n: number;
  readonly mean: number;
  /** sample standard deviation (n − 1); 0 with one run */
  readonly sd: number;
  /** 95 % interval, null with fewer than two runs */
  readonly lo: number | null;
  readonly hi: number | null;
}

// two-sided 95 % Student t quantiles t(0.975, df), df = 1..30; beyond, the normal 1.96 (within 2 %)
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069,
  2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function t975(df: number): number {
  if (df < 1) return NaN;
  return df <= T975.length ? T975[df - 1]! : 1.96;
}

export function meanCi(values: readonly number[]): MeanCi {
  const n = values.length;
  if (n === 0) return { n: 0, mean: NaN, sd: NaN, lo: null, hi: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { n, mean, sd: 0, lo: null, hi: null };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { n, mean, sd, lo: mean - half, hi: mean + half };
}

/** "12.34 [10.1, 14.5]" (digits after the point), "–" for a missing figure. */
export function formatMeanCi(c: MeanCi, digits = 2): string {
  if (!Number.isFinite(c.mean)) return '–';
  const f = (v: number) => v.toFixed(digits);
  return c.lo === null || c.hi === null ? f(c.mean) : `${f(c.mean)} [${f(c.lo)}, ${f(c.hi)}]`;
}
