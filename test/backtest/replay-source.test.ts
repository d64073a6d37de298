import assert from 'node:assert/strict';
import { test } from 'node:test';
import { windowRows } from '../../src/backtest/replay-source.ts';

/** The rows in [from, to) by the definition: filter, then a stable sort by time. */
function byDefinition(lts: number[], from: number, to: number): number[] {
  return lts
    .map((t, i) => ({ t, i }))
    .filter((r) => r.t >= from && r.t < to)
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((r) => r.i);
}

test('windowRows: rows in time order give the window as one run of rows, bounds inclusive / exclusive', () => {
  const lts = [10, 20, 20, 30, 40, 40, 50];
  const f = Float64Array.from(lts);
  for (const [from, to] of [
    [-Infinity, Infinity],
    [20, 40],
    [21, 41],
    [0, 10],
    [50, 51],
    [60, 70],
    [40, 40],
  ] as const)
    assert.deepEqual([...windowRows(f, f.length, from, to)], byDefinition(lts, from, to), `[${from}, ${to})`);
  assert.deepEqual([...windowRows(new Float64Array(0), 0, -Infinity, Infinity)], []);
});

test('windowRows: rows that step back are filtered and sorted stably; a NaN time is in no window', () => {
  const lts = [10, 30, 20, 20, 50, 40];
  assert.deepEqual([...windowRows(Float64Array.from(lts), lts.length, -Infinity, Infinity)], byDefinition(lts, -Infinity, Infinity));
  assert.deepEqual([...windowRows(Float64Array.from(lts), lts.length, 20, 45)], byDefinition(lts, 20, 45));
  for (const withNaN of [
    [NaN, 10, 20],
    [10, NaN, 20],
    [10, 20, NaN],
  ]) {
    assert.deepEqual([...windowRows(Float64Array.from(withNaN), 3, -Infinity, Infinity)], byDefinition(withNaN, -Infinity, Infinity), String(withNaN));
  }
});
