/**
 * Per-market trade history kept for the derived figures: 24-hour volume and the price history of
 * GET /markets/:id/prices. Rebuilt from the activity log after a restore, so it is not saved.
 */
import type { Bytes32 } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import type { ActivityEntry } from './records.ts';

interface TradePoint {
  ts: number;
  /** YES price, 1e-6 units */
  price: number;
  /** collateral, 1e-6 USDC */
  notional: number;
}

const DAY = 86_400_000;

export const TIMEFRAMES = ['1h', '6h', '1d', '1w', '1M', 'all'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

const WINDOW: Record<Timeframe, number> = { '1h': 3_600_000, '6h': 6 * 3_600_000, '1d': DAY, '1w': 7 * DAY, '1M': 30 * DAY, all: Number.POSITIVE_INFINITY };
const INTERVAL: Record<Timeframe, number> = { '1h': 60_000, '6h': 300_000, '1d': 900_000, '1w': 3_600_000, '1M': 4 * 3_600_000, all: DAY };

export class MarketStats {
  private readonly trades = new Map<Bytes32, TradePoint[]>();

  recordTrade(marketId: Bytes32, ts: number, price: number, notional: number): void {
    let a = this.trades.get(marketId);
    if (!a) {
      a = [];
      this.trades.set(marketId, a);
    }
    a.push({ ts, price, notional });
    // bounded memory: keep the last 100k trades per market
    if (a.length > 120_000) a.splice(0, a.length - 100_000);
  }

  rebuild(activity: readonly ActivityEntry[]): void {
    this.trades.clear();
    for (const e of activity) {
      if (e.type !== 'trade') continue;
      const d = e.data as { side?: string; price?: number; contracts?: number };
      if (typeof d.price !== 'number' || typeof d.contracts !== 'number') continue;
      const p = Math.round((d.side === 'no' ? 1 - d.price : d.price) * ONE);
      this.recordTrade(e.marketId, e.ts, p, Math.round(p * d.contracts));
    }
  }

  volume24h(marketId: Bytes32, now: number): bigint {
    const a = this.trades.get(marketId);
    if (!a) return 0n;
    let v = 0;
    for (let i = a.length - 1; i >= 0 && a[i]!.ts > now - DAY; i--) v += a[i]!.notional;
    return BigInt(v);
  }

  /** Last YES price per interval bucket, as probabilities (0–1), time in unix seconds. */
  prices(
    marketId: Bytes32,
    timeframe: Timeframe,
    now: number,
    createdAt: number,
  ): { prices: { time: number; price: number }[]; startTime: number; endTime: number; interval: number } {
    const a = this.trades.get(marketId) ?? [];
    const start = Math.max(createdAt, now - WINDOW[timeframe]);
    const interval = INTERVAL[timeframe];
    const out: { time: number; price: number }[] = [];
    let bucket = -1;
    for (const t of a) {
      if (t.ts < start || t.ts > now) continue;
      const b = Math.floor(t.ts / interval);
      const point = { time: Math.floor((b * interval) / 1000), price: t.price / ONE };
      if (b === bucket) out[out.length - 1] = point;
      else out.push(point);
      bucket = b;
    }
    return { prices: out, startTime: Math.floor(start / 1000), endTime: Math.floor(now / 1000), interval: interval / 1000 };
  }
}
