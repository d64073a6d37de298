/** Portfolio (auth): summary (cursor), positions (cursor), claimable, stats. Amounts as bigint 1e-6 units. */
import type { Address, Bytes32, OutcomeIndex } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { BadResponseError } from '../../model/errors.ts';
import {
  address,
  addressItem,
  arr,
  asObject,
  big,
  bytes32,
  bytes32Item,
  pageCursor,
  int,
  nOneOf,
  nstr,
  num,
  oneOf,
  sbig,
  str,
  strings,
  type At,
} from './fields.ts';
import { checkAddress, checkBytes32, checkOptChoice, checkOptInt } from './inputs.ts';
import { iterateByCursor } from './paginate.ts';
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

export async function getPortfolio(
  ctx: ClientContext,
  owner: Address,
  p: PortfolioParams = {},
): Promise<{ portfolio: Holding[]; marketIds: Bytes32[]; cursor: string | null }> {
  const ep = 'GET /portfolio/:address';
  const { o, a, res } = await requestObject(ctx, {
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
  return {
    portfolio: arr(o, 'portfolio', a, parseHolding),
    // normalised where they enter (src/model/ids.ts); one that is no 32-byte id is a bad answer, as anywhere else
    marketIds: o.marketIds === undefined ? [] : arr(o, 'marketIds', a, bytes32Item),
    cursor: pageCursor(o, a, res.headers),
  };
}

export function iteratePortfolio(ctx: ClientContext, owner: Address, p: Omit<PortfolioParams, 'cursor'> = {}): AsyncGenerator<Holding> {
  return iterateByCursor((q) => getPortfolio(ctx, owner, q), p, 'portfolio');
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
  const { o, a, res } = await requestObject(ctx, {
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
  return { positions: arr(o, 'positions', a, parsePosition), cursor: pageCursor(o, a, res.headers) };
}

export function iteratePositions(ctx: ClientContext, owner: Address, p: Omit<PositionsParams, 'cursor'> = {}): AsyncGenerator<Position> {
  return iterateByCursor((q) => getPositions(ctx, owner, q), p, 'positions');
}

/** One claimable holding (openapi ClaimablePosition). Amounts in 1e-6 units. */
export interface ClaimablePosition {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  outcomeName: string | null;
  tokenAddress: Address;
  /** 1e-6 shares */
  balance: bigint;
  /** 1e-6 USDC */
  claimableAmount: bigint;
}

export interface ClaimableMarket {
  id: Bytes32;
  outcomeTokens: Address[];
  outcomeNames: string[];
  /**
   * What one share of each outcome pays, in 1e-6 USDC (1 000 000 = the full dollar), by outcome
   * index. The spec sends decimal-integer strings in these units (ClaimableMarket.payoutPcts, example
   * "1000000"); a JSON number is read as a percentage (as Market.payoutPcts), 100 = 1 000 000.
   */
  payouts: bigint[];
}

export interface Claimable {
  positions: ClaimablePosition[];
  markets: ClaimableMarket[];
  /** 1e-6 USDC */
  totalClaimable: bigint;
}

function parsePayout(v: unknown, a: At): bigint {
  if (typeof v === 'number') {
    const pct = num({ x: v }, 'x', a, 0, 100);
    return BigInt(Math.round(pct * 10_000));
  }
  const units = big({ x: v }, 'x', a);
  if (units > 1_000_000n) throw new BadResponseError(a.ep, a.path || 'payoutPcts', 'a payout of at most 1000000 (1e-6 USDC per share)', v);
  return units;
}

export async function getClaimable(ctx: ClientContext, owner: Address): Promise<Claimable> {
  const ep = 'GET /portfolio/:address/claimable';
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/portfolio/${seg(checkAddress(owner, 'address'))}/claimable`, endpoint: ep });
  return {
    positions: arr(o, 'positions', a, (v, pa) => {
      const p = asObject(v, pa);
      return {
        marketId: bytes32(p, 'marketId', pa),
        outcomeIndex: oneOf(p, 'outcomeIndex', pa, [0, 1] as const),
        outcomeName: nstr(p, 'outcomeName', pa),
        tokenAddress: address(p, 'tokenAddress', pa),
        balance: big(p, 'balance', pa),
        claimableAmount: big(p, 'claimableAmount', pa),
      };
    }),
    markets: arr(o, 'markets', a, (v, ma) => {
      const m = asObject(v, ma);
      return {
        id: bytes32(m, 'id', ma),
        // addresses, normalised where they enter as anywhere else: a bad one is a bad answer (the read is counted and retried)
        outcomeTokens: arr(m, 'outcomeTokens', ma, addressItem),
        outcomeNames: strings(m, 'outcomeNames', ma),
        payouts: m.payoutPcts === undefined || m.payoutPcts === null ? [] : arr(m, 'payoutPcts', ma, parsePayout),
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
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/portfolio/${seg(checkAddress(owner, 'address'))}/stats`, endpoint: ep });
  return {
    currentPortfolioValue: big(o, 'currentPortfolioValue', a),
    currentPortfolioPercentChange: num(o, 'currentPortfolioPercentChange', a),
    predictionsPlaced: int(o, 'predictionsPlaced', a),
    totalPlaced: big(o, 'totalPlaced', a),
    allTimeWinLoss: sbig(o, 'allTimeWinLoss', a),
    allTimeReturnPct: num(o, 'allTimeReturnPct', a),
  };
}
