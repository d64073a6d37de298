/** Portfolio (auth): summary (cursor), positions (cursor), claimable, stats. Amounts as bigint 1e-6 units. */
import type { Address, Bytes32, OutcomeIndex } from '../../model/order.ts';
import type { ClientContext } from './context.ts';
import { address, arr, asObject, at, big, bytes32, pageCursor, int, nOneOf, nstr, num, oneOf, sbig, str, strings, type At, type Rec } from './fields.ts';
import { checkAddress, checkBytes32, checkOptChoice, checkOptInt } from './inputs.ts';
import { paginateCursor } from './paginate.ts';
import { seg } from './transport.ts';

export type ClaimState = 'claimable' | 'claiming' | 'autoclaimed';
const CLAIM_STATES: readonly ClaimState[] = ['claimable', 'claiming', 'autoclaimed'];

export interface Holding {
  tokenAddress: Address;
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  outcomeName: string;
  /** 1e-6 shares */
  balance: bigint;
  settlementBalance: bigint;
  walletBalance: bigint;
  /** 1e-6 USDC */
  netInvestment: bigint;
  currentValue: bigint;
  claimState: ClaimState | null;
  claimableAmount: bigint;
  tokensRedeemed: bigint;
}

function parseHolding(v: unknown, a: At): Holding {
  const o = asObject(v, a);
  return {
    tokenAddress: address(o, 'tokenAddress', a),
    marketId: bytes32(o, 'marketId', a),
    outcomeIndex: oneOf(o, 'outcomeIndex', a, [0, 1] as const),
    outcomeName: str(o, 'outcomeName', a),
    balance: big(o, 'balance', a),
    settlementBalance: big(o, 'settlementBalance', a),
    walletBalance: big(o, 'walletBalance', a),
    netInvestment: sbig(o, 'netInvestment', a),
    currentValue: big(o, 'currentValue', a),
    claimState: nOneOf(o, 'claimState', a, CLAIM_STATES),
    claimableAmount: big(o, 'claimableAmount', a),
    tokensRedeemed: big(o, 'tokensRedeemed', a),
  };
}

export interface PortfolioParams {
  marketId?: Bytes32;
  kind?: 'all' | 'active' | 'won' | 'lost' | 'claimable';
  cursor?: string;
  pageSize?: number;
}

export async function getPortfolio(ctx: ClientContext, owner: Address, p: PortfolioParams = {}): Promise<{ portfolio: Holding[]; marketIds: Bytes32[]; cursor: string | null }> {
  const ep = 'GET /portfolio/:address';
  const res = await ctx.t.request({
    method: 'GET',
    path: `/portfolio/${seg(checkAddress(owner, 'address'))}`,
    endpoint: ep,
    query: {
      marketId: p.marketId === undefined ? undefined : checkBytes32(p.marketId, 'marketId'),
      kind: checkOptChoice(p.kind, 'kind', ['all', 'active', 'won', 'lost', 'claimable'] as const),
      cursor: p.cursor,
      pageSize: checkOptInt(p.pageSize, 'pageSize', 1, 500),
    },
  });
  const a = at(ep);
  const o = asObject(res.json, a);
  return { portfolio: arr(o, 'portfolio', a, parseHolding), marketIds: o.marketIds === undefined ? [] : (strings(o, 'marketIds', a) as Bytes32[]), cursor: pageCursor(o, a, res.headers) };
}

export function iteratePortfolio(ctx: ClientContext, owner: Address, p: Omit<PortfolioParams, 'cursor'> = {}): AsyncGenerator<Holding> {
  return paginateCursor(async (c) => {
    const page = await getPortfolio(ctx, owner, c === undefined ? p : { ...p, cursor: c });
    return { items: page.portfolio, cursor: page.cursor };
  });
}

export interface Position {
  marketId: Bytes32;
  slug: string | null;
  marketName: string;
  outcomeName: string;
  outcomeIndex: OutcomeIndex;
  /** 1e-6 shares */
  size: bigint;
  /** 1e-6 USDC per share */
  avgPrice: bigint;
  price: bigint;
  claimState: ClaimState | null;
  claimableAmount: bigint;
  tokensRedeemed: bigint;
  status: 'open' | 'closed';
}

