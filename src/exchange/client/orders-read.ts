/** Order reads: list (cursor), recent, get (id or hash; bare Order or `{order}`), and the order simulator. */
import { BadInputError } from '../../model/errors.ts';
import { ORDER_STATUSES, type Address, type Bytes32, type OrderStatus, type OutcomeIndex, type VenueOrder } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { arrIfPresent, arr, asObject, at, big, bool, pageCursor, int, num, nstr, str, sub, type At, type Rec } from './fields.ts';
import { checkAddress, checkBytes32, checkChoice, checkChoices, checkInt, checkOptInt } from './inputs.ts';
import { iterateByCursor } from './paginate.ts';
import { parseOrder, parseOrderAnswer } from './parse-order.ts';
import { seg } from './transport.ts';

export interface ListOrdersParams {
  trader?: Address;
  marketId?: Bytes32;
  status?: OrderStatus[];
  search?: string;
  /** 1–100 */
  limit?: number;
  cursor?: string;
}

export interface OrderPage {
  orders: VenueOrder[];
  markets: Record<string, { shortQuestion: string | null; slug: string | null }>;
  cursor: string | null;
}

function parseMarketsMap(o: Rec, a: At): OrderPage['markets'] {
  if (o.markets === undefined || o.markets === null) return {};
  const ma = sub(a, 'markets');
  const m = asObject(o.markets, ma);
  const out: OrderPage['markets'] = {};
  for (const [k, v] of Object.entries(m)) {
    const ia = sub(ma, k);
    const r = asObject(v, ia);
    out[k] = { shortQuestion: nstr(r, 'shortQuestion', ia), slug: nstr(r, 'slug', ia) };
  }
  return out;
}

/** The trader and market filters of the order reads, checked. */
function traderMarketQuery(p: { trader?: Address; marketId?: Bytes32 }): Record<string, string | undefined> {
  return {
    trader: p.trader === undefined ? undefined : checkAddress(p.trader, 'trader'),
    marketId: p.marketId === undefined ? undefined : checkBytes32(p.marketId, 'marketId'),
  };
}

export async function listOrders(ctx: ClientContext, p: ListOrdersParams = {}): Promise<OrderPage> {
  const ep = 'GET /orders';
  const { o, a, res } = await requestObject(ctx, {
    method: 'GET',
    path: '/orders',
    endpoint: ep,
    query: {
      ...traderMarketQuery(p),
      status: checkChoices(p.status, 'status', ORDER_STATUSES),
      search: p.search,
      limit: checkOptInt(p.limit, 'limit', 1, 100),
      cursor: p.cursor,
    },
  });
  return { orders: arr(o, 'orders', a, parseOrder), markets: parseMarketsMap(o, a), cursor: pageCursor(o, a, res.headers) };
}

/** `for await (const o of client.orders.iterate({trader, status: ['open']}))` over every page. */
export function iterateOrders(ctx: ClientContext, p: Omit<ListOrdersParams, 'cursor'> = {}): AsyncGenerator<VenueOrder> {
  return iterateByCursor((q) => listOrders(ctx, q), p, 'orders');
}

export interface RecentOrdersParams {
  trader?: Address;
  marketId?: Bytes32;
  status?: Exclude<OrderStatus, 'voided'>;
  /** 1–500 (venue default 200) */
  limit?: number;
  /** 1–600 (venue default 120) */
  windowSeconds?: number;
}

export async function recentOrders(ctx: ClientContext, p: RecentOrdersParams = {}): Promise<VenueOrder[]> {
  const ep = 'GET /orders/recent';
  const res = await ctx.t.request({
    method: 'GET',
    path: '/orders/recent',
    endpoint: ep,
    query: {
      ...traderMarketQuery(p),
      status: p.status === undefined ? undefined : checkChoice(p.status, 'status', ['open', 'filled', 'cancelled', 'expired'] as const),
      limit: checkOptInt(p.limit, 'limit', 1, 500),
      windowSeconds: checkOptInt(p.windowSeconds, 'windowSeconds', 1, 600),
    },
  });
  const a = at(ep);
  return arr(asObject(res.json, a), 'orders', a, parseOrder);
}

