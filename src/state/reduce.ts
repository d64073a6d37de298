/**
 * The store's reducer: `reduce(state, event, limits)` → the next immutable state (pure; the
 * injected clock's time comes in on the events). Unknown markets are created on first sight.
 *
 * Entry point: `reduce`. Limits bound every history kept so memory stays flat over days.
 */
import type { Bytes32 } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import { ONE } from '../model/units.ts';
import { spentBy } from '../exchange/v2-resting.ts';
import type { ViewTrade } from '../strategy/types.ts';
import { applyBookEvent, mid2 } from './book-state.ts';
import type { OrderManagerEvent, StateEvent } from './events.ts';
import {
  emptyMarket,
  marketWith,
  marketWithBook,
  marketWithDenials,
  marketWithEdge,
  marketWithOrders,
  marketWithTrade,
  stateWith,
  stateWithMarkets,
  type MarketState,
  type OwnOrder,
  type StoreState,
} from './market-state.ts';
import { PersistentMap } from './persistent-map.ts';
import { releaseMarket } from './release-market.ts';
import { positionAfterFill, positionAfterRead } from './held-read.ts';
import { yesTermsTrade } from './position.ts';
import { DEFAULT_EDGE, type EdgeSettings } from './edge-settings.ts';
import { edgeWithRegime, onFillEdge, onMidEdge, onOracleEdge, onResolvedEdge, onTradeEdge, settleMarkoutsPooled } from './edge-state.ts';
import { regimeOf } from './regime.ts';

export interface ReduceLimits {
  /** trades kept per market */
  readonly trades: number;
  /** mid samples kept per market */
  readonly midSamples: number;
  /** minimum spacing of mid samples, ms */
  readonly midSampleMs: number;
  /** fill ids remembered per market for de-duplication, at most (a backstop: src/state/fill-ids.ts keeps those of the last 15 min) */
  readonly fillIds: number;
  /** venue health window, ms */
  readonly venueWindowMs: number;
  /** markout horizons, toxicity and regime thresholds (default DEFAULT_EDGE) */
  readonly edge?: EdgeSettings;
}

export const DEFAULT_LIMITS: ReduceLimits = { trades: 50, midSamples: 600, midSampleMs: 1000, fillIds: 2048, venueWindowMs: 60_000 };

/**
 * The state after `e` reduced market `marketId`'s state (created on first sight); the markets map
 * stays the same when nothing changed. Markouts due by the event's time settle first, at the mid in
 * force until now, into the market and the account's pool. No closure per event: this runs for every
 * event.
 */
function stateWithMarket(state: StoreState, marketId: Bytes32, e: MarketEvent, lim: ReduceLimits, version: number, ts: number): StoreState {
  const k = marketId;
  const existing = state.markets.get(k);
  let before = existing ?? emptyMarket(marketId, lim.edge ?? DEFAULT_EDGE);
  let pool = state.toxicityPool;
  if (before.edge.nextDue <= e.ts) {
    const settled = settleMarkoutsPooled(before.edge, e.ts, before.lastMid2, pool);
    if (settled.edge !== before.edge) {
      before = marketWithEdge(before, settled.edge);
      pool = settled.pool;
    }
  }
  const after = reduceMarket(before, e, lim);
  if (after === existing) return stateWithMarkets(state, state.markets, version, ts);
  const current = state.markets instanceof PersistentMap ? state.markets : PersistentMap.from(state.markets);
  return stateWithMarkets(state, current.set(k, after), version, ts, pool);
}

/** Copies a market's own orders (or its denials' counts) into `this` (forEach: `new Map(m.orders)` walks an iterator, one [key, value] array per order). */
function copyInto<V>(this: Map<string, V>, v: V, k: string): void {
  this.set(k, v);
}

/**
 * A market's own orders under a run of order-manager events: copied on the first change, so a run
 * of events (a call's creates and cancels, its answers) copies the map once, where one reduction
 * per event copied it once per event (docs/performance.md#where-the-tail-comes-from). `touched` is
 * set by every change after which the event alone made a new market, as the single reduction does
 * (an OrderSubmitted for an order already there makes a fresh copy, changing nothing).
 */
