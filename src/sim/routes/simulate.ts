/**
 * Market data and what-if routes: price history, quotes, market simulate and order simulate.
 *
 * Units: `/quotes` prices are 1e-6 USDC per share (like Order.price); `/simulate` answers
 * `estimatedAvgPrice` as a probability (0–1) next to a USD `amount`; `/orders/simulate` uses
 * integer strings in 1e-6 units as the spec does.
 */
import type { ExchangeState, RequestContext } from '../context.ts';
import { badRequest, notFound } from '../http-errors.ts';
import { internalsOf } from '../internals.ts';
import { slippageBps, takerLevels, walkBook, type WalkLevel } from '../book-walk.ts';
import { TIMEFRAMES } from '../market-stats.ts';
import { ONE } from '../../model/units.ts';
import type { StoredOrder } from '../records.ts';
import { json, type Reply, type Router } from '../router.ts';
import * as v from '../validate.ts';
import type { LowerAddress } from '../wire-ids.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Bytes32 } from '../../model/order.ts';
import { bookTop, marketParam } from './markets.ts';

function levels(state: ExchangeState, marketId: Bytes32): { bids: WalkLevel[]; asks: WalkLevel[] } {
  const idx = state.engine.marketIndex(marketId);
  if (idx === undefined) return { bids: [], asks: [] };
  return state.engine.engine.book(idx);
}

function takerFeeBps(state: ExchangeState, marketId: Bytes32): number {
  const idx = state.engine.marketIndex(marketId);
  return idx === undefined ? 0 : (state.engine.engine.market(idx)?.config.takerFeeBps ?? 0);
}

function prices(ctx: RequestContext): Reply {
  const raw = ctx.params.id ?? '';
  const id = bytes32Of(raw);
  if (id === null) throw badRequest('id', 'expected a 0x market id (64 hex digits)');
  const m = ctx.state.services.market(id);
  if (!m) throw notFound(`market ${raw}`);
  const timeframe = v.queryEnum(ctx.query, 'timeframe', TIMEFRAMES, 'all');
  return json(200, internalsOf(ctx.state).stats.prices(m.id, timeframe, ctx.now, m.createdAt));
}

function quotes(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  const t = bookTop(ctx.state, m.id);
  // in cents, 0 to 100, as the interface specification gives quotes and book prices (computed from
  // the integer 1e-6 prices: each figure is the nearest double to its exact cent value)
  const cents = (p: number | null): number | null => (p === null ? null : p / 10_000);
  const flip = (p: number | null): number | null => (p === null ? null : (ONE - p) / 10_000);
  return json(200, {
    marketId: m.id,
    yes: { bid: cents(t.bestBid), ask: cents(t.bestAsk), last: cents(m.lastPrice) },
    no: { bid: flip(t.bestAsk), ask: flip(t.bestBid), last: flip(m.lastPrice) },
    spread: t.bestBid !== null && t.bestAsk !== null ? (t.bestAsk - t.bestBid) / 10_000 : null,
    timestamp: new Date(ctx.now).toISOString(),
  });
}

/** Resting open orders of `trader` that a taker of `outcome` on `side` would hit (SELF_TRADE). */
export function selfTrades(state: ExchangeState, trader: LowerAddress, marketId: Bytes32, outcome: 0 | 1, buy: boolean, limit: number): StoredOrder[] {
  const out: StoredOrder[] = [];
  for (const o of internalsOf(state).orders.ordersOf(trader)) {
    if (o.status !== 'open' || o.marketId !== marketId) continue;
    // the resting order seen from `outcome`: same outcome keeps side and price; the other flips both
    const same = o.outcomeIndex === outcome;
    const restsAsAsk = same ? o.side === 1 : o.side === 0;
    const p = same ? o.price : ONE - o.price;
    if (buy && restsAsAsk && p <= limit) out.push(o);
    if (!buy && !restsAsAsk && p >= limit) out.push(o);
  }
  return out;
}

function selfTradeWarning(list: StoredOrder[]) {
  return {
    type: 'SELF_TRADE',
    selfTrades: list.map((o) => ({
      orderId: o.id,
      nonce: o.nonce,
      side: o.side,
      price: String(o.price),
      remainingSize: String(Math.max(0, o.size - o.filledSize)),
    })),
  };
}

