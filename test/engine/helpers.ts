/**
 * Test helpers: high-level limit orders mapped to engine orders with the SDK's V2 arithmetic
 * (docs/venue.md#from-a-limit-order-to-a-v2-order), and an engine that records its events.
 */
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import type { EngineEvent, MarketConfig, SubmitOrder } from '../../src/engine/types.ts';

export const SHARE = 1_000_000;
export const CENT = 10_000;

export interface Opts {
  mode?: 'inventory' | 'mint';
  tif?: 0 | 1 | 2;
  maxFee?: number;
  buyValue?: number;
  expiry?: number;
  nowMs?: number;
  makerRole?: 0 | 1 | 2;
  marketOrder?: boolean;
}

/** docs/venue.md#from-a-limit-order-to-a-v2-order: default maxFee max(1, ⌊⌊P·S/100⌋/1e6⌋). */
export function defaultMaxFee(price: number, size: number): number {
  return Math.max(1, Math.floor(Math.floor((price * size) / 100) / 1e6));
}

/** A high-level order (outcome 'yes'/'no', side buy/sell, price and size in 1e-6 units) as a SubmitOrder. */
export function limit(market: number, trader: number, outcome: 'yes' | 'no', side: 'buy' | 'sell', price: number, size: number, o: Opts = {}): SubmitOrder {
  const F = o.maxFee ?? defaultMaxFee(price, size);
  const base = {
    market,
    trader,
    outcome: (outcome === 'yes' ? 1 : 0) as 0 | 1,
    price,
    maxFee: F,
    timeInForce: o.tif ?? 0,
    makerRole: o.makerRole ?? 0,
    expiry: o.expiry ?? 0,
    marketOrder: o.marketOrder ?? false,
    nowMs: o.nowMs ?? 1_000_000,
  } as const;
  if (side === 'buy') {
    const C = Math.ceil((price * size) / 1e6);
    return { ...base, kind: 0, maxShares: 0, minSharesOut: size, maxCollateralIn: (o.buyValue ?? C) + F, minCollateralOut: 0 };
  }
  const C = Math.floor((price * size) / 1e6);
  if (o.mode === 'mint') {
    return { ...base, kind: 2, maxShares: size, minSharesOut: 0, maxCollateralIn: size - C + F, minCollateralOut: 0 };
  }
  return { ...base, kind: 1, maxShares: size, minSharesOut: 0, maxCollateralIn: 0, minCollateralOut: C > F ? C - F : 0 };
}

export function setup(config: Partial<MarketConfig> = {}, traders = 4, cash = 1_000 * SHARE, doneOrders = true) {
  const events: EngineEvent[] = [];
  const engine = new MatchingEngine({ sink: (e) => events.push(e), doneOrders });
  const market = engine.addMarket(config);
  const t: number[] = [];
  for (let i = 0; i < traders; i++) {
    t.push(engine.addTrader());
    engine.deposit(t[i]!, BigInt(cash));
  }
  const fills = () => events.filter((e): e is Extract<EngineEvent, { type: 'fill' }> => e.type === 'fill');
  const dones = () => events.filter((e): e is Extract<EngineEvent, { type: 'done' }> => e.type === 'done');
  return { engine, market, t, events, fills, dones };
}