export class OrdersDraft {
  private copy: Map<string, OwnOrder> | null = null;
  touched = false;
  constructor(private readonly base: ReadonlyMap<string, OwnOrder>) {}

  get(k: string): OwnOrder | undefined {
    return (this.copy ?? this.base).get(k);
  }

  /** Set one order, or (null) remove it. */
  put(k: string, o: OwnOrder | null): void {
    let c = this.copy;
    if (c === null) {
      c = this.copy = new Map<string, OwnOrder>();
      this.base.forEach(copyInto, c);
    }
    if (o === null) c.delete(k);
    else c.set(k, o);
    this.touched = true;
  }

  result(): ReadonlyMap<string, OwnOrder> {
    return this.copy ?? this.base;
  }
}

/**
 * One draft kept for the life of the process. A draft lives only inside one reduction, so at a full GC none was
 * alive: V8 dropped the class's instance map, and with it the optimised code of every function that had handled a
 * draft (its constructor, `put`, `get`, the reducers that inlined them), rebuilt after each collection. Kept, the
 * map stays and the code with it (docs/performance/reoptimisation.md). Same fields, same order: it has the drafts' map.
 */
export const ORDERS_DRAFT_SHAPE = new OrdersDraft(new Map<string, OwnOrder>());

/**
 * `list` plus `item`, keeping at most the newest `max` (and always the new item). Built in one
 * allocation of the final length: a slice followed by a push copied the (full) history twice.
 */
function pushBounded<T>(list: readonly T[], item: T, max: number): T[] {
  const keep = list.length >= max ? Math.max(0, max - 1) : list.length;
  const from = list.length - keep;
  const out = new Array<T>(keep + 1);
  for (let i = 0; i < keep; i++) out[i] = list[from + i]!;
  out[keep] = item;
  return out;
}

function yesTrade(ev: Extract<BookEvent, { type: 'trade' }>): ViewTrade {
  if (ev.outcomeIndex === 1) return { price: ev.price, size: ev.size, takerSide: ev.takerSide, ts: ev.venueTs || ev.localTs };
  // A NO buyer lifting a NO ask is, in YES terms, a seller hitting a YES bid at 1e6 − p.
  return { price: ONE - ev.price, size: ev.size, takerSide: ev.takerSide === 'buy' ? 'sell' : 'buy', ts: ev.venueTs || ev.localTs };
}

function reduceBook(m: MarketState, ev: BookEvent, lim: ReduceLimits): MarketState {
  // only a live source vouches for the book: a status saying it reconnects or went stale must not
  // reset the silence timer (a stream failing over and over would otherwise never count as silent)
  if (ev.type === 'status')
    return marketWith(m, ev.state === 'live' || ev.state === 'polling' ? { streamLastEventAt: ev.localTs, streamState: ev.state } : { streamState: ev.state });
  // the book feed hands a market status on as MarketMetadataUpdated; one dispatched raw still counts
  // as a live stream event and sets the status, never touching the book
  if (ev.type === 'market-status') return marketWith(m, { streamLastEventAt: ev.localTs, status: ev.status });
  if (ev.type === 'trade') {
    // Trades are taken from the view the YES-terms book is built from, so two streams do not double them.
    const primary = m.books.yes ? 1 : 0;
    if (ev.outcomeIndex !== primary) return marketWithTrade(m, ev.localTs, m.trades, m.edge);
    const t = yesTrade(ev);
    return marketWithTrade(m, ev.localTs, pushBounded(m.trades, t, lim.trades), onTradeEdge(m.edge, ev.localTs, t.size, t.takerSide === 'buy', t.price));
  }
  const books = applyBookEvent(m.books, ev);
  const localTs = ev.localTs;
  const m2 = mid2(books);
  let midHistory = m.midHistory;
  // a new mid: the mid-jump and trend triggers (against the history before this sample)
  const edge = m2 !== null && m2 !== m.lastMid2 ? onMidEdge(m.edge, localTs, m2 / 2, midHistory) : m.edge;
  if (m2 !== null) {
    if (midHistory.length === 0 || localTs - midHistory.lastTs() >= lim.midSampleMs) midHistory = midHistory.push({ ts: localTs, mid: m2 / 2 }, lim.midSamples);
  }
  return marketWithBook(m, books, localTs, m.streamState ?? 'live', m2 ?? m.lastMid2, midHistory, edge);
}

