/**
 * The selector that builds a strategy's MarketView (src/strategy/types.ts) from a store snapshot,
 * plus the PnL and reserved-collateral figures the runtime and metrics report.
 *
 * Entry points:
 *   selectMarketView(state, marketId, now) → MarketView | null (null for a market never seen)
 *   marketPnl(market) → { realised, unrealised } in 1e-6 USDC (bigint, exact)
 *   reservedCollateral(market) → 1e-6 USDC locked by our open orders (bigint)
 * Derived pieces (view book, quotes, account totals) are memoised on the immutable objects they
 * come from, so building views for every market each tick does not recompute unchanged markets.
 */
import { exposureOf, worstNotional, worstPosition } from '../risk/exposure.ts';
import type { Bytes32 } from '../model/order.ts';
import { notionalCeil, notionalFloor } from '../model/units.ts';
import { toYesTerms } from '../strategy/to-orders.ts';
import type { MarketView, ViewAccount, ViewBook, ViewVenueHealth, WorkingQuote } from '../strategy/types.ts';
import { viewBook } from '../strategy/view-book.ts';
import { parseSlot } from '../orders/slots.ts';
import { yesTermsLevels, type MarketBooks } from './book-state.ts';
import type { MarketState, OwnOrder, StoreState } from './market-state.ts';
import { averageEntry, toMicro, unrealisedScaled } from './position.ts';

const bookMemo = new WeakMap<MarketBooks, ViewBook>();
const quotesMemo = new WeakMap<ReadonlyMap<string, OwnOrder>, WorkingQuote[]>();
const accountMemo = new WeakMap<StoreState, ViewAccount>();

function bookOf(m: MarketState): ViewBook | null {
  const cached = bookMemo.get(m.books);
  if (cached) return cached;
  const y = yesTermsLevels(m.books);
  if (!y) return null;
  const v = viewBook(y.bids, y.asks, y.venueTs, m.bookUpdatedAt);
  bookMemo.set(m.books, v);
  return v;
}

const STATE: Record<OwnOrder['state'], WorkingQuote['state']> = { working: 'working', 'in-flight': 'in-flight', cancelling: 'cancelling' };

function quotesOf(m: MarketState): WorkingQuote[] {
  const cached = quotesMemo.get(m.orders);
  if (cached) return cached;
  const out: WorkingQuote[] = [];
  for (const o of m.orders.values()) {
    const y = toYesTerms(o.order.outcomeIndex, o.order.side, o.order.price);
    const slot = parseSlot(o.slot);
    out.push({
      side: y.side,
      price: y.price,
      size: o.remaining,
      state: STATE[o.state],
      nonce: o.order.nonce,
      ...(slot ? { level: slot.level } : {}),
      outcomeIndex: o.order.outcomeIndex,
      venueSide: o.order.side === 0 ? 'buy' : 'sell',
      placedAt: o.placedAt,
    });
  }
  quotesMemo.set(m.orders, out);
  return out;
}

/** Twice the mark: the payout after resolution, else the last mid; null when unknown. */
function mark2Of(m: MarketState): number | null {
  if (m.payoutYes !== null) return m.payoutYes * 2;
  return m.lastMid2;
}

export function marketPnl(m: MarketState): { realised: bigint; unrealised: bigint } {
  const mark2 = mark2Of(m);
  return { realised: toMicro(m.position.realised), unrealised: mark2 === null ? 0n : toMicro(unrealisedScaled(m.position, mark2)) };
}

/** Collateral our open orders lock: price × size (+ fee cap) for buys, (1 − price) × size for sells without inventory. */
export function reservedCollateral(m: MarketState): bigint {
  let total = 0n;
  for (const o of m.orders.values()) {
    const { price, side, inventoryMode } = o.order;
    if (side === 0) total += BigInt(notionalCeil(price, o.remaining) + (o.order.maxFee ?? 0));
    else if (inventoryMode === 2) total += BigInt(o.remaining - notionalFloor(price, o.remaining));
  }
  return total;
}

function accountOf(s: StoreState): ViewAccount {
  const cached = accountMemo.get(s);
  if (cached) return cached;
  let pnl = 0n;
  let position = 0;
  let notional = 0;
  for (const m of s.markets.values()) {
    const p = marketPnl(m);
    pnl += p.realised + p.unrealised;
    const e = exposureOf(m.position.net, quotesOf(m));
    const mark2 = mark2Of(m);
    position += worstPosition(e);
    notional += worstNotional(e, mark2 === null ? 500_000 : mark2 / 2);
  }
  const v: ViewAccount = { collateral: s.collateral ?? 0n, pnl: Number(pnl), worstCasePosition: position, worstCaseNotional: notional };
  accountMemo.set(s, v);
  return v;
}

function venueOf(s: StoreState, now: number, windowMs: number): ViewVenueHealth {
  let requests = 0;
  let errors = 0;
  for (const c of s.venueCalls) {
    if (c.ts <= now - windowMs) continue;
    requests++;
    if (!c.ok) errors++;
  }
  return { requests, errors, windowMs };
}

export function selectMarketView(s: StoreState, marketId: Bytes32, now: number, venueWindowMs = 60_000): MarketView | null {
  const m = s.markets.get(marketId.toLowerCase());
  if (!m) return null;
  const pnl = marketPnl(m);
  const pos = m.position;
  return {
    marketId: m.marketId,
    ...(m.slug !== undefined ? { slug: m.slug } : {}),
    tick: m.tick,
    minSize: m.minSize,
    deadline: m.deadline,
    status: m.status,
    now,
    book: bookOf(m),
    streamLastEventAt: m.streamLastEventAt,
    trades: m.trades,
    midHistory: m.midHistory,
    position: { yes: pos.yes, no: pos.no, net: pos.net, avgEntry: averageEntry(pos) },
    quotes: quotesOf(m),
    oracle: m.oracle ? { ...m.oracle, ageMs: Math.max(0, now - m.oracle.updatedAt) } : null,
    pnl: { realised: Number(pnl.realised), unrealised: Number(pnl.unrealised) },
    account: accountOf(s),
    venue: venueOf(s, now, venueWindowMs),
    flags: { migrationActive: m.blocked === 'migration' },
  };
}
