/**
 * `backtest --fills-csv FILE`: one row per fill of the run, in fill order.
 *
 * Columns: time (ISO, ms), market (id), market_name (the recording's, else empty), side (YES terms:
 * buy = bought YES exposure), outcome (yes | no: the order's outcome), order_side (buy | sell, the
 * order's own side), price and yes_price (USDC per share, exact), size (shares, exact), liquidity
 * (maker | taker), fee (USDC, exact), cause (trade | cross | take | taker), mid_at_fill (the recorded YES mid
 * just before the fill, USDC), then markout_<h> for each horizon: (mid(t + h) − price) for a buy and
 * (price − mid(t + h)) for a sell, USDC per share, empty when t + h is past the end of the data.
 * Money columns are written from the integer units, never through a float.
 */
import { horizonLabel } from '../state/edge-settings.ts';
import { markoutHorizons } from './report-summary.ts';
import type { BacktestRun } from './run-backtest.ts';

/** An integer count of 1e-6 units as an exact decimal string (`-0.012500`). */
export function microDecimal(n: number | bigint, decimals = 6): string {
  const v = BigInt(n);
  const neg = v < 0n;
  const a = neg ? -v : v;
  const d = 10n ** BigInt(decimals);
  return `${neg ? '-' : ''}${a / d}.${(a % d).toString().padStart(decimals, '0')}`;
}

const csvCell = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export function fillsCsv(run: BacktestRun): string {
  const c = run.collector;
  const hs = markoutHorizons(run);
  const names = new Map(run.source.manifest.markets.map((m) => [m.id, m.name]));
  const header = [
    'time',
    'market',
    'market_name',
    'side',
    'outcome',
    'order_side',
    'price',
    'yes_price',
    'size',
    'liquidity',
    'fee',
    'cause',
    'mid_at_fill',
    ...hs.map((h) => `markout_${horizonLabel(h)}`),
  ];
  const lines = [header.join(',')];
  c.fills.forEach((f, i) => {
    const mid2 = c.fillMid2[i]!;
    const sign = f.yesSide === 'bid' ? 1 : -1;
    const marks = hs.map((h) => {
      if (f.at + h > run.end) return '';
      const mid = c.midAt(f.market, f.at + h);
      if (!Number.isFinite(mid)) return '';
      // 2 × (mid − price) in integer half-units, then exact to 7 decimals (a half-unit mid)
      const edge2 = sign * (Math.round(mid * 2) - 2 * f.yesPrice);
      return microDecimal(edge2 * 5, 7);
    });
    const row = [
      new Date(f.at).toISOString(),
      f.marketId,
      csvCell(names.get(f.marketId) ?? ''),
      f.yesSide === 'bid' ? 'buy' : 'sell',
      f.outcomeIndex === 1 ? 'yes' : 'no',
      f.side === 0 ? 'buy' : 'sell',
      microDecimal(f.price),
      microDecimal(f.yesPrice),
      microDecimal(f.size),
      f.maker ? 'maker' : 'taker',
      microDecimal(f.fee),
      f.cause,
      Number.isFinite(mid2) ? microDecimal(mid2 * 5, 7) : '',
      ...marks,
    ];
    lines.push(row.join(','));
  });
  return lines.join('\n') + '\n';
}
