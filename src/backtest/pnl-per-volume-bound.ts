/**
 * PnL per volume with its uncertainty, from a run cut into blocks of time: the criterion that ranks
 * a sweep or a walk-forward by `rankBy: pnlPerVolumeLow` (docs/backtesting.md, "Walk-forward").
 *
 * Fills of one market are not independent (a position taken on one fill is marked, and unloaded, on
 * the next ones), so the unit of evidence is a block of time (`blockSeconds`, default 60 s), not a
 * fill. Block b has PnL p_b (the change of the run's marked PnL over the block: `windowPnl`, so the
 * blocks sum to the run's PnL) and volume v_b (Σ price × size of the fills in it). PnL per volume is
 * the ratio R = Σp / Σv, and its standard error the ratio estimator's (a linearisation):
 *
 *   se = √( B/(B−1) · Σ (p_b − R·v_b)² ) / Σv
 *
 * over the B blocks (`blockCount`; the sweep job cuts them: src/backtest/sweep-job.ts); blocks without fills count with their PnL
 * (inventory marked) and no volume. The
 * criterion is the lower end of the 95 % interval, R − t(0.975, B−1) · se (src/backtest/mean-ci.ts's
 * quantiles): a run that earned on a few fills, or carried inventory that swung, has a wide interval
 * and ranks below one that earned less per volume but did so in every block.
 */
import { t975 } from './mean-ci.ts';

/** A run's blocks: PnL and volume of each (USDC), in time order. */
export interface RunBlocks {
  readonly pnl: readonly number[];
  readonly volume: readonly number[];
}

export interface PnlPerVolumeBound {
  readonly blocks: number;
  /** PnL / volume over the run */
  readonly ratio: number;
  readonly se: number;
  /** the 95 % interval */
  readonly lo: number;
  readonly hi: number;
}

/** How many blocks of `blockSeconds` a run of [start, end] is cut into: the nearest whole number, at least 2. */
export function blockCount(start: number, end: number, blockSeconds: number): number {
  const n = Math.round((end - start) / (blockSeconds * 1000));
  return Number.isFinite(n) && n >= 2 ? n : 2;
}

/**
 * Volume (USDC) of the fills in each of `n` equal blocks of [start, end], a fill in the block its time
 * falls in (a fill at a boundary in the block it ends; before start in the first, after end in the
 * last). Exact: summed in 1e-12 USDC (price × size), each block converted once.
 */
export function blockVolume(
  fills: readonly { readonly at: number; readonly price: number; readonly size: number }[],
  start: number,
  end: number,
  n: number,
): number[] {
  const sums = Array.from({ length: n }, () => 0n);
  const span = end - start;
  for (const f of fills) {
    const b = span > 0 ? Math.min(n - 1, Math.max(0, Math.ceil(((f.at - start) / span) * n) - 1)) : 0;
    sums[b] = sums[b]! + BigInt(f.price) * BigInt(f.size);
  }
  return sums.map((v) => Number(v / 1_000_000n) / 1e6);
}

/** PnL per volume and its 95 % interval over the blocks; null without volume or with fewer than two blocks. */
export function pnlPerVolumeBound(b: RunBlocks): PnlPerVolumeBound | null {
  const n = Math.min(b.pnl.length, b.volume.length);
  if (n < 2) return null;
  let p = 0;
  let v = 0;
  for (let i = 0; i < n; i++) {
    p += b.pnl[i]!;
    v += b.volume[i]!;
  }
  if (!(v > 0)) return null;
  const ratio = p / v;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (b.pnl[i]! - ratio * b.volume[i]!) ** 2;
  const se = Math.sqrt((n / (n - 1)) * ss) / v;
  const half = t975(n - 1) * se;
  return { blocks: n, ratio, se, lo: ratio - half, hi: ratio + half };
}
