/**
 * The selector that builds a strategy's MarketView (src/strategy/types.ts) from a store snapshot,
 * plus the PnL and reserved-collateral figures the runtime and metrics report.
 *
 * Entry points:
 *   selectMarketView(state, marketId, now, windowMs?, books?) → MarketView | null (null for a market never seen);
 *     with the account's books (src/account/account.ts) the view's position (net, average entry: what
 *     the risk layer's limits use), its account exposure and its PnL figures are the books'
 *   marketPnl(market) → { realised, unrealised } in 1e-6 USDC (bigint, exact)
 *   reservedCollateral(market) → 1e-6 USDC locked by our open orders (bigint)
 * Derived pieces (view book, quotes, position, PnL, account contribution) are remembered in the
 * market's memo (src/state/market-memo.ts), the account totals in the store's (src/state/state-memo.ts),
 * and recomputed only when the immutable object they come from changes, so building views for every
 * market each tick does not recompute unchanged markets. Nothing is kept at module level but one
 * instance of each of the view's two classes (VIEW_ACCOUNT_SHAPE, VIEW_EDGE_SHAPE: below), which only
 * hold their classes' maps alive.
 */
import { accountShare, exposureOf } from '../risk/exposure.ts';
import type { Bytes32 } from '../model/order.ts';
import { paysIn, restingOf } from '../exchange/v2-resting.ts';
import { toYesTerms } from '../strategy/to-orders.ts';
import type {
  MarketView,
  PooledToxicity,
  Regime,
  ViewAccount,
  ViewBook,
  ViewEdge,
  ViewFlags,
  ViewMarkout,
  ViewPnl,
  ViewPosition,
  ViewVenueHealth,
  WorkingQuote,
} from '../strategy/types.ts';
import { viewBook } from '../strategy/view-book.ts';
import { parseSlot } from '../orders/slots.ts';
import { yesTermsLevels } from './book-state.ts';
import { emptyMarket, emptyState, type MarketState, type OwnOrder, type StoreState } from './market-state.ts';
import { edgeView, poolView, poolWithout } from './edge-view.ts';
import { PersistentMap } from './persistent-map.ts';
import { averageEntry, toMicro, unrealisedScaled, type PositionState } from './position.ts';
import type { Account } from '../account/account.ts';
import { SLOT_LEVELS_MAX, type Contribution, type MarketMemo } from './market-memo.ts';
import { StateMemo } from './state-memo.ts';

/**
 * Derived pieces of one market, remembered in the market's own memo (src/state/market-memo.ts) and
 * recomputed when the immutable object they derive from is replaced. A WeakMap keyed on those
 * objects did the same job, but every tick brings fresh keys (a new book, a new state), and a
 * WeakMap insert costs ~0.4 µs with its GC (ephemeron) work; the memo is one property read. It goes
 * with the market's state: a released market leaves nothing here.
 */
const memoOf = (m: MarketState): MarketMemo => m.memo;

/** The YES-terms view book, built once per books object (with the book time of its first view). */
function bookOf(m: MarketState, memo: MarketMemo): ViewBook | null {
  if (memo.books === m.books) return memo.book;
  // a replay without the drop copy marks its books as not holding our orders (src/strategy/others-book.ts)
  const yes = m.books.yes;
  let v: ViewBook;
  // the YES book's levels as they are (every tick of a YES-quoted market: no yesTermsLevels object to read them from)
  if (yes) v = viewBook(yes.bids, yes.asks, yes.venueTs, m.bookUpdatedAt, yes.withoutOwn === true);
  else {
    const y = yesTermsLevels(m.books);
    if (!y) return null;
    v = viewBook(y.bids, y.asks, y.venueTs, m.bookUpdatedAt, m.books.no?.withoutOwn === true);
  }
  memo.books = m.books;
  memo.book = v;
  return v;
}