function parsePosition(v: unknown, a: At): Position {
  const o = asObject(v, a);
  return {
    marketId: bytes32(o, 'marketId', a),
    slug: nstr(o, 'slug', a),
    marketName: str(o, 'marketName', a),
    outcomeName: str(o, 'outcomeName', a),
    outcomeIndex: oneOf(o, 'outcomeIndex', a, [0, 1] as const),
    size: big(o, 'size', a),
    avgPrice: big(o, 'avgPrice', a),
    price: big(o, 'price', a),
    claimState: nOneOf(o, 'claimState', a, CLAIM_STATES),
    claimableAmount: big(o, 'claimableAmount', a),
    tokensRedeemed: big(o, 'tokensRedeemed', a),
    status: oneOf(o, 'status', a, ['open', 'closed'] as const),
  };
}

export interface PositionsParams {
  marketId?: Bytes32;
  status?: 'open' | 'closed';
  search?: string;
  cursor?: string;
  limit?: number;
}

export async function getPositions(ctx: ClientContext, owner: Address, p: PositionsParams = {}): Promise<{ positions: Position[]; cursor: string | null }> {
  const ep = 'GET /portfolio/:address/positions';
  const res = await ctx.t.request({
    method: 'GET',
    path: `/portfolio/${seg(checkAddress(owner, 'address'))}/positions`,
    endpoint: ep,
    query: {
      marketId: p.marketId === undefined ? undefined : checkBytes32(p.marketId, 'marketId'),
      status: checkOptChoice(p.status, 'status', ['open', 'closed'] as const),
      search: p.search,
      cursor: p.cursor,
      limit: checkOptInt(p.limit, 'limit', 1, 500),
    },
  });
  const a = at(ep);
  const o = asObject(res.json, a);
  return { positions: arr(o, 'positions', a, parsePosition), cursor: pageCursor(o, a, res.headers) };
}

export function iteratePositions(ctx: ClientContext, owner: Address, p: Omit<PositionsParams, 'cursor'> = {}): AsyncGenerator<Position> {
  return paginateCursor(async (c) => {
    const page = await getPositions(ctx, owner, c === undefined ? p : { ...p, cursor: c });
    return { items: page.positions, cursor: page.cursor };
  });
}

export interface Claimable {
  positions: Rec[];
  markets: { id: Bytes32; outcomeTokens: Address[]; outcomeNames: string[]; payoutPcts: number[] }[];
  /** 1e-6 USDC */
  totalClaimable: bigint;
}

export async function getClaimable(ctx: ClientContext, owner: Address): Promise<Claimable> {
  const ep = 'GET /portfolio/:address/claimable';
  const res = await ctx.t.request({ method: 'GET', path: `/portfolio/${seg(checkAddress(owner, 'address'))}/claimable`, endpoint: ep });
  const a = at(ep);
  const o = asObject(res.json, a);
  return {
    positions: arr(o, 'positions', a, (v, pa) => asObject(v, pa)),
    markets: arr(o, 'markets', a, (v, ma) => {
      const m = asObject(v, ma);
      return {
        id: bytes32(m, 'id', ma),
        outcomeTokens: strings(m, 'outcomeTokens', ma) as Address[],
        outcomeNames: strings(m, 'outcomeNames', ma),
        payoutPcts: m.payoutPcts === undefined || m.payoutPcts === null ? [] : arr(m, 'payoutPcts', ma, (x, xa) => num({ x }, 'x', xa, 0)),
      };
    }),
    totalClaimable: big(o, 'totalClaimable', a),
  };
}

export interface PortfolioStats {
  currentPortfolioValue: bigint;
  currentPortfolioPercentChange: number;
  predictionsPlaced: number;
  totalPlaced: bigint;
  /** signed 1e-6 USDC */
  allTimeWinLoss: bigint;
  allTimeReturnPct: number;
}

export async function getStats(ctx: ClientContext, owner: Address): Promise<PortfolioStats> {
  const ep = 'GET /portfolio/:address/stats';
  const res = await ctx.t.request({ method: 'GET', path: `/portfolio/${seg(checkAddress(owner, 'address'))}/stats`, endpoint: ep });
  const a = at(ep);
  const o = asObject(res.json, a);
  return {
    currentPortfolioValue: big(o, 'currentPortfolioValue', a),
    currentPortfolioPercentChange: num(o, 'currentPortfolioPercentChange', a),
    predictionsPlaced: int(o, 'predictionsPlaced', a),
    totalPlaced: big(o, 'totalPlaced', a),
    allTimeWinLoss: sbig(o, 'allTimeWinLoss', a),
    allTimeReturnPct: num(o, 'allTimeReturnPct', a),
  };
}
