/** Public market data besides the book: price history, quotes (docs/venue.md only) and the market simulator. */
import { BadInputError } from '../../model/errors.ts';
import { requestObject, type ClientContext } from './context.ts';
import { arrIfPresent, arr, asObject, nnum, num, oneOf, str, sub, type At, type Rec } from './fields.ts';
import { checkChoice, checkMarketRef, checkOptAddress } from './inputs.ts';
import { quotePrice, resolvePriceUnits } from './quote-units.ts';
import { seg } from './transport.ts';
import type { Address } from '../../model/order.ts';

export type Timeframe = '1h' | '6h' | '1d' | '1w' | '1M' | 'all';
export const TIMEFRAMES: readonly Timeframe[] = ['1h', '6h', '1d', '1w', '1M', 'all'];

export interface PricePoint {
  /** unix seconds as the venue sends it */
  time: number;
  /** 1e-6 units */
  price: number;
}

export interface PriceHistory {
  prices: PricePoint[];
  startTime: number;
  endTime: number;
  interval: number;
}

/** GET /markets/:id/prices (id must be a 0x hash). Prices use the quote unit rule over the whole series. */
export async function getPrices(ctx: ClientContext, marketId: string, timeframe?: Timeframe): Promise<PriceHistory> {
  const ep = 'GET /markets/:id/prices';
  const id = checkMarketRef(marketId);
  const { o, a } = await requestObject(ctx, {
    method: 'GET',
    path: `/markets/${seg(id)}/prices`,
    endpoint: ep,
    query: { timeframe: timeframe === undefined ? undefined : checkChoice(timeframe, 'timeframe', TIMEFRAMES) },
  });
  const raw = arr(o, 'prices', a, (v, aa) => {
    const p = asObject(v, aa);
    return { time: num(p, 'time', aa, 0), price: num(p, 'price', aa, 0), aa };
  });
  const u = resolvePriceUnits(
    ctx.priceUnits,
    raw.map((r) => r.price),
  );
  return {
    prices: raw.map((r) => ({ time: r.time, price: quotePrice(r.price, u, ep, `${r.aa.path}.price`)! })),
    startTime: num(o, 'startTime', a),
    endTime: num(o, 'endTime', a),
    interval: num(o, 'interval', a, 0),
  };
}

export interface SideQuote {
  bid: number | null;
  ask: number | null;
  last: number | null;
}

export interface Quotes {
  marketId: string;
  yes: SideQuote;
  no: SideQuote;
  spread: number | null;
  timestamp: string | null;
}

/** GET /markets/:id/quotes (old spec / CLI) → `{marketId, yes:{bid,ask,last}, no:{…}, spread, timestamp}`. */
export async function getQuotes(ctx: ClientContext, marketId: string): Promise<Quotes> {
  const ep = 'GET /markets/:id/quotes';
  const id = checkMarketRef(marketId);
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/markets/${seg(id)}/quotes`, endpoint: ep });
  const side = (k: 'yes' | 'no'): { r: Rec; aa: At } => ({ r: asObject(o[k], sub(a, k)), aa: sub(a, k) });
  const y = side('yes');
  const n = side('no');
  const rawVals = [y, n].flatMap(({ r, aa }) => ['bid', 'ask', 'last'].map((k) => nnum(r, k, aa, 0)));
  const spreadRaw = nnum(o, 'spread', a, 0);
  const u = resolvePriceUnits(ctx.priceUnits, [...rawVals, spreadRaw]);
  const conv = ({ r, aa }: { r: Rec; aa: At }): SideQuote => ({
    bid: quotePrice(nnum(r, 'bid', aa, 0), u, ep, `${aa.path}.bid`),
    ask: quotePrice(nnum(r, 'ask', aa, 0), u, ep, `${aa.path}.ask`),
    last: quotePrice(nnum(r, 'last', aa, 0), u, ep, `${aa.path}.last`),
  });
  return {
    marketId: typeof o.marketId === 'string' ? o.marketId : id,
    yes: conv(y),
    no: conv(n),
    spread: quotePrice(spreadRaw, u, ep, 'spread'),
    timestamp: o.timestamp === undefined || o.timestamp === null ? null : String(o.timestamp),
  };
}

export interface MarketSimulateParams {
  side: 'yes' | 'no';
  amount: number;
  amountType?: 'usd' | 'contracts';
  trader?: Address;
}

export interface MarketSimulation {
  marketId: string;
  side: 'yes' | 'no';
  amount: number;
  amountType: 'usd' | 'contracts';
  estimatedContracts: number;
  /** as the venue sends it (model maths only, not money) */
  estimatedAvgPrice: number;
  estimatedSlippage: number;
  warnings: Rec[];
}

/** POST /markets/:id/simulate (public). amountType defaults to "usd" as in the SDK. */
export async function simulateMarket(ctx: ClientContext, marketId: string, p: MarketSimulateParams): Promise<MarketSimulation> {
  const ep = 'POST /markets/:id/simulate';
  const id = checkMarketRef(marketId);
  const side = checkChoice(p.side, 'side', ['yes', 'no'] as const);
  if (typeof p.amount !== 'number' || !Number.isFinite(p.amount) || p.amount < 0) throw new BadInputError('amount', 'a finite number ≥ 0', p.amount);
  const amountType = checkChoice(p.amountType ?? 'usd', 'amountType', ['usd', 'contracts'] as const);
  const trader = checkOptAddress(p.trader, 'trader');
  const { o, a } = await requestObject(ctx, {
    method: 'POST',
    path: `/markets/${seg(id)}/simulate`,
    endpoint: ep,
    body: { side, amount: p.amount, amountType, ...(trader ? { trader } : {}) },
    idempotent: true, // a pure computation: safe to resend
  });
  return {
    marketId: str(o, 'marketId', a),
    side: oneOf(o, 'side', a, ['yes', 'no'] as const),
    amount: num(o, 'amount', a, 0),
    amountType: oneOf(o, 'amountType', a, ['usd', 'contracts'] as const),
    estimatedContracts: num(o, 'estimatedContracts', a, 0),
    estimatedAvgPrice: num(o, 'estimatedAvgPrice', a, 0),
    estimatedSlippage: num(o, 'estimatedSlippage', a),
    warnings: arrIfPresent(o, 'warnings', a, (v, aa) => asObject(v, aa)),
  };
}