function reduceFill(m: MarketState, e: Extract<StateEvent, { type: 'OrderFilled' }>, lim: ReduceLimits): MarketState {
  if (e.fillId !== undefined && m.fillIds.has(e.fillId)) return m;
  const { position, held } = positionAfterFill(m.position, m.held, e);
  const fillIds = e.fillId === undefined ? m.fillIds : m.fillIds.push(e.fillId, lim.fillIds, e.ts);
  // markouts and attribution against the mid the bot knew just before the fill
  const y = yesTermsTrade(e);
  const edge = onFillEdge(m.edge, e.ts, y.qty, y.price, e.fee, m.lastMid2);
  let next: MarketState = marketWith(m, { position, held, fillIds, edge });
  if (e.nonce) {
    const k = e.nonce;
    const o = m.orders.get(k);
    if (o) {
      const remaining = Math.max(0, o.remaining - e.size);
      const spent = (o.spent ?? 0) + spentBy(o.order, e);
      const d = new OrdersDraft(next.orders);
      d.put(k, remaining === 0 ? null : { slot: o.slot, order: o.order, remaining, state: o.state, placedAt: o.placedAt, spent });
      next = marketWithOrders(next, d.result());
    }
  }
  return next;
}

function reduceOrder(m: MarketState, e: OrderManagerEvent): MarketState {
  switch (e.type) {
    case 'MarketBlocked':
      return marketWith(m, { blocked: e.reason });
    case 'MarketUnblocked':
      return marketWith(m, { blocked: null });
    default: {
      if (!isOwnOrderEvent(e)) return m;
      const d = new OrdersDraft(m.orders);
      applyOwnOrder(d, e);
      return d.touched ? marketWithOrders(m, d.result()) : m;
    }
  }
}

/** The order-manager events that change only a market's own orders (not its regime's inputs). */
type OwnOrderEvent = Extract<
  StateEvent,
  {
    type:
      | 'OrderSubmitted'
      | 'OrderAccepted'
      | 'OrderRejected'
      | 'CancelSubmitted'
      | 'OrderParked'
      | 'OrderCancelled'
      | 'OrderGone'
      | 'CancelFailed'
      | 'OrderAdopted'
      | 'OrderRemainingChanged';
  }
>;

function isOwnOrderEvent(e: StateEvent): e is OwnOrderEvent {
  switch (e.type) {
    case 'OrderSubmitted':
    case 'OrderAccepted':
    case 'OrderRejected':
    case 'CancelSubmitted':
    case 'OrderParked':
    case 'OrderCancelled':
    case 'OrderGone':
    case 'CancelFailed':
    case 'OrderAdopted':
    case 'OrderRemainingChanged':
      return true;
    default:
      return false;
  }
}

/** One event's change to the market's own orders. */
function applyOwnOrder(d: OrdersDraft, e: OwnOrderEvent): void {
  switch (e.type) {
    case 'OrderSubmitted': {
      const k = e.nonce;
      const had = d.get(k);
      d.put(k, had ?? { slot: e.slot, order: e.order, remaining: e.order.size, state: 'in-flight', placedAt: e.ts, spent: 0 }); // (had: a fresh copy, as before)
      return;
    }
    case 'OrderAccepted':
      return setState(d, e.nonce, 'working');
    case 'OrderRejected':
      if (!e.mayHaveLanded) drop(d, e.nonce);
      return;
    case 'CancelSubmitted':
    case 'OrderParked':
      return setState(d, e.nonce, 'cancelling');
    case 'OrderCancelled':
    case 'OrderGone':
      return drop(d, e.nonce);
    case 'CancelFailed':
      // a final refusal leaves the order counted: the order manager parks it (its fills may still be
      // on the way) and its OrderGone, after the fills or the settle time, is what drops it
      return setState(d, e.nonce, e.retryable ? 'working' : 'cancelling');
    case 'OrderAdopted':
      return d.put(e.nonce, { slot: e.slot, order: e.order, remaining: e.remaining, state: 'working', placedAt: e.ts, spent: 0 });
    case 'OrderRemainingChanged': {
      const k = e.nonce;
      const cur = d.get(k);
      if (!cur) return;
      d.put(
        k,
        e.remaining === 0
          ? null
          : { slot: cur.slot, order: cur.order, remaining: e.remaining, state: cur.state, placedAt: cur.placedAt, spent: cur.spent ?? 0 },
      );
      return;
    }
  }
}