/** The level an own order's slot names (-1: not one of ours), parsed once per slot name and market. */
function slotLevelOf(memo: MarketMemo, slot: string): number {
  let levels = memo.slotLevels;
  if (levels === null) levels = memo.slotLevels = new Map();
  let level = levels.get(slot);
  if (level === undefined) {
    level = parseSlot(slot)?.level ?? -1;
    if (levels.size >= SLOT_LEVELS_MAX) levels.clear();
    levels.set(slot, level);
  }
  return level;
}

const STATE: Record<OwnOrder['state'], WorkingQuote['state']> = { working: 'working', 'in-flight': 'in-flight', cancelling: 'cancelling' };

function quotesOf(m: MarketState, memo: MarketMemo): WorkingQuote[] {
  if (memo.orders === m.orders) return memo.quotes;
  const out: WorkingQuote[] = [];
  for (const o of m.orders.values()) {
    const y = toYesTerms(o.order.outcomeIndex, o.order.side, o.order.price);
    const level = slotLevelOf(memo, o.slot);
    const venueSide = o.order.side === 0 ? 'buy' : 'sell';
    // `level` only when the slot names one: two literals, not a conditional spread
    out.push(
      level >= 0
        ? {
            side: y.side,
            price: y.price,
            size: o.remaining,
            state: STATE[o.state],
            nonce: o.order.nonce,
            level,
            outcomeIndex: o.order.outcomeIndex,
            venueSide,
            placedAt: o.placedAt,
          }
        : {
            side: y.side,
            price: y.price,
            size: o.remaining,
            state: STATE[o.state],
            nonce: o.order.nonce,
            outcomeIndex: o.order.outcomeIndex,
            venueSide,
            placedAt: o.placedAt,
          },
    );
  }
  memo.orders = m.orders;
  memo.quotes = out;
  return out;
}

/** Twice the mark: the payout after resolution, else the last mid; null when unknown. */
function mark2Of(m: MarketState): number | null {
  if (m.payoutYes !== null) return m.payoutYes * 2;
  return m.lastMid2;
}

/**
 * The market's PnL in 1e-6 USDC (bigint maths on every tick of every market was a visible share of
 * the tick): kept for the last (position, mark) seen.
 */
function pnlOf(m: MarketState, memo: MarketMemo): MarketMemo {
  const mark2 = mark2Of(m);
  if (memo.pnlPosition !== m.position) {
    memo.pnlPosition = m.position;
    memo.realised = toMicro(m.position.realised);
    memo.pnlMark2 = mark2;
    memo.unrealised = unrealisedOf(m.position, mark2);
  } else if (memo.pnlMark2 !== mark2) {
    memo.pnlMark2 = mark2;
    memo.unrealised = unrealisedOf(m.position, mark2);
  }
  return memo;
}

const unrealisedOf = (pos: PositionState, mark2: number | null): bigint => (mark2 === null ? 0n : toMicro(unrealisedScaled(pos, mark2)));

export function marketPnl(m: MarketState): { realised: bigint; unrealised: bigint } {
  const p = pnlOf(m, memoOf(m));
  return { realised: p.realised, unrealised: p.unrealised };
}

/**
 * Collateral our open orders lock, as the venue reserves it: each paying order's signed budget
 * (maxCollateralIn: price × size + fee cap for buys, (1 − price) × size + fee cap for sells without
 * inventory) less what its reported fills spent (src/exchange/v2-resting.ts restingOf).
 */
export function reservedCollateral(m: MarketState): bigint {
  let total = 0n;
  for (const o of m.orders.values()) {
    if (!paysIn(o.order)) continue;
    total += BigInt(restingOf(o.order, o.order.size - o.remaining, o.spent ?? 0).collateral);
  }
  return total;
}

/**
 * The position a market's risk and strategy read: the account's books when given (balance reads
 * only reconcile against them: docs/books-and-pnl.md), else the store's own (tools, tests).
 */
