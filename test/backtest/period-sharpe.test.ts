// Sharpe on a stated period: the longest of day/hour/minute the span covers 3 times; never annualised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_PERIODS, PERIOD_MS, periodSharpe, sharpePeriod } from '../../src/backtest/period-sharpe.ts';

test('the period is the longest one the span covers at least 3 times', () => {
  assert.equal(MIN_PERIODS, 3);
  assert.equal(sharpePeriod(20 * 60_000), 'minute', 'the 20-minute Polymarket capture: per minute');
  assert.equal(sharpePeriod(3 * 3_600_000 - 1), 'minute');
  assert.equal(sharpePeriod(3 * 3_600_000), 'hour');
  assert.equal(sharpePeriod(2.9 * 86_400_000), 'hour');
  assert.equal(sharpePeriod(55 * 86_400_000), 'day', 'the 55-day Kalshi trades: per day');
  assert.equal(sharpePeriod(179_999), null);
});

test('per-period PnL changes: mean / sample standard deviation, from the last sample at or before each boundary', () => {
  // 1 s samples over 4 hours; PnL steps +10, +30, +20 at the hour marks (then flat within each hour)
  const t: number[] = [];
  const pnl: number[] = [];
  const t0 = 1_750_000_000_000;
  for (let s = 0; s <= 4 * 3600; s++) {
    t.push(t0 + s * 1000);
    const h = Math.floor(s / 3600);
    pnl.push([0, 10, 40, 60, 60][h]!);
  }
  const r = periodSharpe(t, pnl);
  assert.equal(r.period, 'hour');
  assert.equal(r.periods, 4);
  const d = [10, 30, 20, 0];
  const mean = 15;
  const sd = Math.sqrt(d.reduce((a, x) => a + (x - mean) ** 2, 0) / 3);
  assert.equal(r.value, Number((mean / sd).toFixed(6)));
  // the same curve sampled every 10 s, and with a sample missing at a boundary, gives the same figure
  const every10 = periodSharpe(
    t.filter((_, i) => i % 10 === 0),
    pnl.filter((_, i) => i % 10 === 0),
  );
  assert.deepEqual(every10, r);
  assert.equal(PERIOD_MS.hour, 3_600_000);
});

test('undefined Sharpe says why: too short a span, or no variation', () => {
  const short = periodSharpe([0, 60_000, 120_000], [0, 1, 2]);
  assert.equal(short.value, null);
  assert.match(short.note!, /spans 120 s, under 3 minutes/);
  const flat = periodSharpe([0, 60_000, 120_000, 180_000], [5, 5, 5, 5]);
  assert.deepEqual([flat.value, flat.period, flat.periods], [null, 'minute', 3]);
  assert.match(flat.note!, /did not vary/);
  assert.equal(periodSharpe([1], [1]).value, null);
});