function setState(d: OrdersDraft, nonce: Bytes32, state: OwnOrder['state']): void {
  const cur = d.get(nonce);
  if (!cur || cur.state === state) return;
  d.put(nonce, { slot: cur.slot, order: cur.order, remaining: cur.remaining, state, placedAt: cur.placedAt, spent: cur.spent ?? 0 });
}

function drop(d: OrdersDraft, nonce: Bytes32): void {
  if (d.get(nonce) !== undefined) d.put(nonce, null);
}

/** Events that change one market's state. */
type MarketEvent = Exclude<StateEvent, { type: 'MarketReleased' | 'BalanceUpdated' | 'OrdersReconciled' | 'VenueBackedOff' | 'VenueCallCompleted' }>;

/** One market event (its markouts already settled, see stateWithMarket); after it, a change of regime is recorded. */
function reduceMarket(m: MarketState, e: MarketEvent, lim: ReduceLimits): MarketState {
  const after = reduceMarketEvent(m, e, lim);
  const r = regimeOf(after, e.ts).regime;
  if (r === after.edge.regime) return after;
  return marketWithEdge(after, edgeWithRegime(after.edge, r, e.ts));
}

function reduceMarketEvent(m: MarketState, e: MarketEvent, lim: ReduceLimits): MarketState {
  switch (e.type) {
    case 'BookEventReceived':
      return reduceBook(m, e.event, lim);
    case 'MarketMetadataUpdated':
      // one literal, every key written (a resolution's edge, else the market's own): a patch built with a
      // spread had a map of its own on every run, and marketWith's key tests deoptimised on it
      return marketWith(m, {
        edge: e.payoutYes !== undefined && e.payoutYes !== null && m.payoutYes === null ? onResolvedEdge(m.edge, m.lastMid2, e.payoutYes) : m.edge,
        slug: e.slug ?? m.slug,
        tick: e.tick ?? m.tick,
        minSize: e.minSize ?? m.minSize,
        deadline: e.deadline === undefined ? m.deadline : e.deadline,
        status: e.status ?? m.status,
        payoutYes: e.payoutYes === undefined ? m.payoutYes : e.payoutYes,
      });
    case 'OracleUpdated':
      return marketWith(m, {
        oracle: { probability: e.probability, confidence: e.confidence, updatedAt: e.updatedAt },
        edge: onOracleEdge(m.edge, e.ts, e.probability),
      });
    case 'PositionSynced': {
      // a read of the holdings the market already has (every followed market, on every balance
      // poll) leaves the market as it is: the state's market map stays shared, so the account
      // totals and the health model see nothing to recompute
      const after = positionAfterRead(m.position, m.held, e.yes, e.no);
      return after === null ? m : marketWith(m, { position: after.position, held: after.held });
    }
    case 'OrderFilled':
      return reduceFill(m, e, lim);
    case 'QuoteDenied': {
      // copied by forEach, not `new Map(m.denials)`: that walks an iterator, a [key, value] array per reason (~700 denials a backtest run)
      const denials = new Map<string, number>();
      m.denials.forEach(copyInto, denials);
      denials.set(e.reason, (denials.get(e.reason) ?? 0) + 1);
      return marketWithDenials(m, denials);
    }
    case 'OrderClosed':
      // the order's end reaches the store through the order manager (OrderCancelled / OrderGone)
      return m;
    default:
      return reduceOrder(m, e);
  }
}