function riskPosition(m: MarketState, books: Account | undefined): PositionState {
  return books === undefined ? m.position : books.limitHoldingsOf(m.marketId);
}

/** One market's share of the account totals; recomputed when its position, orders or mark change. */
function contributionOf(m: MarketState, books: Account | undefined): Contribution {
  const memo = memoOf(m);
  const mark2 = mark2Of(m);
  // the books' position is looked up again only after a fill anywhere (the account's version moved):
  // the account totals walk every market on every new state
  let pos: PositionState;
  if (books === undefined) pos = m.position;
  else if (memo.cBooks === books && memo.cVersion === books.version && memo.cPosition !== null) pos = memo.cPosition;
  else {
    pos = books.limitHoldingsOf(m.marketId);
    memo.cBooks = books;
    memo.cVersion = books.version;
  }
  const withPnl = books === undefined;
  if (memo.contribution !== null && memo.cPosition === pos && memo.cOrders === m.orders && memo.cMark2 === mark2 && memo.cWithPnl === withPnl)
    return memo.contribution;
  // with the books, the account's PnL is theirs (withBooksPnl): the store's PnL of each market, a
  // bigint sum on every new mark, would be summed for nothing
  let pnl = 0n;
  if (withPnl) {
    const p = pnlOf(m, memo);
    pnl = p.realised + p.unrealised;
  }
  const e = exposureOf(pos.net, quotesOf(m, memo));
  // a resolved market (payout known) is worth its payout, not at risk: src/risk/exposure.ts accountShare
  const share = accountShare(e, mark2 === null ? 500_000 : mark2 / 2, m.payoutYes !== null);
  const c: Contribution = { pnl, position: share.position, notional: share.notional };
  memo.cPosition = pos;
  memo.cOrders = m.orders;
  memo.cMark2 = mark2;
  memo.cWithPnl = withPnl;
  memo.contribution = c;
  return c;
}

/**
 * The account totals, kept incrementally in the store's memo (src/state/state-memo.ts): the sums of
 * every market's contribution for the last state asked about (with the books, positions and
 * notionals only: the PnL is then the books', see contributionOf), and the contribution each market
 * added. A new state of the store differs from the last in the markets an event touched (a book
 * delta: one), so the next totals take those markets' old contributions out and their new ones in,
 * instead of summing every market again (at 2,000 markets and a new state per delta, that sum was
 * half of the bot's CPU). The changed markets are found by comparing the two states' market maps
 * bucket by bucket (PersistentMap.forEachChangeSince), which is right for any two maps and costs no
 * more than a full sum when most buckets differ. The figures are the same as the full sum's: PnL is
 * a bigint, positions and notionals integers (checked; a sum that leaves the safe integers is summed
 * in full again). A state whose markets are not a PersistentMap (a plain Map) is summed in full, and
 * so is every state after the account's books changed (a fill, a resolution: rare beside book
 * deltas), since a market's contribution reads its holdings from the books.
 */
function fullTotals(s: StoreState, books: Account | undefined, t: StateMemo): ViewAccount {
  const counted = t.counted;
  counted.clear();
  let pnl = 0n;
  let position = 0;
  let notional = 0;
  for (const [k, m] of s.markets) {
    const c = contributionOf(m, books);
    counted.set(k, c);
    pnl += c.pnl;
    position += c.position;
    notional += c.notional;
  }
  t.books = books;
  t.version = books === undefined ? -1 : books.version;
  t.pnl = pnl;
  t.position = position;
  t.notional = notional;
  return settled(s, t);
}

/** The memo's sums are those of `s` now: remember the state and the view of the sums. */
function settled(s: StoreState, t: StateMemo): ViewAccount {
  t.state = s;
  t.markets = s.markets;
  return (t.view = accountView(s, t.pnl, t.position, t.notional, t.view));
}