/** GET /orders/:id with a numeric DB id or a 0x order hash. */
export async function getOrder(ctx: ClientContext, id: number | string): Promise<VenueOrder> {
  const ep = 'GET /orders/:id';
  const ok =
    (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) || (typeof id === 'string' && (/^\d+$/.test(id) || /^0x[0-9a-fA-F]{64}$/.test(id)));
  if (!ok) throw new BadInputError('id', 'a numeric order id or a 0x 32-byte order hash', id);
  const res = await ctx.t.request({ method: 'GET', path: `/orders/${seg(id)}`, endpoint: ep });
  return parseOrderAnswer(res.json, at(ep));
}

export interface SimulateOrderParams {
  marketId: Bytes32;
  trader: Address;
  /** 1e-6 shares */
  maxSize: number | bigint;
  /** 1e-6 USDC per share */
  maxPrice: number;
  outcomeIndex: OutcomeIndex;
  side: 'bid' | 'ask';
}

export interface SimulateLevel {
  price: bigint;
  sizeAvailable: bigint;
  cumulativeSize: bigint;
  takerFee: bigint;
  cumulativeTakerFee: bigint;
  collateralRequired: bigint;
  cumulativeCollateral: bigint;
  makerCount: number;
}

export interface OrderSimulation {
  levels: SimulateLevel[];
  summary: {
    fillSize: bigint;
    fillCost: bigint;
    takerFee: bigint;
    weightedAvgPrice: bigint;
    totalLiquidityAvailable: bigint;
    percentFillable: number;
    slippageBps: number;
  };
  collateral: { balance: bigint; outcomeTokenBalance: bigint; requiredForFill: bigint; isSufficient: boolean };
  warnings: Rec[];
}

const LEVEL_KEYS = ['price', 'sizeAvailable', 'cumulativeSize', 'takerFee', 'cumulativeTakerFee', 'collateralRequired', 'cumulativeCollateral'] as const;

function uintArg(v: unknown, field: string): string {
  if (typeof v === 'bigint' && v >= 0n) return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  throw new BadInputError(field, 'a positive integer in 1e-6 units', v);
}

/** POST /orders/simulate: what a taker order of this size and limit would fill (read-only, so retryable). */
export async function simulateOrder(ctx: ClientContext, p: SimulateOrderParams): Promise<OrderSimulation> {
  const ep = 'POST /orders/simulate';
  const body = {
    marketId: checkBytes32(p.marketId, 'marketId'),
    trader: checkAddress(p.trader, 'trader'),
    maxSize: uintArg(p.maxSize, 'maxSize'),
    maxPrice: String(checkInt(p.maxPrice, 'maxPrice', 1, 999_999)),
    outcomeIndex: checkInt(p.outcomeIndex, 'outcomeIndex', 0, 1),
    side: checkChoice(p.side, 'side', ['bid', 'ask'] as const),
  };
  const { o, a } = await requestObject(ctx, { method: 'POST', path: '/orders/simulate', endpoint: ep, body, idempotent: true });
  const levels = arr(o, 'levels', a, (v, la) => {
    const l = asObject(v, la);
    const out = { makerCount: int(l, 'makerCount', la) } as SimulateLevel;
    for (const k of LEVEL_KEYS) out[k] = big(l, k, la);
    return out;
  });
  const sa = sub(a, 'summary');
  const s = asObject(o.summary, sa);
  const ca = sub(a, 'collateral');
  const c = asObject(o.collateral, ca);
  return {
    levels,
    summary: {
      fillSize: big(s, 'fillSize', sa),
      fillCost: big(s, 'fillCost', sa),
      takerFee: big(s, 'takerFee', sa),
      weightedAvgPrice: big(s, 'weightedAvgPrice', sa),
      totalLiquidityAvailable: big(s, 'totalLiquidityAvailable', sa),
      percentFillable: num(s, 'percentFillable', sa, 0, 100),
      slippageBps: num(s, 'slippageBps', sa),
    },
    collateral: {
      balance: big(c, 'balance', ca),
      outcomeTokenBalance: big(c, 'outcomeTokenBalance', ca),
      requiredForFill: big(c, 'requiredForFill', ca),
      isSufficient: bool(c, 'isSufficient', ca),
    },
    warnings: arrIfPresent(o, 'warnings', a, (v, wa) => {
      const w = asObject(v, wa);
      str(w, 'type', wa);
      return w;
    }),
  };
}