/** The state after one event: account-wide fields here, per-market ones through stateWithMarket. */
function reduceInner(s: StoreState, e: StateEvent, lim: ReduceLimits, version: number, ts: number): StoreState {
  switch (e.type) {
    case 'BookEventReceived': {
      const ev = e.event;
      const marketId = ev.type === 'snapshot' ? ev.book.marketId : ev.marketId;
      return stateWithMarket(s, marketId, e, lim, version, ts);
    }
    case 'MarketReleased':
      return stateWithMarkets(s, releaseMarket(s.markets, e, lim.edge ?? DEFAULT_EDGE), version, ts);
    case 'BalanceUpdated':
      return stateWith(s, { collateral: e.collateral, version, ts });
    case 'OrdersReconciled':
      return stateWith(s, { lastReconcileAt: e.ts, version, ts });
    case 'VenueBackedOff':
      return stateWith(s, { backoffUntil: Math.max(s.backoffUntil, e.until), version, ts });
    case 'VenueCallCompleted':
      // the window is shared by the states, not copied (src/state/venue-call-window.ts)
      return stateWith(s, { venueCalls: s.venueCalls.with(e.ts, e.ok, lim.venueWindowMs), version, ts });
    default:
      return stateWithMarket(s, e.marketId, e, lim, version, ts);
  }
}

export function reduce(state: StoreState, event: StateEvent, lim: ReduceLimits = DEFAULT_LIMITS): StoreState {
  // one new state object per event, version and time included (was a copy, then a copy of the copy)
  return reduceInner(state, event, lim, state.version + 1, Math.max(state.ts, event.ts));
}

/**
 * The state after `events`, in order: the same state as `reduce` event after event (version one
 * higher per event), made with fewer copies. A run of events that change only one market's own
 * orders (a call's creates and cancels, its answers: the order manager delivers a call's events
 * together) is reduced in one pass: the markouts due and the regime are still settled at each
 * event's time, in order, but the orders map, the market and the state are copied once for the run
 * instead of once per event.
 */
export function reduceAll(state: StoreState, events: readonly StateEvent[], lim: ReduceLimits = DEFAULT_LIMITS): StoreState {
  let s = state;
  const n = events.length;
  let i = 0;
  while (i < n) {
    const e = events[i]!;
    let j = i + 1;
    if (isOwnOrderEvent(e)) while (j < n && isOwnOrderEvent(events[j]!) && (events[j] as OwnOrderEvent).marketId === e.marketId) j++;
    s = j - i > 1 ? reduceOwnOrders(s, events as readonly OwnOrderEvent[], i, j, lim) : reduce(s, e, lim);
    i = j;
  }
  return s;
}

/**
 * Events `from` to `to` (one market's, own-order events only) reduced together. What `reduce` does
 * per event, in the same order: the markouts due by the event's time settle (at the market's last
 * mid, which these events do not move), the event changes the orders, the regime is read at the
 * event's time (its inputs are not the orders, so reading it with the run's orders so far is
 * reading it as the event alone would).
 */
function reduceOwnOrders(state: StoreState, es: readonly OwnOrderEvent[], from: number, to: number, lim: ReduceLimits): StoreState {
  const k = es[from]!.marketId;
  const existing = state.markets.get(k);
  let m = existing ?? emptyMarket(k, lim.edge ?? DEFAULT_EDGE);
  let changed = existing === undefined;
  let pool = state.toxicityPool;
  let ts = state.ts;
  const d = new OrdersDraft(m.orders);
  // the market and time the regime was last read at: a call's events mostly share one time, and
  // the regime of the same market at the same time is the same reading (regimeOf is pure)
  let readM: MarketState | null = null;
  let readAt = Number.NaN;
  for (let i = from; i < to; i++) {
    const e = es[i]!;
    if (e.ts > ts) ts = e.ts;
    if (m.edge.nextDue <= e.ts) {
      const settled = settleMarkoutsPooled(m.edge, e.ts, m.lastMid2, pool);
      if (settled.edge !== m.edge) {
        m = marketWithEdge(m, settled.edge);
        pool = settled.pool;
        changed = true;
      }
    }
    applyOwnOrder(d, e);
    if (m === readM && e.ts === readAt) continue;
    const r = regimeOf(m, e.ts).regime;
    if (r !== m.edge.regime) {
      m = marketWithEdge(m, edgeWithRegime(m.edge, r, e.ts));
      changed = true;
    }
    readM = m;
    readAt = e.ts;
  }
  const version = state.version + (to - from);
  if (d.touched) m = marketWithOrders(m, d.result());
  else if (!changed) return stateWithMarkets(state, state.markets, version, ts);
  const current = state.markets instanceof PersistentMap ? state.markets : PersistentMap.from(state.markets);
  return stateWithMarkets(state, current.set(k, m), version, ts, pool);
}
