/**
 * PnL per volume with its 95 % interval over blocks of time: the ratio estimator's figures on
 * hand-computed blocks, the cases without an interval, the blocks' volume from fills (exact, each
 * fill in one block), and the criterion that ranks by the interval's lower end: a run that earned on
 * a few lucky fills ranks below one that earned less per volume in every block.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockCount, blockVolume, pnlPerVolumeBound } from '../../src/backtest/pnl-per-volume-bound.ts';
import { rank, rankScore, type SweepResult } from '../../src/backtest/sweep-grid.ts';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';

test('pnlPerVolumeBound: the ratio, the ratio estimator’s standard error and t(0.975, B − 1)', () => {
  // R = 6 / 200 = 0.03; residuals p − R·v: 1 − 1.5, 2 − 1.5, 3 − 3 → −0.5, 0.5, 0 (Σe² = 0.5)
  const b = pnlPerVolumeBound({ pnl: [1, 2, 3], volume: [50, 50, 100] })!;
  assert.equal(b.blocks, 3);
  assert.equal(b.ratio, 0.03);
  const se = Math.sqrt((3 / 2) * 0.5) / 200;
  assert.ok(Math.abs(b.se - se) < 1e-15);
  assert.ok(Math.abs(b.lo - (0.03 - 4.303 * se)) < 1e-12, `${b.lo}`);
  assert.ok(Math.abs(b.hi - (0.03 + 4.303 * se)) < 1e-12);
  // every block earning the same per volume: no spread, the interval is the point
  const same = pnlPerVolumeBound({ pnl: [1, 2, 0], volume: [100, 200, 0] })!;
  assert.equal(same.lo, 0.01);
  assert.equal(same.hi, 0.01);
  // a block with no fill but a marked position counts with its PnL
  const held = pnlPerVolumeBound({ pnl: [1, 2, -3], volume: [100, 200, 0] })!;
  assert.equal(held.ratio, 0);
  assert.ok(held.lo < -0.01 && held.hi > 0.01);
});

test('pnlPerVolumeBound: no interval without volume or with fewer than two blocks', () => {
  assert.equal(pnlPerVolumeBound({ pnl: [1, 2], volume: [0, 0] }), null);
  assert.equal(pnlPerVolumeBound({ pnl: [1], volume: [10] }), null);
  assert.equal(pnlPerVolumeBound({ pnl: [], volume: [] }), null);
});

test('blockCount: the nearest whole number of blocks, at least two', () => {
  assert.equal(blockCount(0, 600_000, 60), 10);
  assert.equal(blockCount(0, 629_000, 60), 10);
  assert.equal(blockCount(0, 631_000, 60), 11);
  assert.equal(blockCount(0, 10_000, 60), 2);
  assert.equal(blockCount(0, 0, 60), 2);
});

test('blockVolume: each fill in the block its time falls in, at a boundary the block it ends, exact in micro-units', () => {
  const f = (at: number, price: number, size: number) => ({ at, price, size });
  // 0.333333 × 3 shares = 0.999999 USDC, three times: 2.999997 exactly (a float sum would drift)
  const fills = [
    f(0, 333_333, 3_000_000),
    f(10, 333_333, 3_000_000),
    f(25, 333_333, 3_000_000),
    f(30, 500_000, 10_000_000),
    f(31, 1, 1),
    f(99, 250_000, 4_000_000),
  ];
  const v = blockVolume(fills, 0, 40, 4);
  // [0,10] → block 0 (0 and 10), (10,20] → 1, (20,30] → 2 (25 and 30), after the end → the last
  assert.deepEqual(v, [1.999998, 0, 5.999999, 1]);
  const total = fills.reduce((a, x) => a + BigInt(x.price) * BigInt(x.size), 0n);
  assert.equal(Math.round(v.reduce((a, b) => a + b, 0) * 1e6), Number(total / 1_000_000n));
});

test('the criterion: a run with a few lucky fills ranks below one with many moderate ones (PnL per volume alone ranks them the other way)', () => {
  const r = (index: number, pnl: number[], volume: number[]): SweepResult => ({
    index,
    combo: { k: index },
    summary: { pnl: { total: pnl.reduce((a, b) => a + b, 0) }, volume: volume.reduce((a, b) => a + b, 0) } as unknown as BacktestSummary,
    blocks: { pnl, volume },
  });
  // lucky: 3 fills in 10 minutes, 2.6 USDC on 80 (3.25 %), made in two blocks, the rest a held position's swings
  const lucky = r(0, [0, 2.2, -0.3, 0.4, 0.3, 0, -0.2, 0, 0.2, 0], [0, 40, 0, 20, 0, 0, 0, 0, 20, 0]);
  // moderate: every minute some fills, 1 % of their volume give or take 0.5 %
  const moderate = r(1, [0.2, 0.3, 0.1, 0.25, 0.15, 0.2, 0.3, 0.1, 0.2, 0.2], [20, 20, 20, 20, 20, 20, 20, 20, 20, 20]);
  assert.ok(rankScore(lucky, 'pnlPerVolume') > rankScore(moderate, 'pnlPerVolume'));
  assert.deepEqual(
    rank([lucky, moderate], 'pnlPerVolume', 75).map((x) => x.index),
    [0, 1],
  );
  assert.deepEqual(
    rank([lucky, moderate], 'pnlPerVolumeLow', 75).map((x) => x.index),
    [1, 0],
  );
  assert.ok(rankScore(moderate, 'pnlPerVolumeLow') > 0.005, `${rankScore(moderate, 'pnlPerVolumeLow')}`);
  assert.ok(rankScore(lucky, 'pnlPerVolumeLow') < 0, `${rankScore(lucky, 'pnlPerVolumeLow')}`);
  // a run without blocks (a sweep part written before them) cannot be ranked by it: last among those at the floor
  const old: SweepResult = { index: 2, combo: { k: 2 }, summary: moderate.summary };
  assert.equal(rankScore(old, 'pnlPerVolumeLow'), -Infinity);
  assert.deepEqual(
    rank([old, lucky, moderate], 'pnlPerVolumeLow', 75).map((x) => x.index),
    [1, 0, 2],
  );
});
