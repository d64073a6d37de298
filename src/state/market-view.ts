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
import type { MarketView, ViewAccount, ViewBook, ViewPosition, ViewVenueHealth, WorkingQuote } from '../strategy/types.ts';
import { viewBook } from '../strategy/view-book.ts';
import { parseSlot } from '../orders/slots.ts';
import { yesTermsLevels, type MarketBooks } from './book-state.ts';
import type { MarketState, OwnOrder, StoreState } from './market-state.ts';
import { PersistentMap } from './persistent-map.ts';
import { averageEntry, toMicro, unrealisedScaled, type PositionState } from './position.ts';

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

/**
 * A position's PnL in 1e-6 USDC, remembered per position object: bigint maths on every tick of
 * every market was a visible share of the tick. The realised figure depends on the position only;
 * the unrealised one also on the mark, so it is kept for the last mark seen.
 */
interface PnlMemo {
  readonly realised: bigint;
  mark2: number | null;
  unrealised: bigint;
}
const pnlMemo = new WeakMap<PositionState, PnlMemo>();

function pnlOf(pos: PositionState, mark2: number | null): PnlMemo {
  let memo = pnlMemo.get(pos);
  if (memo === undefined) {
    memo = { realised: toMicro(pos.realised), mark2, unrealised: unrealisedOf(pos, mark2) };
    pnlMemo.set(pos, memo);
  } else if (memo.mark2 !== mark2) {
    memo.mark2 = mark2;
    memo.unrealised = unrealisedOf(pos, mark2);
  }
  return memo;
}

const unrealisedOf = (pos: PositionState, mark2: number | null): bigint => (mark2 === null ? 0n : toMicro(unrealisedScaled(pos, mark2)));

export function marketPnl(m: MarketState): { realised: bigint; unrealised: bigint } {
  const p = pnlOf(m.position, mark2Of(m));
  return { realised: p.realised, unrealised: p.unrealised };
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

/** One market's share of the account totals, remembered per (immutable) market state. */
interface Contribution {
  readonly pnl: bigint;
  readonly position: number;
  readonly notional: number;
}
const contributionMemo = new WeakMap<MarketState, Contribution>();

function contributionOf(m: MarketState): Contribution {
  let c = contributionMemo.get(m);
  if (c === undefined) {
    const mark2 = mark2Of(m);
    const p = pnlOf(m.position, mark2);
    const e = exposureOf(m.position.net, quotesOf(m));
    c = { pnl: p.realised + p.unrealised, position: worstPosition(e), notional: worstNotional(e, mark2 === null ? 500_000 : mark2 / 2) };
    contributionMemo.set(m, c);
  }
  return c;
}

function accountOf(s: StoreState): ViewAccount {
  const cached = accountMemo.get(s);
  if (cached) return cached;
  let pnl = 0n;
  let position = 0;
  let notional = 0;
  // Only the markets that changed since the last tick are recomputed (see contributionOf).
  const markets = s.markets instanceof PersistentMap ? s.markets.valueList() : [...s.markets.values()];
  for (let i = 0; i < markets.length; i++) {
    const c = contributionOf(markets[i]!);
    pnl += c.pnl;
    position += c.position;
    notional += c.notional;
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

/** The strategy's view of a position, shared by every tick until the position changes. */
const positionMemo = new WeakMap<PositionState, ViewPosition>();

function positionOf(pos: PositionState): ViewPosition {
  let v = positionMemo.get(pos);
  if (v === undefined) {
    v = { yes: pos.yes, no: pos.no, net: pos.net, avgEntry: averageEntry(pos) };
    positionMemo.set(pos, v);
  }
  return v;
}

export function selectMarketView(s: StoreState, marketId: Bytes32, now: number, venueWindowMs = 60_000): MarketView | null {
  const m = s.markets.get(marketId.toLowerCase());
  if (!m) return null;
  const pnl = pnlOf(m.position, mark2Of(m));
  const o = m.oracle;
  const oracle = o ? { probability: o.probability, confidence: o.confidence, updatedAt: o.updatedAt, ageMs: Math.max(0, now - o.updatedAt) } : null;
  // Two literals rather than a conditional spread: `slug` is present only when known, and a spread
  // that may add a key sends the object down V8's slow path on every tick.
  if (m.slug !== undefined) {
    return {
      marketId: m.marketId,
      slug: m.slug,
      tick: m.tick,
      minSize: m.minSize,
      deadline: m.deadline,
      status: m.status,
      now,
      book: bookOf(m),
      streamLastEventAt: m.streamLastEventAt,
      trades: m.trades,
      midHistory: m.midHistory,
      position: positionOf(m.position),
      quotes: quotesOf(m),
      oracle,
      pnl: { realised: Number(pnl.realised), unrealised: Number(pnl.unrealised) },
      account: accountOf(s),
      venue: venueOf(s, now, venueWindowMs),
      flags: { migrationActive: m.blocked === 'migration' },
    };
  }
  return {
    marketId: m.marketId,
    tick: m.tick,
    minSize: m.minSize,
    deadline: m.deadline,
    status: m.status,
    now,
    book: bookOf(m),
    streamLastEventAt: m.streamLastEventAt,
    trades: m.trades,
    midHistory: m.midHistory,
    position: positionOf(m.position),
    quotes: quotesOf(m),
    oracle,
    pnl: { realised: Number(pnl.realised), unrealised: Number(pnl.unrealised) },
    account: accountOf(s),
    venue: venueOf(s, now, venueWindowMs),
    flags: { migrationActive: m.blocked === 'migration' },
  };
}