/** The view of the sums: the last one when nothing it shows changed. */
function accountView(s: StoreState, pnl: bigint, position: number, notional: number, last: ViewAccount | null): ViewAccount {
  const collateral = s.collateral ?? 0n;
  const p = Number(pnl);
  if (last !== null && last.collateral === collateral && last.pnl === p && last.worstCasePosition === position && last.worstCaseNotional === notional)
    return last;
  return { collateral, pnl: p, worstCasePosition: position, worstCaseNotional: notional };
}

function accountOf(s: StoreState, books: Account | undefined): ViewAccount {
  const t = s.memo;
  if (t.state === s && t.books === books && t.version === (books === undefined ? -1 : books.version)) return t.view!;
  const prev = t.markets;
  const next = s.markets;
  if (prev === null || t.books !== books || t.version !== (books === undefined ? -1 : books.version)) return fullTotals(s, books, t);
  if (prev === next) return settled(s, t); // the same markets (a balance or venue-call event): only the collateral can differ
  if (!(prev instanceof PersistentMap && next instanceof PersistentMap)) return fullTotals(s, books, t);
  (next as PersistentMap<MarketState>).forEachChangeSince(prev as PersistentMap<MarketState>, (k, _before, after) => {
    const old = t.counted.get(k);
    if (old !== undefined) {
      t.pnl -= old.pnl;
      t.position -= old.position;
      t.notional -= old.notional;
      t.counted.delete(k);
    }
    if (after !== undefined) {
      const c = contributionOf(after, books);
      t.pnl += c.pnl;
      t.position += c.position;
      t.notional += c.notional;
      t.counted.set(k, c);
    }
  });
  if (!Number.isSafeInteger(t.position) || !Number.isSafeInteger(t.notional)) return fullTotals(s, books, t);
  return settled(s, t);
}

/**
 * The account totals of a state, kept incrementally in its store's memo (see above): what every
 * market's view shows. With the books, the PnL is the books' (as in the view).
 */
export function accountTotals(s: StoreState, books?: Account): ViewAccount {
  const totals = accountOf(s, books);
  return books === undefined ? totals : withBooksPnl(totals, books, s.memo);
}

/** The same totals summed over every market (no incremental state): the reference the tests compare with. */
export function accountTotalsSummed(s: StoreState, books?: Account): ViewAccount {
  const memo = new StateMemo();
  const totals = fullTotals(s, books, memo);
  return books === undefined ? totals : withBooksPnl(totals, books, memo);
}

/** The account totals with the books' PnL (one object per distinct PnL, not per tick), kept in the store's memo. */
function withBooksPnl(totals: ViewAccount, books: Account, t: StateMemo): ViewAccount {
  const pnl = Number(books.pnl());
  if (t.booksBase === totals && t.booksView !== null && t.booksView.pnl === pnl) return t.booksView;
  t.booksBase = totals;
  t.booksView = { collateral: totals.collateral, pnl, worstCasePosition: totals.worstCasePosition, worstCaseNotional: totals.worstCaseNotional };
  return t.booksView;
}

/**
 * A view's account totals, brought up to date when a figure is first read (the risk gate's
 * account-wide caps, a strategy that looks at them): that walks the markets changed since the
 * totals were last asked for, and most ticks read none of them. The state is immutable and a tick
 * reads its view at once (the books do not change within it), so the figures are those of the
 * view's moment. A class with its getters on the prototype: an object literal with a getter is
 * built on V8's slow path (~2 µs a view).
 */
class ViewAccountTotals implements ViewAccount {
  readonly #s: StoreState;
  readonly #books: Account | undefined;
  #totals: ViewAccount | null = null;

  constructor(s: StoreState, books: Account | undefined) {
    this.#s = s;
    this.#books = books;
  }