function marketSimulate(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  const b = v.object(ctx.body, 'body');
  const side = v.oneOf(b.side, 'side', ['yes', 'no'] as const);
  const amount = v.num(b.amount, 'amount', 0, 1e12);
  const amountType = b.amountType === undefined ? 'usd' : v.oneOf(b.amountType, 'amountType', ['usd', 'contracts'] as const);
  const trader = b.trader === undefined || b.trader === null ? undefined : v.address(b.trader, 'trader');
  const outcome = side === 'yes' ? 1 : 0;
  const lv = takerLevels(levels(ctx.state, m.id), outcome, true);
  let w;
  if (amountType === 'contracts') {
    w = walkBook(lv, true, ONE - 1, Math.floor(amount * ONE), 0);
  } else {
    // spend up to `amount` USD: take whole levels while affordable, then the part of the next one
    const budget = Math.floor(amount * ONE);
    let size = 0;
    let spent = 0;
    for (const l of lv) {
      const full = Math.ceil((l.price * l.size) / ONE);
      if (spent + full <= budget) {
        size += l.size;
        spent += full;
        continue;
      }
      size += Math.floor(((budget - spent) * ONE) / l.price);
      break;
    }
    w = walkBook(lv, true, ONE - 1, size, 0);
  }
  const warnings: Record<string, unknown>[] = [];
  const wanted = amountType === 'contracts' ? Math.floor(amount * ONE) : null;
  if (w.filled === 0 && amount > 0) warnings.push({ type: 'INSUFFICIENT_LIQUIDITY' });
  else if (wanted !== null && w.filled < wanted) warnings.push({ type: 'INSUFFICIENT_LIQUIDITY' });
  else if (w.liquidity < 2 * w.filled) warnings.push({ type: 'LOW_LIQUIDITY' });
  const slip = slippageBps(w, true);
  if (slip > 200) warnings.push({ type: 'HIGH_SLIPPAGE' });
  if (trader) {
    const st = selfTrades(ctx.state, trader, m.id, outcome, true, ONE - 1);
    if (st.length) warnings.push(selfTradeWarning(st));
  }
  return json(200, {
    marketId: m.id,
    side,
    amount,
    amountType,
    estimatedContracts: w.filled / ONE,
    estimatedAvgPrice: w.avgPrice / ONE,
    estimatedSlippage: slip / 10_000,
    warnings,
  });
}

function orderSimulate(ctx: RequestContext): Reply {
  const b = v.object(ctx.body, 'body');
  const marketId = v.bytes32(b.marketId, 'marketId');
  const trader = v.address(b.trader, 'trader');
  const maxSize = v.safeUintString(b.maxSize, 'maxSize', { min: 1 });
  const maxPrice = v.safeUintString(b.maxPrice, 'maxPrice', { min: 1, max: ONE - 1 });
  const outcome = v.int(b.outcomeIndex, 'outcomeIndex', 0, 1) as 0 | 1;
  const side = v.oneOf(b.side, 'side', ['bid', 'ask'] as const);
  const m = ctx.state.services.market(marketId);
  if (!m) throw notFound(`market ${b.marketId as string}`);
  const buy = side === 'bid';
  const w = walkBook(takerLevels(levels(ctx.state, m.id), outcome, buy), buy, maxPrice, maxSize, takerFeeBps(ctx.state, m.id));
  const bal = ctx.state.engine.balance(trader);
  const pos = ctx.state.engine.position(trader, m.id);
  const available = bal?.available ?? 0n;
  const tokens = pos ? (outcome === 1 ? pos.yes - pos.yesReserved : pos.no - pos.noReserved) : 0n;
  // buyers pay cost + fee; sellers need tokens, or collateral to mint the shortfall (1 − p per share)
  let required = 0n;
  let sufficient: boolean;
  if (buy) {
    required = BigInt(w.cost + w.fees);
    sufficient = available >= required;
  } else {
    const short = BigInt(w.filled) - (tokens > 0n ? tokens : 0n);
    if (short > 0n && w.filled > 0) required = (short * BigInt(ONE - Math.round(w.avgPrice)) + BigInt(ONE) - 1n) / BigInt(ONE) + BigInt(w.fees);
    sufficient = available >= required;
  }
  const warnings: Record<string, unknown>[] = [];
  if (w.filled < maxSize) warnings.push({ type: w.filled === 0 ? 'INSUFFICIENT_LIQUIDITY' : 'LOW_LIQUIDITY' });
  const slip = slippageBps(w, buy);
  if (slip > 200) warnings.push({ type: 'HIGH_SLIPPAGE' });
  if (!sufficient) warnings.push({ type: 'INSUFFICIENT_COLLATERAL' });
  const st = selfTrades(ctx.state, trader, m.id, outcome, buy, maxPrice);
  if (st.length) warnings.push(selfTradeWarning(st));
  return json(200, {
    levels: w.steps.map((s) => ({
      price: String(s.price),
      sizeAvailable: String(s.available),
      cumulativeSize: String(s.cumulative),
      takerFee: String(s.fee),
      cumulativeTakerFee: String(s.cumulativeFee),
      collateralRequired: String(s.cost),
      cumulativeCollateral: String(s.cumulativeCost),
      makerCount: s.orders,
    })),
    summary: {
      fillSize: String(w.filled),
      fillCost: String(w.cost),
      takerFee: String(w.fees),
      weightedAvgPrice: String(w.avgPrice),
      totalLiquidityAvailable: String(w.liquidity),
      percentFillable: maxSize > 0 ? Math.round((w.filled / maxSize) * 10_000) / 100 : 0,
      slippageBps: slip,
    },
    collateral: {
      balance: available.toString(),
      outcomeTokenBalance: (tokens > 0n ? tokens : 0n).toString(),
      requiredForFill: required.toString(),
      isSufficient: sufficient,
    },
    warnings,
  });
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/markets/:id/prices', auth: false, handler: prices });
  router.add({ method: 'GET', path: '/markets/:id/quotes', auth: false, handler: quotes });
  router.add({ method: 'POST', path: '/markets/:id/simulate', auth: false, optionalAuth: true, readOnly: true, handler: marketSimulate });
  router.add({ method: 'POST', path: '/orders/simulate', auth: true, readOnly: true, handler: orderSimulate });
}