  /** the figures (accountTotals of the view's state) */
  get totals(): ViewAccount {
    return (this.#totals ??= accountTotals(this.#s, this.#books));
  }
  get collateral(): bigint {
    return this.totals.collateral;
  }
  get pnl(): number {
    return this.totals.pnl;
  }
  get worstCasePosition(): number {
    return this.totals.worstCasePosition;
  }
  get worstCaseNotional(): number {
    return this.totals.worstCaseNotional;
  }
  /** serialised as its figures */
  toJSON(): ViewAccount {
    return this.totals;
  }
}

function venueOf(s: StoreState, now: number, windowMs: number): ViewVenueHealth {
  // O(log n): the calls of the window are a suffix of the state's time-ordered window
  const { requests, errors } = s.venueCalls.count(now, windowMs);
  // the same figures as the last view's (most ticks): that object, kept in the store's memo
  const last = s.memo.venue;
  if (last !== null && last.requests === requests && last.errors === errors && last.windowMs === windowMs) return last;
  return (s.memo.venue = { requests, errors, windowMs });
}

/** The strategy's view of a position, shared by every tick until the position changes. */
function positionOf(m: MarketState, memo: MarketMemo, books: Account | undefined): ViewPosition {
  const pos = riskPosition(m, books);
  if (memo.viewPosition !== null && memo.vpPosition === pos) return memo.viewPosition;
  const v: ViewPosition = { yes: pos.yes, no: pos.no, net: pos.net, avgEntry: averageEntry(pos) };
  memo.vpPosition = pos;
  memo.viewPosition = v;
  return v;
}

/** The view's flags: one of two shared objects (the store sets nothing else; read only, as the view's other shared pieces). */
const MIGRATING: ViewFlags = { migrationActive: true };
const NOT_MIGRATING: ViewFlags = { migrationActive: false };

/** The view's PnL in numbers, shared by every tick until the figures change (kept in the market's memo). */
function viewPnlOf(memo: MarketMemo, realised: bigint, unrealised: bigint): ViewPnl {
  const last = memo.viewPnl;
  if (last !== null && memo.vpRealised === realised && memo.vpUnrealised === unrealised) return last;
  memo.vpRealised = realised;
  memo.vpUnrealised = unrealised;
  return (memo.viewPnl = { realised: Number(realised), unrealised: Number(unrealised) });
}

/**
 * The account's pooled toxicity at `now` without the market's own fills (the other markets'
 * evidence): for a market without settled markouts the whole pool, made once per (pool, now) for
 * every such market's view of a tick.
 */
function pooledOf(s: StoreState, m: MarketState, now: number): PooledToxicity {
  const hl = m.edge.settings.poolHalfLifeMs;
  if (m.edge.pooled.den > 0) {
    // the others' evidence changes only when a markout settles somewhere: kept in the market's memo
    const mm = m.memo;
    if (mm.restPool !== s.toxicityPool || mm.restOwn !== m.edge.pooled || mm.restHalfLife !== hl || mm.rest === null) {
      mm.rest = poolWithout(s.toxicityPool, m.edge.pooled, hl);
      mm.restPool = s.toxicityPool;
      mm.restOwn = m.edge.pooled;
      mm.restHalfLife = hl;
    }
    return poolView(mm.rest, now, hl);
  }
  const memo = s.memo;
  if (memo.pool !== s.toxicityPool || memo.poolNow !== now || memo.poolView === null) {
    memo.poolView = poolView(s.toxicityPool, now, hl);
    memo.pool = s.toxicityPool;
    memo.poolNow = now;
  }
  return memo.poolView;
}

/**
 * A view's edge figures (markouts, toxicity, the pool, prints, flow, regime: edgeView of the market at
 * the view's time), computed when a figure is first read. Most ticks read none of them (a strategy
 * without the edge guard or a flow lean), and computing them cost a regime reading, several decays
 * (a pow each) and four objects per view. The state is immutable, so the figures are those of the
 * view's moment whenever they are read. A class with its getters on the prototype, as
 * ViewAccountTotals; it serialises as its figures.
 */
class ViewEdgeFigures implements ViewEdge {
  readonly #s: StoreState;
  readonly #m: MarketState;
  readonly #now: number;
  #edge: ViewEdge | null = null;

  constructor(s: StoreState, m: MarketState, now: number) {
    this.#s = s;
    this.#m = m;
    this.#now = now;
  }

  /** the figures (edgeView of the view's market and time, with the account's pool) */
  get figures(): ViewEdge {
    return (this.#edge ??= edgeView(this.#m, this.#now, pooledOf(this.#s, this.#m, this.#now)));
  }
  get regime(): Regime {
    return this.figures.regime;
  }
  get regimeSince(): number {
    return this.figures.regimeSince;
  }
  get regimeCause(): string | null {
    return this.figures.regimeCause;
  }
  get toxicity(): number | null {
    return this.figures.toxicity;
  }
  get toxicityWeight(): number {
    return this.figures.toxicityWeight;
  }
  get toxicityStdErr(): number | null | undefined {
    return this.figures.toxicityStdErr;
  }
  get pool(): PooledToxicity | undefined {
    return this.figures.pool;
  }
  get prints(): PooledToxicity | undefined {
    return this.figures.prints;
  }
  get flowImbalance(): number {
    return this.figures.flowImbalance;
  }
  get flowSize(): number {
    return this.figures.flowSize;
  }
  get markouts(): readonly ViewMarkout[] {
    return this.figures.markouts;
  }
  /** serialised as its figures */
  toJSON(): ViewEdge {
    return this.figures;
  }
}

/**
 * One instance of each of the view's classes, kept for the module's life. A view lives one tick, so at a
 * full GC there is often no ViewAccountTotals or ViewEdgeFigures alive: the map their instances have (the
 * class's map with its fields added) then died, and V8 discarded every optimised function that had
 * embedded it (selectMarketView, the classes' field initialisers, the strategies and risk code reading
 * the figures), to optimise them again after (docs/performance/reoptimisation.md). A kept instance keeps
 * the map; these are never read (figures of an empty state). test/state/view-shape.test.ts checks that
 * they have the map of every view's, read or not.
 */
const SHAPE_STATE = emptyState();
export const VIEW_ACCOUNT_SHAPE: ViewAccount = new ViewAccountTotals(SHAPE_STATE, undefined);
export const VIEW_EDGE_SHAPE: ViewEdge = new ViewEdgeFigures(SHAPE_STATE, emptyMarket(('0x' + '00'.repeat(32)) as Bytes32), 0);

export function selectMarketView(s: StoreState, marketId: Bytes32, now: number, venueWindowMs = 60_000, books?: Account): MarketView | null {
  const m = s.markets.get(marketId);
  if (!m) return null;
  const memo = memoOf(m);
  // the books' PnL when given (the account's one figure), else the store's own arithmetic (tools, tests)
  const pnl = books === undefined ? pnlOf(m, memo) : books.marketPnl(m.marketId);
  const o = m.oracle;
  const oracle = o ? { probability: o.probability, confidence: o.confidence, updatedAt: o.updatedAt, ageMs: Math.max(0, now - o.updatedAt) } : null;
  // `slug` in every view (undefined when unknown): one object shape for every market (a key added
  // only when known sent the object down V8's slow path)
  return {
    marketId: m.marketId,
    slug: m.slug,
    tick: m.tick,
    minSize: m.minSize,
    deadline: m.deadline,
    status: m.status,
    now,
    book: bookOf(m, memo),
    streamLastEventAt: m.streamLastEventAt,
    trades: m.trades,
    midHistory: m.midHistory,
    position: positionOf(m, memo, books),
    quotes: quotesOf(m, memo),
    oracle,
    pnl: viewPnlOf(memo, pnl.realised, pnl.unrealised),
    account: new ViewAccountTotals(s, books),
    venue: venueOf(s, now, venueWindowMs),
    flags: m.blocked === 'migration' ? MIGRATING : NOT_MIGRATING,
    edge: new ViewEdgeFigures(s, m, now),
    memo,
  };
}
